import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderedMessage } from '../../src/mail/message.js';
import { parseJson } from '../fakes/common-gateway.js';
import { startFakeP24, type FakeP24 } from '../fakes/p24-gateway.js';
import { DIALECTS, call, createClock, createTestApp, expectProblem, runJobsCapturingMail, type TestApp } from '../helpers.js';
import { bookFirstPaidSlot } from './paid-booking.js';

/**
 * Przelewy24 when its answers go astray (issue 20): a refund whose answer was lost or that
 * is sent again while the first request is still in flight must be made once and recorded
 * as made, never handed to the operator as "refund by hand"; a notification whose paid
 * amount is not the registered one is refused before P24 hears it accepted.
 */
const PUBLIC_URL = 'http://termin.test';

for (const dialect of DIALECTS) {
  describe(`Przelewy24 failure paths [${dialect}]`, () => {
    let t: TestApp;
    let p24: FakeP24;

    beforeAll(async () => {
      p24 = await startFakeP24();
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'), { PUBLIC_URL, P24_API_URL: p24.baseUrl });
    });
    afterAll(async () => {
      await t?.close();
      await p24?.close();
    });

    const booked = () => bookFirstPaidSlot(t, 'p24', p24.credentials);

    /** The participant follows the pay link; the token of the transaction they were sent to. */
    async function goToPay(paymentUuid: string): Promise<string> {
      const response = await t.app.inject({ method: 'GET', url: `/pay/${paymentUuid}`, headers: { accept: 'text/html' } });
      expect(response.statusCode, response.body).toBe(303);
      return new RegExp(`^${p24.baseUrl}/trnRequest/(.+)$`).exec(String(response.headers.location))![1]!;
    }

    function notify(accountUuid: string, notification: { headers: Record<string, string | undefined>; rawBody: string }) {
      const headers = Object.fromEntries(Object.entries(notification.headers).filter((entry): entry is [string, string] => entry[1] !== undefined));
      return t.app.inject({ method: 'POST', url: `/api/v1/payments/p24/notifications/${accountUuid}`, headers, payload: notification.rawBody });
    }

    /** A paid booking whose meeting the host then cancels: a refund of all 150.00 PLN is queued. */
    async function paidThenCancelled(sent: RenderedMessage[]) {
      const booking = await booked();
      const token = await goToPay(booking.payment.uuid);
      expect((await notify(booking.account.account.uuid, p24.notificationFor(token))).statusCode).toBe(200);
      await runJobsCapturingMail(t.ctx, sent);
      const cancelled = await call(t.app, booking.account.apiKey, 'POST', `/api/v1/meetings/${booking.meeting}/cancel`, { reason: 'Cannot make it' });
      expect(cancelled.statusCode, cancelled.body).toBe(200);
      return { ...booking, token };
    }

    const details = async (booking: { account: { apiKey: string }; payment: { uuid: string } }) =>
      (await call(t.app, booking.account.apiKey, 'GET', `/api/v1/payments/${booking.payment.uuid}`)).json() as {
        payment: { status: string; refundedAmount: number };
        events: { status: string }[];
      };
    const refundMails = (sent: RenderedMessage[], email: string) => sent.filter((message) => message.to.email === email && message.subject.startsWith('Refund'));

    it('recognises a refund whose answer was lost as made when P24 says the request already exists: the money goes back once, and is recorded as refunded', async () => {
      const sent: RenderedMessage[] = [];
      const booking = await paidThenCancelled(sent);
      p24.loseNextRefundAnswer();
      await runJobsCapturingMail(t.ctx, sent);
      // P24 made the refund; termin never heard so, and tries again later.
      expect(p24.refunds.filter((refund) => refund.transactionId === booking.token)).toEqual([{ transactionId: booking.token, amount: 15000, currency: 'PLN' }]);
      expect((await details(booking)).payment).toMatchObject({ status: 'paid', refundedAmount: 0 });

      t.clock.advance(10 * 60_000);
      await runJobsCapturingMail(t.ctx, sent);
      expect(p24.refunds.filter((refund) => refund.transactionId === booking.token)).toHaveLength(1);
      const after = await details(booking);
      expect(after.payment).toMatchObject({ status: 'refunded', refundedAmount: 15000 });
      expect(after.events.map((event) => event.status)).toEqual(['pending', 'paid', 'refunded']);
      expect(refundMails(sent, booking.email)).toHaveLength(1);
      expect(refundMails(sent, booking.email)[0]!.text).toContain('PLN\u00a0150.00');
    });

    it('retries a refund P24 calls a concurrent call while the first request is still in flight, and records the first one once it answers', async () => {
      const sent: RenderedMessage[] = [];
      const booking = await paidThenCancelled(sent);
      const held = p24.holdRefunds();
      // One instance sends the refund; P24 has it but has not answered yet.
      const first = runJobsCapturingMail(t.ctx, sent);
      await held.arrived;
      // Its lease on the job runs out, and another instance takes the job up again.
      t.clock.advance(2 * 60_000);
      await runJobsCapturingMail(t.ctx, sent);
      expect((await details(booking)).events.map((event) => event.status)).toEqual(['pending', 'paid']);

      held.release();
      await first;
      t.clock.advance(10 * 60_000);
      await runJobsCapturingMail(t.ctx, sent);
      expect(p24.refunds.filter((refund) => refund.transactionId === booking.token)).toHaveLength(1);
      const after = await details(booking);
      expect(after.payment).toMatchObject({ status: 'refunded', refundedAmount: 15000 });
      expect(after.events.map((event) => event.status)).toEqual(['pending', 'paid', 'refunded']);
      expect(refundMails(sent, booking.email)).toHaveLength(1);
    });

    it('refuses a notification whose transaction was registered for another amount than the one paid, even when the paid amount is the expected one, and never verifies it', async () => {
      const booking = await booked();
      const token = await goToPay(booking.payment.uuid);
      // Paid 150.00 PLN, as the payment expects; but P24 says the transaction was registered for 120.00 PLN.
      expectProblem(await notify(booking.account.account.uuid, p24.notificationFor(token, { originAmount: 12_000 })), 400, 'NOTIFICATION_REJECTED');
      expect(p24.calls.filter((c) => c.path === '/api/v1/transaction/verify' && parseJson(c.body)?.sessionId === booking.payment.uuid)).toHaveLength(0);
      expect(p24.transactions.get(token)?.verified).toBe(false);
      expect((await details(booking)).payment.status).toBe('pending');
      expect((await call(t.app, booking.account.apiKey, 'GET', `/api/v1/meetings/${booking.meeting}`)).json().status).toBe('pending_payment');
    });
  });
}
