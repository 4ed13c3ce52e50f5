import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderedMessage } from '../../src/mail/message.js';
import { parseJson } from '../fakes/common-gateway.js';
import { startFakePayu, type FakePayu } from '../fakes/payu-gateway.js';
import { DIALECTS, call, createClock, createTestApp, expectProblem, runJobsCapturingMail, type TestApp } from '../helpers.js';
import { bookFirstPaidSlot } from './paid-booking.js';

/**
 * PayU on its real failure paths (issue 20): an order whose answer was lost must not lock the
 * participant out (PayU refuses a second order with the same extOrderId), and a POS with
 * auto-receive off must not have its paid orders cancelled by PayU for want of a capture.
 */
const PUBLIC_URL = 'http://termin.test';

for (const dialect of DIALECTS) {
  describe(`PayU failure paths [${dialect}]`, () => {
    let t: TestApp;
    let payu: FakePayu;

    beforeAll(async () => {
      payu = await startFakePayu();
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'), { PUBLIC_URL, PAYU_API_URL: payu.baseUrl });
    });
    afterAll(async () => {
      await t?.close();
      await payu?.close();
    });

    const booked = () => bookFirstPaidSlot(t, 'payu', payu.credentials);

    const visitPay = (paymentUuid: string) => t.app.inject({ method: 'GET', url: `/pay/${paymentUuid}`, headers: { accept: 'text/html' } });

    /** The participant follows the pay link to PayU; the id of the order they were sent to. */
    async function goToPay(paymentUuid: string): Promise<string> {
      const response = await visitPay(paymentUuid);
      expect(response.statusCode, response.body).toBe(303);
      return new URL(String(response.headers.location)).searchParams.get('orderId')!;
    }

    function notify(accountUuid: string, notification: { headers: Record<string, string | undefined>; rawBody: string }) {
      const headers = Object.fromEntries(Object.entries(notification.headers).filter((entry): entry is [string, string] => entry[1] !== undefined));
      return t.app.inject({ method: 'POST', url: `/api/v1/payments/payu/notifications/${accountUuid}`, headers, payload: notification.rawBody });
    }

    const meetingStatus = async (booking: { account: { apiKey: string }; meeting: string }) =>
      (await call(t.app, booking.account.apiKey, 'GET', `/api/v1/meetings/${booking.meeting}`)).json().status as string;
    const paymentEvents = async (booking: { account: { apiKey: string }; payment: { uuid: string } }) =>
      ((await call(t.app, booking.account.apiKey, 'GET', `/api/v1/payments/${booking.payment.uuid}`)).json().events as { status: string }[]).map((event) => event.status);
    const ordersOf = (paymentUuid: string) => [...payu.orders.values()].filter((order) => order.extOrderId.startsWith(paymentUuid));

    it('lets the participant pay after the answer to the first order was lost: the retry is a new order, and only the order termin stored can settle the payment', async () => {
      const booking = await booked();
      payu.loseNextOrderAnswer();
      const lost = await visitPay(booking.payment.uuid);
      expect(lost.statusCode).toBe(502);
      expect(lost.body).toContain(`href="${PUBLIC_URL}/pay/${booking.payment.uuid}"`);
      const [orphan] = ordersOf(booking.payment.uuid);
      expect(orphan).toBeDefined();

      // The participant follows the retry link: PayU refuses a repeated extOrderId, so this must be an order of its own.
      const orderId = await goToPay(booking.payment.uuid);
      expect(orderId).not.toBe(orphan!.orderId);
      expect(ordersOf(booking.payment.uuid)).toHaveLength(2);
      expect(new Set(ordersOf(booking.payment.uuid).map((order) => order.extOrderId)).size).toBe(2);

      // The order nobody was sent to lapses at PayU: acknowledged, and the payment is still open.
      const lapsed = await notify(booking.account.account.uuid, payu.notificationFor(orphan!.orderId, { status: 'CANCELED' }));
      expect(lapsed.statusCode, lapsed.body).toBe(200);
      expect(await meetingStatus(booking)).toBe('pending_payment');
      // A completion of that other order cannot pay this booking: the stored-order check.
      expectProblem(await notify(booking.account.account.uuid, payu.notificationFor(orphan!.orderId)), 400, 'NOTIFICATION_REJECTED');
      expect(await meetingStatus(booking)).toBe('pending_payment');

      const paid = await notify(booking.account.account.uuid, payu.notificationFor(orderId));
      expect(paid.statusCode, paid.body).toBe(200);
      expect(await meetingStatus(booking)).toBe('confirmed');
      expect(await paymentEvents(booking)).toEqual(['pending', 'paid']);
      const sent: RenderedMessage[] = [];
      await runJobsCapturingMail(t.ctx, sent);
      expect(sent.filter((message) => message.to.email === booking.email && message.subject.startsWith('Confirmed'))).toHaveLength(1);
    });

    it('captures an order PayU holds for confirmation (auto-receive off) once its amount checks out, and confirms the booking', async () => {
      payu.setAutoReceive(false);
      try {
        const booking = await booked();
        const orderId = await goToPay(booking.payment.uuid);
        const captures = () => payu.calls.filter((c) => c.method === 'PUT' && c.path === `/api/v2_1/orders/${orderId}/status`);

        // A wrong amount is refused before anything is captured.
        expectProblem(await notify(booking.account.account.uuid, payu.notificationFor(orderId, { amount: 100 })), 400, 'NOTIFICATION_REJECTED');
        expect(captures()).toHaveLength(0);
        expect(await meetingStatus(booking)).toBe('pending_payment');

        const waiting = payu.notificationFor(orderId);
        expect(JSON.parse(waiting.rawBody).order.status).toBe('WAITING_FOR_CONFIRMATION');
        const answer = await notify(booking.account.account.uuid, waiting);
        expect(answer.statusCode, answer.body).toBe(200);
        expect(captures().map((c) => parseJson(c.body))).toEqual([{ orderId, orderStatus: 'COMPLETED' }]);
        expect(payu.orders.get(orderId)?.status).toBe('COMPLETED');
        expect(await meetingStatus(booking)).toBe('confirmed');

        // The same notification again (PayU did not get our answer), then PayU's COMPLETED: nothing changes.
        expect((await notify(booking.account.account.uuid, waiting)).statusCode).toBe(200);
        expect((await notify(booking.account.account.uuid, payu.notificationFor(orderId, { status: 'COMPLETED' }))).statusCode).toBe(200);
        expect(await paymentEvents(booking)).toEqual(['pending', 'paid']);
        const sent: RenderedMessage[] = [];
        await runJobsCapturingMail(t.ctx, sent);
        const confirmations = sent.filter((message) => message.to.email === booking.email && message.subject.startsWith('Confirmed'));
        expect(confirmations).toHaveLength(1);
        expect(confirmations[0]!.text).toContain('Paid: PLN\u00a0150.00');
      } finally {
        payu.setAutoReceive(true);
      }
    });
  });
}
