import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderedMessage } from '../../src/mail/message.js';
import { startFakeP24, type FakeP24 } from '../fakes/p24-gateway.js';
import { DIALECTS, call, createClock, createTestApp, runJobsCapturingMail, type TestApp } from '../helpers.js';
import { bookPaid, createPaidTopic } from './paid-booking.js';

const PUBLIC_URL = 'http://termin.test';

/** A paid topic that requires approval: the participant is asked to pay only once the host approves. */
for (const dialect of DIALECTS) {
  describe(`paying for an approved request [${dialect}]`, () => {
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

    const payPage = (paymentUuid: string) => t.app.inject({ method: 'GET', url: `/pay/${paymentUuid}`, headers: { accept: 'text/html' } });

    it('no pay link before approval; after it, the pay link with 30 minutes from then, and the payment confirms', async () => {
      const paid = await createPaidTopic(t, 'p24', p24.credentials);
      const { account } = paid;
      expect((await call(t.app, account.apiKey, 'PATCH', `/api/v1/meeting-topics/${paid.topic.uuid}`, { requiresApproval: true })).statusCode).toBe(200);
      const slot = (await paid.offered())[0]!;
      const booking = await bookPaid(t, paid, 'p24', slot);
      const meetingUrl = `/api/v1/meetings/${booking.meeting}`;
      expect((await call(t.app, account.apiKey, 'GET', meetingUrl)).json()).toMatchObject({ status: 'pending_approval', payment: { status: 'pending' } });
      // The pay page does not send anyone to the gateway while the host decides.
      expect((await payPage(booking.payment.uuid)).statusCode).toBe(200);
      const sent: RenderedMessage[] = [];
      await runJobsCapturingMail(t.ctx, sent);
      expect(sent.filter((message) => message.to.email === booking.email).map((message) => message.subject)).toEqual([expect.stringMatching(/^Request received/)]);

      t.clock.set('2027-01-04T07:00:00.000Z');
      const approved = await call(t.app, account.apiKey, 'POST', `${meetingUrl}/approve`);
      expect(approved.statusCode).toBe(200);
      expect(approved.json().status).toBe('pending_payment');
      const payment = (await call(t.app, account.apiKey, 'GET', `/api/v1/payments/${booking.payment.uuid}`)).json().payment;
      expect(payment).toMatchObject({ status: 'pending', expiresAt: '2027-01-04T07:30:00.000Z' });
      sent.length = 0;
      await runJobsCapturingMail(t.ctx, sent);
      expect(sent.filter((message) => message.to.email === booking.email).map((message) => message.subject)).toEqual(['Payment needed: Consultation']);

      const redirected = await payPage(booking.payment.uuid);
      expect(redirected.statusCode, redirected.body).toBe(303);
      const token = new RegExp(`^${p24.baseUrl}/trnRequest/(.+)$`).exec(String(redirected.headers.location))![1]!;
      const notification = p24.notificationFor(token);
      const headers = Object.fromEntries(Object.entries(notification.headers).filter((entry): entry is [string, string] => entry[1] !== undefined));
      expect((await t.app.inject({ method: 'POST', url: `/api/v1/payments/p24/notifications/${account.account.uuid}`, headers, payload: notification.rawBody })).statusCode).toBe(
        200,
      );
      expect((await call(t.app, account.apiKey, 'GET', meetingUrl)).json()).toMatchObject({ status: 'confirmed', payment: { status: 'paid' } });
    });

    it("a declined paid request's payment expires unasked, and its slot is free", async () => {
      const paid = await createPaidTopic(t, 'p24', p24.credentials);
      const { account } = paid;
      t.clock.set('2027-01-04T06:00:00.000Z');
      await call(t.app, account.apiKey, 'PATCH', `/api/v1/meeting-topics/${paid.topic.uuid}`, { requiresApproval: true });
      const slot = (await paid.offered())[0]!;
      const booking = await bookPaid(t, paid, 'p24', slot);
      expect((await paid.offered()).map((free) => free.start)).not.toContain(slot.start);
      expect((await call(t.app, account.apiKey, 'POST', `/api/v1/meetings/${booking.meeting}/decline`, { reason: 'Fully booked' })).json().status).toBe('declined');
      expect((await call(t.app, account.apiKey, 'GET', `/api/v1/payments/${booking.payment.uuid}`)).json().payment.status).toBe('expired');
      expect((await paid.offered()).map((free) => free.start)).toContain(slot.start);
      const sent: RenderedMessage[] = [];
      await runJobsCapturingMail(t.ctx, sent);
      const subjects = sent.filter((message) => message.to.email === booking.email).map((message) => message.subject);
      expect(subjects.sort()).toEqual([expect.stringMatching(/^Request declined/), expect.stringMatching(/^Request received/)]);
    });
  });
}
