import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe-gateway.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

/**
 * Stripe's failure paths from end to end, as a participant meets them: what `/pay/{uuid}`
 * does after a failed or lost Checkout Session create, and what a correctly signed webhook
 * about some other Checkout Session can and cannot do to a payment.
 */
type Slot = { start: string; username: string };
const PUBLIC_URL = 'http://termin.test';

for (const dialect of DIALECTS) {
  describe(`Stripe's failure paths [${dialect}]`, () => {
    let t: TestApp;
    let stripe: FakeStripe;
    let acme: CreatedAccount;
    let topic: { uuid: string };
    let slots: Slot[];
    let participants = 0;

    beforeAll(async () => {
      // Stripe checks expires_at and keeps keys by its own clock, which is the world's: termin's clock here.
      const clock = createClock('2027-01-04T06:00:00.000Z');
      stripe = await startFakeStripe({ now: clock.now });
      t = await createTestApp(dialect, clock, { PUBLIC_URL, STRIPE_API_URL: stripe.baseUrl });
      acme = await createTestAccount(t.ctx, { timezone: 'UTC', places: ['zoom'] });
      expect((await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { gateways: { stripe: { ...stripe.credentials.secrets } } })).statusCode).toBe(200);
      topic = (
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
          name: 'Consultation',
          durationMinutes: 30,
          places: ['zoom'],
          price: { amount: 15000, currency: 'PLN' },
          bookingWindowDays: 365,
        })
      ).json();
      slots = [];
      for (const offset of [0, 7, 14]) {
        const body = (await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic: topic.uuid, timezone: 'UTC', offset })).json();
        slots.push(...(body.days as { slots: Slot[] }[]).flatMap((day) => day.slots));
      }
    }, 60_000);

    afterAll(async () => {
      await t?.close();
      await stripe?.close();
    });

    async function book() {
      participants += 1;
      const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [slots.shift()!],
        email: `participant${participants}@example.com`,
        lang: 'en',
        name: `Participant ${participants}`,
        place: 'zoom',
        meetingTopic: topic.uuid,
        timezone: 'UTC',
        gateway: 'stripe',
      });
      expect(response.statusCode, response.body).toBe(201);
      return response.json() as { meetings: { uuid: string }[]; payment: { uuid: string } };
    }

    const visit = (paymentUuid: string) => t.app.inject({ method: 'GET', url: `/pay/${paymentUuid}`, headers: { accept: 'text/html' } });

    /** The Checkout Session the participant was sent to (from the 303), or a failure naming what they saw. */
    async function sessionOfVisit(paymentUuid: string): Promise<string> {
      const response = await visit(paymentUuid);
      expect(response.statusCode, response.body.slice(0, 300)).toBe(303);
      const sessionId = new RegExp(`^${stripe.baseUrl}/c/pay/(cs_test_\\w+)$`).exec(String(response.headers.location))?.[1];
      expect(sessionId).toBeDefined();
      return sessionId!;
    }

    async function notify(notification: { headers: Record<string, string | undefined>; rawBody: string }) {
      const headers = Object.fromEntries(Object.entries(notification.headers).filter((entry): entry is [string, string] => entry[1] !== undefined));
      return t.app.inject({ method: 'POST', url: `/api/v1/payments/stripe/notifications/${acme.account.uuid}`, headers, payload: notification.rawBody });
    }

    /** The Checkout Sessions Stripe holds for this payment, whoever made them. */
    const sessionsOf = (paymentUuid: string) => [...stripe.sessions.values()].filter((session) => session.client_reference_id === paymentUuid).map((session) => session.id);
    const keysTried = (paymentUuid: string) => [
      ...new Set(
        stripe.calls.filter((c) => c.path === '/v1/checkout/sessions' && String(c.headers['idempotency-key']).startsWith(paymentUuid)).map((c) => c.headers['idempotency-key']),
      ),
    ];

    /** The participant sees the gateway-error page, with its link to try again. */
    async function expectErrorPage(paymentUuid: string) {
      const response = await visit(paymentUuid);
      expect(response.statusCode).toBe(502);
      expect(response.body).toContain(`href="${PUBLIC_URL}/pay/${paymentUuid}"`);
    }

    /** Stripe reports the session paid; the booking is confirmed. */
    async function payAndExpectConfirmed(booking: { meetings: { uuid: string }[]; payment: { uuid: string } }, sessionId: string) {
      expect((await notify(stripe.notificationFor(sessionId))).statusCode).toBe(200);
      expect(await meetingStatus(booking.meetings[0]!.uuid)).toBe('confirmed');
      expect((await paymentDetails(booking.payment.uuid)).payment).toMatchObject({ status: 'paid', amount: 15000, currency: 'PLN' });
    }

    it('a 500 Stripe keeps under the key does not stop the payment: a new key is tried at once and the participant pays', async () => {
      const booking = await book();
      stripe.failNextCreates(1);
      const session = await sessionOfVisit(booking.payment.uuid);
      expect(sessionsOf(booking.payment.uuid)).toEqual([session]);
      expect(keysTried(booking.payment.uuid)).toEqual([booking.payment.uuid, `${booking.payment.uuid}:1`]);
      await payAndExpectConfirmed(booking, session);
    });

    it('after a create that failed twice, the next visit gets to Stripe instead of the same 500 until the hold lapses', async () => {
      const booking = await book();
      stripe.failNextCreates(2);
      await expectErrorPage(booking.payment.uuid);
      t.clock.advance(60_000);
      const session = await sessionOfVisit(booking.payment.uuid);
      expect(await sessionOfVisit(booking.payment.uuid)).toBe(session);
      expect(sessionsOf(booking.payment.uuid)).toEqual([session]);
      await payAndExpectConfirmed(booking, session);
    });

    it('after an answer lost on the way back, the participant coming back minutes later is sent to the session Stripe made: one session', async () => {
      const booking = await book();
      stripe.loseNextCreateAnswers(2);
      await expectErrorPage(booking.payment.uuid);
      expect(sessionsOf(booking.payment.uuid)).toHaveLength(1);
      t.clock.advance(5 * 60_000);
      const session = await sessionOfVisit(booking.payment.uuid);
      expect(sessionsOf(booking.payment.uuid)).toEqual([session]);
      expect(keysTried(booking.payment.uuid)).toEqual([booking.payment.uuid]);
      await payAndExpectConfirmed(booking, session);
    });

    it('after a try that never reached Stripe, a visit minutes later still gets to Stripe (the old expires_at no longer fits: a new attempt)', async () => {
      const booking = await book();
      stripe.setDown('reset');
      try {
        await expectErrorPage(booking.payment.uuid);
      } finally {
        stripe.setDown(false);
      }
      t.clock.advance(5 * 60_000);
      const session = await sessionOfVisit(booking.payment.uuid);
      expect(sessionsOf(booking.payment.uuid)).toEqual([session]);
      const request = stripe.sessionRequests.at(-1) as Record<string, unknown>;
      expect(Number(request.expires_at)).toBeGreaterThanOrEqual(t.clock.now() / 1000 + 30 * 60);
      await payAndExpectConfirmed(booking, session);
    });

    it('when Stripe refuses the key as used with other parameters (the topic renamed after a lost answer), a new key gets the participant to Stripe', async () => {
      const booking = await book();
      stripe.loseNextCreateAnswers(2);
      await expectErrorPage(booking.payment.uuid);
      const [orphan] = sessionsOf(booking.payment.uuid);
      expect((await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${topic.uuid}`, { name: 'First consultation' })).statusCode).toBe(200);
      const session = await sessionOfVisit(booking.payment.uuid);
      expect(session).not.toBe(orphan);
      expect(keysTried(booking.payment.uuid)).toEqual([booking.payment.uuid, `${booking.payment.uuid}:1`]);
      // The session the lost answer left behind cannot pay this payment; its own session does.
      expectProblem(await notify(stripe.notificationFor(orphan!)), 400, 'NOTIFICATION_REJECTED');
      await payAndExpectConfirmed(booking, session);
      expect((await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${topic.uuid}`, { name: 'Consultation' })).statusCode).toBe(200);
    });

    const meetingStatus = async (uuid: string) => (await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${uuid}`)).json().status as string;
    const paymentDetails = async (uuid: string) => (await call(t.app, acme.apiKey, 'GET', `/api/v1/payments/${uuid}`)).json();

    it('does not let a signed webhook about another Checkout Session for this payment and amount pay it; its own session then does', async () => {
      const booking = await book();
      const own = await sessionOfVisit(booking.payment.uuid);
      // Another session naming this payment, for the same amount: made under another idempotency key,
      // by another integration on the same Stripe account, or one a lost answer left behind.
      const client = new Stripe(stripe.credentials.secrets.secretKey!, {
        host: '127.0.0.1',
        port: Number(new URL(stripe.baseUrl).port),
        protocol: 'http',
        maxNetworkRetries: 0,
        telemetry: false,
      });
      const other = await client.checkout.sessions.create(
        {
          mode: 'payment',
          line_items: [{ quantity: 1, price_data: { currency: 'pln', unit_amount: 15000, product_data: { name: 'Consultation' } } }],
          client_reference_id: booking.payment.uuid,
          metadata: { paymentUuid: booking.payment.uuid, accountUuid: acme.account.uuid },
          success_url: `${PUBLIC_URL}/pay/${booking.payment.uuid}/return`,
        },
        { idempotencyKey: `elsewhere-${booking.payment.uuid}` },
      );
      expect(other.id).not.toBe(own);

      expectProblem(await notify(stripe.notificationFor(other.id)), 400, 'NOTIFICATION_REJECTED');
      expect(await meetingStatus(booking.meetings[0]!.uuid)).toBe('pending_payment');
      expect((await paymentDetails(booking.payment.uuid)).payment).toMatchObject({ status: 'pending', paidAt: null });

      expect((await notify(stripe.notificationFor(own))).statusCode).toBe(200);
      expect(await meetingStatus(booking.meetings[0]!.uuid)).toBe('confirmed');
      const details = await paymentDetails(booking.payment.uuid);
      expect(details.payment).toMatchObject({ status: 'paid' });
      expect(details.events.map((event: { status: string }) => event.status)).toEqual(['pending', 'paid']);
    });
  });
}
