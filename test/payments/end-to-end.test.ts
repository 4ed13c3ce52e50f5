import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createJobHandlers, startBackgroundJobs, type BackgroundJobs } from '../../src/background.js';
import { claimJobs, completeJob } from '../../src/db/repositories/outbox.js';
import { CONFERENCE_ROOM_JOB_KIND, EVENT_JOB_KIND } from '../../src/outbox/job-kinds.js';
import { readJob } from '../../src/outbox/worker.js';
import type { RenderedMessage } from '../../src/mail/message.js';
import type { MailTransport } from '../../src/mail/transport.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import type { FakeGateway, RecordedCall } from '../fakes/common-gateway.js';
import { startFakeP24 } from '../fakes/p24-gateway.js';
import { startFakePaypal, type FakePaypal } from '../fakes/paypal-gateway.js';
import { startFakePayu } from '../fakes/payu-gateway.js';
import { parseStripeForm, startFakeStripe } from '../fakes/stripe-gateway.js';
import { startFakeTpay } from '../fakes/tpay-gateway.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

/**
 * A paid booking from end to end, for each of the five gateways against its fake: booking →
 * /pay → 303 to the gateway → signed notification → paid and confirmed → e-mails; forged,
 * repeated and wrong-amount notifications; late payments; refunds; a gateway outage.
 */
const CODES = ['stripe', 'p24', 'payu', 'paypal', 'tpay'] as const;
type Code = (typeof CODES)[number];
type Slot = { start: string; username: string };

const PUBLIC_URL = 'http://termin.test';
const START = '2027-01-04T06:00:00.000Z';
/** The path of each gateway's "create the transaction" call. */
const CREATE_PATH: Record<Code, string> = {
  stripe: '/v1/checkout/sessions',
  p24: '/api/v1/transaction/register',
  payu: '/api/v2_1/orders',
  paypal: '/v2/checkout/orders',
  tpay: '/transactions',
};

for (const dialect of DIALECTS) {
  describe(`payments end to end [${dialect}]`, () => {
    const fakes = new Map<Code, FakeGateway>();
    const sent: RenderedMessage[] = [];
    let t: TestApp;
    let jobs: BackgroundJobs;
    let acme: CreatedAccount;
    let paidTopic: { uuid: string; priceVariants: { uuid: string }[] };
    let slots: Slot[];
    let nextSlot = 0;
    let participantCounter = 0;

    beforeAll(async () => {
      // Stripe checks expires_at against its own clock, which is the world's: termin's clock here.
      const clock = createClock(START);
      const started = await Promise.all([startFakeStripe({ now: clock.now }), startFakeP24(), startFakePayu(), startFakePaypal(), startFakeTpay()]);
      for (const fake of started) fakes.set(fake.code as Code, fake);
      const url = (code: Code) => fakes.get(code)!.baseUrl;
      t = await createTestApp(dialect, clock, {
        PUBLIC_URL,
        STRIPE_API_URL: url('stripe'),
        P24_API_URL: url('p24'),
        PAYU_API_URL: url('payu'),
        PAYPAL_API_URL: url('paypal'),
        TPAY_API_URL: url('tpay'),
        TPAY_JWS_URL: url('tpay'),
      });
      const transport: MailTransport = { send: async (message) => void sent.push(message), close: () => undefined, describe: () => 'memory' };
      jobs = startBackgroundJobs(t.ctx, { jobIntervalMs: 3_600_000, wakeOnBooking: false, transport });
      acme = await createTestAccount(t.ctx, { timezone: 'UTC', places: ['zoom'] });
      const gateways = Object.fromEntries(started.map((fake) => [fake.code, { ...fake.credentials.settings, ...fake.credentials.secrets }]));
      expect((await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { gateways })).statusCode).toBe(200);
      paidTopic = (
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
          name: 'Consultation',
          durationMinutes: 30,
          places: ['zoom'],
          price: { amount: 15000, currency: 'PLN' },
          priceVariants: [{ name: '90 min', price: { amount: 20000, currency: 'PLN' } }],
          bookingWindowDays: 365,
        })
      ).json();
      slots = await slotsOf(paidTopic.uuid);
    }, 60_000);

    // Every test starts at the same hour: the late-payment tests move the clock on by half an
    // hour each, which in a shuffled order would put the next test's slot in the past.
    beforeEach(() => t.clock.set(START));

    afterAll(async () => {
      await jobs?.stop();
      await t?.close();
      await Promise.all([...fakes.values()].map((fake) => fake.close()));
    });

    async function slotsOf(topicUuid: string): Promise<Slot[]> {
      const found: Slot[] = [];
      for (const offset of [0, 7, 14, 21]) {
        const body = (await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic: topicUuid, timezone: 'UTC', offset })).json();
        found.push(...(body.days as { slots: Slot[] }[]).flatMap((day) => day.slots));
      }
      return found;
    }

    /** A booking of one or more fresh slots by a participant of their own. */
    async function book(gateway: Code, options: { dates?: Slot[]; lang?: 'en' | 'pl'; extra?: Record<string, unknown>; topic?: string } = {}) {
      participantCounter += 1;
      const email = `participant${participantCounter}@example.com`;
      const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: options.dates ?? [slots[nextSlot++]!],
        email,
        lang: options.lang ?? 'en',
        name: `Participant ${participantCounter}`,
        place: 'zoom',
        meetingTopic: options.topic ?? paidTopic.uuid,
        timezone: 'Europe/Warsaw',
        gateway,
        invoiceName: 'ACME sp. z o.o.',
        invoiceTaxNumber: 'PL5260001246',
        ...options.extra,
      });
      expect(response.statusCode, response.body).toBe(201);
      const body = response.json() as { meetings: { uuid: string }[]; payment: { uuid: string; amount: number; redirectUrl: string } };
      return { email, meetings: body.meetings, payment: body.payment };
    }

    const createCalls = (code: Code): RecordedCall[] => fakes.get(code)!.calls.filter((c) => c.method === 'POST' && c.path === CREATE_PATH[code]);
    const payPath = (paymentUuid: string) => `/pay/${paymentUuid}`;
    const visit = (path: string) => t.app.inject({ method: 'GET', url: path, headers: { accept: 'text/html' } });

    /** Visits /pay, expects the 303 to the gateway, and returns the gateway's transaction id. */
    async function pay(code: Code, paymentUuid: string): Promise<string> {
      const response = await visit(payPath(paymentUuid));
      expect(response.statusCode, response.body).toBe(303);
      expect(String(response.headers.location).startsWith(fakes.get(code)!.baseUrl)).toBe(true);
      const row = await t.ctx.db.selectFrom('payments').select('gateway_transaction_id').where('id', '=', paymentUuid).executeTakeFirstOrThrow();
      return row.gateway_transaction_id!;
    }

    async function notify(code: Code, notification: { headers: Record<string, string | undefined>; rawBody: string }) {
      const headers = Object.fromEntries(Object.entries(notification.headers).filter((entry): entry is [string, string] => entry[1] !== undefined));
      return t.app.inject({ method: 'POST', url: `/api/v1/payments/${code}/notifications/${acme.account.uuid}`, headers, payload: notification.rawBody });
    }

    const meeting = async (uuid: string) => (await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${uuid}`)).json();
    const paymentDetails = async (uuid: string) => (await call(t.app, acme.apiKey, 'GET', `/api/v1/payments/${uuid}`)).json();
    const mailsTo = (email: string) => sent.filter((message) => message.to.email === email);
    const statusOf = async (uuid: string) => (await t.ctx.db.selectFrom('payments').select('status').where('id', '=', uuid).executeTakeFirstOrThrow()).status;

    describe.each(CODES)('%s', (code) => {
      it('takes the money: /pay creates one transaction, a signed notification confirms, the e-mails show the amount; a repeat changes nothing', async () => {
        const booking = await book(code);
        expect(booking.payment).toMatchObject({
          status: 'pending',
          amount: 15000,
          currency: 'PLN',
          paidAt: null,
          refundedAmount: 0,
          redirectUrl: `${PUBLIC_URL}/pay/${booking.payment.uuid}`,
        });
        const before = createCalls(code).length;
        const transactionId = await pay(code, booking.payment.uuid);
        // A second visit reuses the transaction.
        const again = await visit(payPath(booking.payment.uuid));
        expect(again.statusCode).toBe(303);
        expect(createCalls(code).length - before).toBe(1);

        const notification = fakes.get(code)!.notificationFor(transactionId);
        const answer = await notify(code, notification);
        expect(answer.statusCode, answer.body).toBe(200);
        const expectedReply = { stripe: '{"received":true}', p24: 'OK', payu: '{}', paypal: '', tpay: 'TRUE' }[code];
        expect(answer.body).toBe(expectedReply);

        const confirmed = await meeting(booking.meetings[0]!.uuid);
        expect(confirmed.status).toBe('confirmed');
        expect(confirmed.payment).toMatchObject({ uuid: booking.payment.uuid, status: 'paid', amount: 15000, currency: 'PLN', gateway: code, refundedAmount: 0 });
        expect(confirmed.payment.paidAt).toBe(new Date(t.clock.now()).toISOString());

        // Repeated: the gateway gets its answer again, nothing else happens.
        const repeat = await notify(code, notification);
        expect(repeat.statusCode).toBe(200);
        expect(repeat.body).toBe(expectedReply);

        await jobs.runOnce();
        const mails = mailsTo(booking.email);
        const pending = mails.filter((m) => m.subject.startsWith('Payment needed'));
        expect(pending).toHaveLength(1);
        expect(pending[0]!.text).toContain('PLN\u00a0150.00');
        expect(pending[0]!.text).toContain(`${PUBLIC_URL}/pay/${booking.payment.uuid}`);
        expect(pending[0]!.text).toMatch(/Pay by: .*2027/);
        const confirmations = mails.filter((m) => m.subject.startsWith('Confirmed'));
        expect(confirmations).toHaveLength(1);
        expect(confirmations[0]!.text).toContain('Paid: PLN\u00a0150.00');
        expect(confirmations[0]!.text).toContain('Invoice details: ACME sp. z o.o.');
        expect(confirmations[0]!.ics.content).toContain('METHOD:REQUEST');

        const details = await paymentDetails(booking.payment.uuid);
        expect(details.payment).toMatchObject({ status: 'paid', paidAt: new Date(t.clock.now()).toISOString() });
        expect(details.meetings.map((m: { status: string }) => m.status)).toEqual(['confirmed']);
        expect(details.events.map((e: { status: string }) => e.status)).toEqual(['pending', 'paid']);
        // A paid payment's page shows its state instead of sending anyone to pay again.
        const paidPage = await visit(payPath(booking.payment.uuid));
        expect(paidPage.statusCode).toBe(200);
        expect(paidPage.body).toContain('data-status="paid"');
      });

      it('refuses a forged notification and one for the wrong amount, changing nothing', async () => {
        const booking = await book(code);
        const transactionId = await pay(code, booking.payment.uuid);
        const fake = fakes.get(code)!;
        expectProblem(await notify(code, fake.notificationFor(transactionId, { forged: true })), 400, 'NOTIFICATION_REJECTED');
        expectProblem(await notify(code, fake.notificationFor(transactionId, { amount: 100 })), 400, 'NOTIFICATION_REJECTED');
        // Unsigned: the signature removed.
        const genuine = fake.notificationFor(transactionId);
        const unsigned = {
          headers: { 'content-type': genuine.headers['content-type'] },
          rawBody: genuine.rawBody.replace(/"sign":"[0-9a-f]+"/, '"sign":""').replace(/md5sum=[0-9a-f]+/, 'md5sum='),
        };
        expectProblem(await notify(code, unsigned), 400, 'NOTIFICATION_REJECTED');
        expect((await meeting(booking.meetings[0]!.uuid)).status).toBe('pending_payment');
        expect(await statusOf(booking.payment.uuid)).toBe('pending');
        expect((await paymentDetails(booking.payment.uuid)).events.map((e: { status: string }) => e.status)).toEqual(['pending']);
      });

      it('confirms a late payment whose slot is still free', async () => {
        const booking = await book(code);
        const transactionId = await pay(code, booking.payment.uuid);
        t.clock.advance(31 * 60_000);
        await jobs.runOnce();
        expect((await meeting(booking.meetings[0]!.uuid)).status).toBe('expired');
        expect(mailsTo(booking.email).map((m) => m.subject)).toContain('Slot released: Consultation');
        expect((await notify(code, fakes.get(code)!.notificationFor(transactionId))).statusCode).toBe(200);
        expect((await meeting(booking.meetings[0]!.uuid)).status).toBe('confirmed');
        await jobs.runOnce();
        expect(mailsTo(booking.email).filter((m) => m.subject.startsWith('Confirmed'))).toHaveLength(1);
        expect((await paymentDetails(booking.payment.uuid)).events.map((e: { status: string }) => e.status)).toEqual(['pending', 'expired', 'paid']);
      });

      it('refunds a late payment whose slot was taken meanwhile, and tells the participant', async () => {
        const slot = slots[nextSlot++]!;
        const late = await book(code, { dates: [slot], lang: 'pl' });
        const transactionId = await pay(code, late.payment.uuid);
        t.clock.advance(31 * 60_000);
        await jobs.runOnce();
        const taker = await book(code, { dates: [slot] });
        expect((await notify(code, fakes.get(code)!.notificationFor(transactionId))).statusCode).toBe(200);
        expect((await meeting(late.meetings[0]!.uuid)).status).toBe('expired');
        expect((await meeting(taker.meetings[0]!.uuid)).status).toBe('pending_payment');
        const refundsBefore = fakes.get(code)!.refunds.length;
        await jobs.runOnce();
        expect(fakes.get(code)!.refunds.slice(refundsBefore)).toEqual([expect.objectContaining({ amount: 15000, currency: 'PLN' })]);
        const details = await paymentDetails(late.payment.uuid);
        expect(details.payment).toMatchObject({ status: 'refunded', refundedAmount: 15000 });
        expect(details.events.map((e: { status: string }) => e.status)).toEqual(['pending', 'expired', 'paid', 'refunded']);
        const refundMail = mailsTo(late.email).find((m) => m.subject.startsWith('Zwrot płatności'));
        expect(refundMail?.text).toContain('150,00\u00a0zł');
        expect(mailsTo(late.email).filter((m) => m.subject.startsWith('Potwierdzenie'))).toHaveLength(0);
      });

      it("refunds a cancelled meeting's share through the gateway, and nothing with refund: false", async () => {
        const booking = await book(code, { dates: [slots[nextSlot++]!, slots[nextSlot++]!] });
        expect(booking.payment.amount).toBe(30000);
        const transactionId = await pay(code, booking.payment.uuid);
        expect((await notify(code, fakes.get(code)!.notificationFor(transactionId))).statusCode).toBe(200);
        const fake = fakes.get(code)!;
        const refundsBefore = fake.refunds.length;

        const cancelled = await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${booking.meetings[0]!.uuid}/cancel`, { reason: 'Cannot make it' });
        expect(cancelled.statusCode).toBe(200);
        await jobs.runOnce();
        expect(fake.refunds.slice(refundsBefore)).toEqual([expect.objectContaining({ amount: 15000 })]);
        expect((await paymentDetails(booking.payment.uuid)).payment).toMatchObject({ status: 'paid', refundedAmount: 15000 });
        expect(mailsTo(booking.email).find((m) => m.subject.startsWith('Refund'))?.text).toContain('PLN\u00a0150.00');

        const kept = await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${booking.meetings[1]!.uuid}/cancel`, { refund: false });
        expect(kept.statusCode).toBe(200);
        expect(kept.json().payment).toMatchObject({ status: 'paid', refundedAmount: 15000 });
        await jobs.runOnce();
        expect(fake.refunds.length - refundsBefore).toBe(1);

        // A single meeting cancelled with its refund: all of the payment is back.
        const single = await book(code);
        const singleTx = await pay(code, single.payment.uuid);
        await notify(code, fake.notificationFor(singleTx));
        await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${single.meetings[0]!.uuid}/cancel`);
        await jobs.runOnce();
        const details = await paymentDetails(single.payment.uuid);
        expect(details.payment).toMatchObject({ status: 'refunded', refundedAmount: 15000 });
        expect(details.events.map((e: { status: string }) => e.status)).toEqual(['pending', 'paid', 'refunded']);
      });

      it('shows a clear page while the gateway is down, then works once it is back, with one transaction at the gateway', async () => {
        const booking = await book(code, { lang: 'pl' });
        const fake = fakes.get(code)!;
        fake.setDown(true);
        try {
          const down = await visit(payPath(booking.payment.uuid));
          expect(down.statusCode).toBe(502);
          expect(down.headers['content-type']).toContain('text/html');
          expect(down.body).toContain('Serwis płatności chwilowo nie odpowiada');
          expect(down.body).toContain(`href="${PUBLIC_URL}/pay/${booking.payment.uuid}"`);
        } finally {
          fake.setDown(false);
        }
        const before = createCalls(code).length;
        await pay(code, booking.payment.uuid);
        await pay(code, booking.payment.uuid);
        expect(createCalls(code).length - before).toBe(1);
      });

      it('creates the transaction once under concurrent visits', async () => {
        const booking = await book(code);
        const before = createCalls(code).length;
        const responses = await Promise.all(Array.from({ length: 6 }, () => visit(payPath(booking.payment.uuid))));
        const locations = new Set(responses.filter((r) => r.statusCode === 303).map((r) => r.headers.location));
        expect(locations.size).toBe(1);
        expect(responses.every((r) => r.statusCode === 303 || (r.statusCode === 200 && r.body.includes('data-status="preparing"')))).toBe(true);
        expect(createCalls(code).length - before).toBe(1);
      });

      it('sends the price variant less the discount to the gateway in its own units', async () => {
        const code10 = `TEN-${code.toUpperCase()}`;
        expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/discount-codes', { code: code10, percentOff: 10 })).statusCode).toBe(201);
        const booking = await book(code, { extra: { priceVariant: paidTopic.priceVariants[0]!.uuid, discount: code10 } });
        expect(booking.payment.amount).toBe(18000);
        await pay(code, booking.payment.uuid);
        const body = createCalls(code).at(-1)!.body;
        if (code === 'stripe') expect(parseStripeForm(body)).toMatchObject({ line_items: [{ price_data: { unit_amount: '18000', currency: 'pln' } }] });
        if (code === 'p24') expect(JSON.parse(body)).toMatchObject({ amount: 18000, currency: 'PLN' });
        if (code === 'payu') expect(JSON.parse(body)).toMatchObject({ totalAmount: '18000', currencyCode: 'PLN' });
        if (code === 'paypal') expect(JSON.parse(body)).toMatchObject({ purchase_units: [{ amount: { currency_code: 'PLN', value: '180.00' } }] });
        if (code === 'tpay') expect(body).toContain('"amount":180.00');
      });
    });

    it('PayPal: captures the approved order when the participant returns, then confirms', async () => {
      const booking = await book('paypal');
      const orderId = await pay('paypal', booking.payment.uuid);
      (fakes.get('paypal') as FakePaypal).approve(orderId);
      const back = await visit(`/pay/${booking.payment.uuid}/return?token=${orderId}&PayerID=PAYER1`);
      expect(back.statusCode).toBe(200);
      expect(back.body).toContain('data-status="paid"');
      expect((await meeting(booking.meetings[0]!.uuid)).status).toBe('confirmed');
      // PayPal's webhook about the same capture then changes nothing.
      expect((await notify('paypal', fakes.get('paypal')!.notificationFor(orderId))).statusCode).toBe(200);
      expect((await paymentDetails(booking.payment.uuid)).events.map((e: { status: string }) => e.status)).toEqual(['pending', 'paid']);
    });

    it('sends one confirmation when the payment came before the booking was handled and its room job runs before the confirmed event', async () => {
      // The worker runs event jobs and room jobs side by side. A payment that arrives before
      // the booking's event was handled leaves two events; the booking's queues a room job that
      // finds the meeting confirmed, no connection, and confirms without a room. The confirmed
      // event handled after it must not send the confirmation again.
      const booking = await book('stripe');
      const sessionId = await pay('stripe', booking.payment.uuid);
      expect((await notify('stripe', fakes.get('stripe')!.notificationFor(sessionId))).statusCode).toBe(200);
      const handlers = createJobHandlers(t.ctx, { send: async () => undefined, close: () => undefined, describe: () => 'none' });
      const runOne = async (kind: string, subject: string) => {
        const due = await t.ctx.db.selectFrom('outbox').select('id').where('kind', '=', kind).where('status', '=', 'pending').where('payload', 'like', `%${subject}%`).execute();
        // Jobs of other tests wait: claim until this one comes up, then put the others back.
        const claimed = await claimJobs(t.ctx.db, kind, `one-${subject}`, t.clock.now(), 60_000, 1_000);
        const job = claimed.find((candidate) => due.some((row) => row.id === candidate.uuid));
        await t.ctx.db
          .updateTable('outbox')
          .set({ claim: null, next_attempt_at: t.clock.now() })
          .where('claim', '=', `one-${subject}`)
          .where('id', '!=', job?.uuid ?? '')
          .execute();
        return job;
      };
      const events = await t.ctx.db.selectFrom('events').select(['id', 'type']).where('subject_id', '=', booking.meetings[0]!.uuid).orderBy('occurred_at').orderBy('id').execute();
      expect(events.map((e) => e.type)).toEqual(['meeting.scheduled', 'meeting.confirmed']);
      const scheduled = await runOne(EVENT_JOB_KIND, events[0]!.id);
      await handlers[EVENT_JOB_KIND].handle(readJob(EVENT_JOB_KIND, scheduled!));
      const room = await runOne(CONFERENCE_ROOM_JOB_KIND, booking.meetings[0]!.uuid);
      expect(room).toBeDefined();
      await handlers[CONFERENCE_ROOM_JOB_KIND].handle(readJob(CONFERENCE_ROOM_JOB_KIND, room!));
      expect(await completeJob(t.ctx.db, room!, t.clock.now())).toBe(true);
      await jobs.runOnce();
      expect(mailsTo(booking.email).filter((m) => m.subject.startsWith('Confirmed'))).toHaveLength(1);
    });

    it('Stripe: a JPY price reaches Checkout in whole yen', async () => {
      const yen = (
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Yen', durationMinutes: 30, places: ['zoom'], price: { amount: 1500, currency: 'JPY' } })
      ).json();
      expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/discount-codes', { code: 'YEN-10', percentOff: 10 })).statusCode).toBe(201);
      // A slot of the same host no other test books (the yen topic's first free one may be the
      // one the next paid booking is given).
      const slot = slots[nextSlot++]!;
      expect((await slotsOf(yen.uuid)).map((free) => free.start)).toContain(slot.start);
      const booking = await book('stripe', { topic: yen.uuid, dates: [slot], extra: { discount: 'YEN-10' } });
      expect(booking.payment).toMatchObject({ amount: 1350, currency: 'JPY' });
      const sessionId = await pay('stripe', booking.payment.uuid);
      expect(parseStripeForm(createCalls('stripe').at(-1)!.body)).toMatchObject({ line_items: [{ price_data: { unit_amount: '1350', currency: 'jpy' } }] });
      expect((await notify('stripe', fakes.get('stripe')!.notificationFor(sessionId))).statusCode).toBe(200);
      expect((await meeting(booking.meetings[0]!.uuid)).payment).toMatchObject({ status: 'paid', amount: 1350, currency: 'JPY' });
    });

    it('refuses a booking through a gateway the account has not enabled or not configured', async () => {
      const other = await createTestAccount(t.ctx, { timezone: 'UTC', places: ['zoom'] });
      await call(t.app, other.apiKey, 'PATCH', '/api/v1/account', { gateways: ['p24'] });
      const topic = (
        await call(t.app, other.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Paid', durationMinutes: 30, places: ['zoom'], price: { amount: 100, currency: 'PLN' } })
      ).json();
      const body = (await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: other.owner.username, meetingTopic: topic.uuid, timezone: 'UTC', offset: 0 })).json();
      const slot = (body.days as { slots: Slot[] }[]).flatMap((day) => day.slots)[0]!;
      const attempt = (gateway: string) =>
        call(t.app, other.apiKey, 'POST', '/api/v1/schedule', {
          dates: [slot],
          email: 'x@example.com',
          lang: 'en',
          name: 'X',
          place: 'zoom',
          meetingTopic: topic.uuid,
          timezone: 'UTC',
          gateway,
        });
      expect(expectProblem(await attempt('stripe'), 400, 'VALIDATION_FAILED').errors).toEqual([{ path: '/gateway', message: 'is not enabled for the account' }]);
      expect(expectProblem(await attempt('p24'), 400, 'VALIDATION_FAILED').errors).toEqual([{ path: '/gateway', message: 'is enabled but not configured for the account yet' }]);
    });
  });
}
