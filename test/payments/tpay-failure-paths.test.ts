import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderedMessage } from '../../src/mail/message.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { startFakeTpay, type FakeTpay } from '../fakes/tpay-gateway.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, runJobsCapturingMail, type TestApp } from '../helpers.js';

/**
 * Tpay's real failure paths, through the whole service against the stand-in: notifications
 * are believed only with the JWS Tpay calls mandatory (the md5sum covers neither the status
 * nor the paid amount), and a refund whose answer was lost is made once, not again on retry
 * (Tpay's refunds take no idempotency key).
 */
type Slot = { start: string; username: string };
const PUBLIC_URL = 'http://termin.test';

for (const dialect of DIALECTS) {
  describe(`Tpay failure paths [${dialect}]`, () => {
    let t: TestApp;
    let tpay: FakeTpay;
    let account: CreatedAccount;
    let topic: { uuid: string };
    let slots: Slot[];
    let nextSlot = 0;
    let participants = 0;
    const sent: RenderedMessage[] = [];

    beforeAll(async () => {
      tpay = await startFakeTpay();
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'), { PUBLIC_URL, TPAY_API_URL: tpay.baseUrl, TPAY_JWS_URL: tpay.jwsUrl });
      account = await createTestAccount(t.ctx, { timezone: 'UTC', places: ['zoom'] });
      const gateways = { tpay: { ...tpay.credentials.settings, ...tpay.credentials.secrets } };
      expect((await call(t.app, account.apiKey, 'PATCH', '/api/v1/account', { gateways })).statusCode).toBe(200);
      topic = (
        await call(t.app, account.apiKey, 'POST', '/api/v1/meeting-topics', {
          name: 'Consultation',
          durationMinutes: 30,
          places: ['zoom'],
          price: { amount: 15000, currency: 'PLN' },
          bookingWindowDays: 60,
        })
      ).json();
      slots = [];
      for (const offset of [0, 7]) {
        const body = (
          await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: account.owner.username, meetingTopic: topic.uuid, timezone: 'UTC', offset })
        ).json();
        slots.push(...(body.days as { slots: Slot[] }[]).flatMap((day) => day.slots));
      }
    }, 60_000);

    afterAll(async () => {
      await t?.close();
      await tpay?.close();
    });

    async function bookAndPay(meetings = 1) {
      participants += 1;
      const dates = Array.from({ length: meetings }, () => slots[nextSlot++]!);
      const response = await call(t.app, account.apiKey, 'POST', '/api/v1/schedule', {
        dates,
        email: `payer${participants}@example.com`,
        lang: 'en',
        name: `Payer ${participants}`,
        place: 'zoom',
        meetingTopic: topic.uuid,
        timezone: 'UTC',
        gateway: 'tpay',
      });
      expect(response.statusCode, response.body).toBe(201);
      const booking = response.json() as { meetings: { uuid: string }[]; payment: { uuid: string } };
      const page = await t.app.inject({ method: 'GET', url: `/pay/${booking.payment.uuid}`, headers: { accept: 'text/html' } });
      expect(page.statusCode, page.body).toBe(303);
      const row = await t.ctx.db.selectFrom('payments').select('gateway_transaction_id').where('id', '=', booking.payment.uuid).executeTakeFirstOrThrow();
      return { ...booking, transactionId: row.gateway_transaction_id! };
    }

    const notify = (notification: { headers: Record<string, string | undefined>; rawBody: string }) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/payments/tpay/notifications/${account.account.uuid}`,
        headers: Object.fromEntries(Object.entries(notification.headers).filter((entry): entry is [string, string] => entry[1] !== undefined)),
        payload: notification.rawBody,
      });
    const paymentDetails = async (uuid: string) => (await call(t.app, account.apiKey, 'GET', `/api/v1/payments/${uuid}`)).json();

    it('believes a notification only with a valid JWS: none, or "not paid" turned into "paid" with the md5sum intact, is 400 and changes nothing', async () => {
      const booking = await bookAndPay();
      expectProblem(await notify(tpay.notificationFor(booking.transactionId, { jws: 'none' })), 400, 'NOTIFICATION_REJECTED');
      expectProblem(await notify(tpay.notificationFor(booking.transactionId, { status: 'FALSE', tamper: { tr_status: 'TRUE' } })), 400, 'NOTIFICATION_REJECTED');
      expectProblem(await notify(tpay.notificationFor(booking.transactionId, { jws: 'impostor' })), 400, 'NOTIFICATION_REJECTED');
      expect((await paymentDetails(booking.payment.uuid)).events.map((e: { status: string }) => e.status)).toEqual(['pending']);

      const genuine = await notify(tpay.notificationFor(booking.transactionId));
      expect(genuine.statusCode, genuine.body).toBe(200);
      expect(genuine.body).toBe('TRUE');
      expect((await paymentDetails(booking.payment.uuid)).payment).toMatchObject({ status: 'paid' });
    });

    it('makes a refund whose answer was lost exactly once: a dropped connection, then a 500, each retried', async () => {
      const booking = await bookAndPay(2);
      expect((await notify(tpay.notificationFor(booking.transactionId))).statusCode).toBe(200);
      const made = () => tpay.transactions.get(booking.transactionId)!.refunds.map((refund) => refund.amount);

      // Tpay makes the first refund, then the connection drops before its answer.
      tpay.loseNextRefundAnswer('reset');
      expect((await call(t.app, account.apiKey, 'POST', `/api/v1/meetings/${booking.meetings[0]!.uuid}/cancel`, { reason: 'Cannot make it' })).statusCode).toBe(200);
      await runJobsCapturingMail(t.ctx, sent);
      expect(made()).toEqual([15000]);
      expect((await paymentDetails(booking.payment.uuid)).payment).toMatchObject({ status: 'paid', refundedAmount: 0 });

      // The retry finds it among the transaction's refunds instead of refunding again.
      t.clock.advance(60 * 60_000);
      await runJobsCapturingMail(t.ctx, sent);
      expect(made()).toEqual([15000]);
      expect((await paymentDetails(booking.payment.uuid)).payment).toMatchObject({ status: 'paid', refundedAmount: 15000 });

      // The other meeting's share, the same amount: made, its 500 retried, still once.
      tpay.loseNextRefundAnswer(500);
      expect((await call(t.app, account.apiKey, 'POST', `/api/v1/meetings/${booking.meetings[1]!.uuid}/cancel`, { reason: 'Cannot make it' })).statusCode).toBe(200);
      await runJobsCapturingMail(t.ctx, sent);
      expect(made()).toEqual([15000, 15000]);
      t.clock.advance(60 * 60_000);
      await runJobsCapturingMail(t.ctx, sent);
      expect(made()).toEqual([15000, 15000]);

      const details = await paymentDetails(booking.payment.uuid);
      expect(details.payment).toMatchObject({ status: 'refunded', refundedAmount: 30000 });
      expect(details.events.map((e: { status: string }) => e.status)).toEqual(['pending', 'paid', 'refunded', 'refunded']);
      expect(sent.filter((message) => message.to.email === `payer${participants}@example.com` && message.subject.startsWith('Refund'))).toHaveLength(2);
    });
  });
}
