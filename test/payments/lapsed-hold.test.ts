import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderedMessage } from '../../src/mail/message.js';
import { startFakeP24, type FakeP24 } from '../fakes/p24-gateway.js';
import { DIALECTS, call, createClock, createTestApp, runJobsCapturingMail, type TestApp } from '../helpers.js';
import { bookPaid, createPaidTopic } from './paid-booking.js';

/**
 * A payment that arrives after its hold lapsed but before the background sweeper has
 * written the hold off. The hold stopped blocking the moment it lapsed, so someone else may
 * already hold that slot: the late payment must be treated as late (slot checked, money
 * back when taken), not as on time because the stored status still says `pending_payment`.
 * No background job runs between the booking and the notification: that gap is the point.
 */
const PUBLIC_URL = 'http://termin.test';

for (const dialect of DIALECTS) {
  describe(`a payment after its hold lapsed, before the sweeper ran [${dialect}]`, () => {
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

    /** An account of its own with P24 configured and a paid 30-minute topic, and the topic's first free slot. */
    async function paidAccount() {
      const paid = await createPaidTopic(t, 'p24', p24.credentials);
      return { paid, account: paid.account, offered: paid.offered, slot: (await paid.offered())[0]! };
    }

    /** The participant follows the pay link to P24; returns the transaction's token from where they were sent. */
    async function goToPay(paymentUuid: string): Promise<string> {
      const response = await t.app.inject({ method: 'GET', url: `/pay/${paymentUuid}`, headers: { accept: 'text/html' } });
      expect(response.statusCode, response.body).toBe(303);
      const token = new RegExp(`^${p24.baseUrl}/trnRequest/(.+)$`).exec(String(response.headers.location))?.[1];
      expect(token).toBeDefined();
      return token!;
    }

    async function p24Notifies(accountUuid: string, token: string) {
      const notification = p24.notificationFor(token);
      const headers = Object.fromEntries(Object.entries(notification.headers).filter((entry): entry is [string, string] => entry[1] !== undefined));
      const response = await t.app.inject({ method: 'POST', url: `/api/v1/payments/p24/notifications/${accountUuid}`, headers, payload: notification.rawBody });
      // The gateway gets its acknowledgement either way: the money question is settled here, not by retries.
      expect(response.statusCode, response.body).toBe(200);
    }

    it('does not confirm onto a slot someone else booked after the hold lapsed: the late payer is refunded and told, the other booking stands', async () => {
      const { paid, account, slot, offered } = await paidAccount();
      const late = await bookPaid(t, paid, 'p24', slot);
      const lateToken = await goToPay(late.payment.uuid);
      expect((await offered()).map((free) => free.start)).not.toContain(slot.start);

      // The participant lingers at the gateway; the hold lapses. No sweeper runs.
      t.clock.set(Date.parse(late.payment.expiresAt) + 60_000);
      expect((await offered()).map((free) => free.start)).toContain(slot.start);
      const taker = await bookPaid(t, paid, 'p24', slot);
      await p24Notifies(account.account.uuid, await goToPay(taker.payment.uuid));
      expect((await call(t.app, account.apiKey, 'GET', `/api/v1/meetings/${taker.meeting}`)).json().status).toBe('confirmed');

      // Now the first participant's money arrives.
      await p24Notifies(account.account.uuid, lateToken);
      const lateMeeting = (await call(t.app, account.apiKey, 'GET', `/api/v1/meetings/${late.meeting}`)).json();
      expect(lateMeeting.status).toBe('expired');
      expect((await call(t.app, account.apiKey, 'GET', `/api/v1/meetings/${taker.meeting}`)).json().status).toBe('confirmed');
      const onTheSlot = (await call(t.app, account.apiKey, 'GET', `/api/v1/meetings?from=${slot.start}&status=confirmed&status=pending_payment`)).json();
      expect(onTheSlot.meetings.filter((meeting: { start: string }) => meeting.start === slot.start).map((meeting: { uuid: string }) => meeting.uuid)).toEqual([taker.meeting]);

      // The background jobs then return the money through P24 and tell the participant.
      const refundsBefore = p24.refunds.length;
      const sent: RenderedMessage[] = [];
      await runJobsCapturingMail(t.ctx, sent);
      expect(p24.refunds.slice(refundsBefore)).toEqual([{ transactionId: lateToken, amount: 15000, currency: 'PLN' }]);
      const details = (await call(t.app, account.apiKey, 'GET', `/api/v1/payments/${late.payment.uuid}`)).json();
      expect(details.payment).toMatchObject({ status: 'refunded', refundedAmount: 15000 });
      expect(details.meetings.map((meeting: { status: string }) => meeting.status)).toEqual(['expired']);
      expect(details.events.map((event: { status: string }) => event.status)).toEqual(['pending', 'paid', 'refunded']);
      const toLate = sent.filter((message) => message.to.email === late.email);
      expect(toLate.map((message) => message.subject).sort()).toEqual(['Payment needed: Consultation', 'Refund: Consultation']);
      const refundMail = toLate.find((message) => message.subject.startsWith('Refund'))!;
      expect(refundMail.text).toContain('the slot was no longer free');
      expect(refundMail.text).toContain('Amount: PLN\u00a0150.00');
      expect(sent.filter((message) => message.to.email === taker.email).map((message) => message.subject)).toContainEqual(expect.stringMatching(/^Confirmed/));
    });

    it('confirms a payment whose lapsed hold nobody took, and the sweeper running afterwards leaves it confirmed', async () => {
      const { paid, account, slot, offered } = await paidAccount();
      const booking = await bookPaid(t, paid, 'p24', slot);
      const token = await goToPay(booking.payment.uuid);
      t.clock.set(Date.parse(booking.payment.expiresAt) + 60_000);
      await p24Notifies(account.account.uuid, token);
      const refundsBefore = p24.refunds.length;
      const sent: RenderedMessage[] = [];
      await runJobsCapturingMail(t.ctx, sent);
      expect((await call(t.app, account.apiKey, 'GET', `/api/v1/meetings/${booking.meeting}`)).json()).toMatchObject({
        status: 'confirmed',
        payment: { status: 'paid', refundedAmount: 0 },
      });
      expect(p24.refunds.length).toBe(refundsBefore);
      expect((await offered()).map((free) => free.start)).not.toContain(slot.start);
      const subjects = sent.filter((message) => message.to.email === booking.email).map((message) => message.subject);
      expect(subjects).toContainEqual(expect.stringMatching(/^Confirmed: Consultation/));
      expect(subjects.filter((subject) => /^(Refund|Slot released)/.test(subject))).toEqual([]);
    });
  });
}
