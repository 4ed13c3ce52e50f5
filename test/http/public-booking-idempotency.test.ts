import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';
import { firstFreeSlots } from '../webhooks/helpers.js';

// A booking page that timed out cannot tell "I booked it" from "someone took it" unless a
// retry with the same Idempotency-Key returns its own booking: the same rule as POST /schedule.
for (const dialect of DIALECTS) {
  describe(`POST /public/schedule with Idempotency-Key [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let topicUuid: string;

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'), { PUBLIC_BOOKING_RATE_PER_MINUTE: '100' });
      acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['zoom'] });
      const topic = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Open consult', durationMinutes: 60, places: ['zoom'], public: true });
      topicUuid = topic.json().uuid;
    });
    afterAll(async () => t.close());

    const body = (slot: { start: string; username: string }, email = 'ola@example.com') => ({
      dates: [slot],
      email,
      lang: 'pl',
      name: 'Ola Nowak',
      place: 'zoom',
      meetingTopic: topicUuid,
      timezone: 'Europe/Warsaw',
    });
    const book = (payload: unknown, key?: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/public/schedule',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
        payload: JSON.stringify(payload),
      });
    const meetingsOf = async (email: string) => (await t.ctx.db.selectFrom('meetings').select('id').where('participant_email', '=', email).execute()).length;

    it('answers a retry whose first answer was lost with the same booking, not 409', async () => {
      const [slot] = await firstFreeSlots(t.app, acme.owner.username, topicUuid);
      const first = await book(body(slot!), 'page-attempt-1');
      expect(first.statusCode).toBe(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      // The page never saw that answer and sends the same request again.
      const retry = await book(body(slot!), 'page-attempt-1');
      expect(retry.statusCode).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.json()).toEqual(first.json());
      expect(await meetingsOf('ola@example.com')).toBe(1);
      // Without the key the same retry is refused: the slot is taken (by this very booking).
      expectProblem(await book(body(slot!)), 409, 'SLOT_UNAVAILABLE');
    });

    it('refuses the same key with another body, and keeps the page’s keys apart from API clients’', async () => {
      const [a, b] = await firstFreeSlots(t.app, acme.owner.username, topicUuid, 2);
      expect((await book(body(a!, 'ewa@example.com'), 'page-attempt-2')).statusCode).toBe(201);
      expectProblem(await book(body(b!, 'ewa@example.com'), 'page-attempt-2'), 409, 'IDEMPOTENCY_KEY_REUSED');
      // An API client of the same account that happens to use the same key books on its own.
      const viaApi = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', body(b!, 'ewa@example.com'), { 'idempotency-key': 'page-attempt-2' });
      expect(viaApi.statusCode).toBe(201);
      expect(viaApi.headers['idempotent-replayed']).toBeUndefined();
      expect(await meetingsOf('ewa@example.com')).toBe(2);
      // A key of the longest length allowed is stored like any other.
      const [c] = await firstFreeSlots(t.app, acme.owner.username, topicUuid);
      const long = 'k'.repeat(255);
      expect((await book(body(c!, 'jan@example.com'), long)).statusCode).toBe(201);
      expect((await book(body(c!, 'jan@example.com'), long)).headers['idempotent-replayed']).toBe('true');
      expectProblem(await book(body(c!, 'jan@example.com'), 'k'.repeat(256)), 400, 'VALIDATION_FAILED');
    });
  });
}
