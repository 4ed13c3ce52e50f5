import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

type Slot = { start: string; username: string };

/**
 * Rules a participant would notice, each on an account of its own so no test leans on
 * another's bookings. Monday 2027-01-04; Warsaw hosts work 09:00–17:00 (08:00–16:00 UTC).
 */
for (const dialect of DIALECTS) {
  describe(`booking rules [${dialect}]`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
    });
    afterAll(async () => t.close());

    const newAccount = () => createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['zoom'] });
    const createTopic = async (account: CreatedAccount, fields: Record<string, unknown>) => {
      const response = await call(t.app, account.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Call', durationMinutes: 30, places: ['zoom'], ...fields });
      expect(response.statusCode).toBe(201);
      return response.json() as { uuid: string };
    };
    const slotsOf = async (account: CreatedAccount, topicUuid: string): Promise<Slot[]> => {
      const response = await call(t.app, null, 'POST', '/api/v1/calculate-schedule', {
        username: account.owner.username,
        meetingTopic: topicUuid,
        timezone: 'Europe/Warsaw',
        offset: 0,
      });
      expect(response.statusCode).toBe(200);
      return (response.json().days as { slots: Slot[] }[]).flatMap((day) => day.slots);
    };
    const at = (account: CreatedAccount, utc: string): Slot => ({ start: utc, username: account.owner.username });
    const body = (topicUuid: string, dates: Slot[], extra: Record<string, unknown> = {}) => ({
      dates,
      email: 'jan@example.com',
      lang: 'en',
      name: 'Jan Kowalski',
      place: 'zoom',
      meetingTopic: topicUuid,
      timezone: 'Europe/Warsaw',
      ...extra,
    });

    it('dates of one request keep each other’s buffers, though each alone is free', async () => {
      const acme = await newAccount();
      const topic = await createTopic(acme, { bufferAfterMinutes: 30 });
      const offered = (await slotsOf(acme, topic.uuid)).map((slot) => slot.start);
      // 09:00 and 09:30 Warsaw are both offered, and do not overlap as meetings…
      expect(offered).toEqual(expect.arrayContaining(['2027-01-04T08:00:00.000Z', '2027-01-04T08:30:00.000Z']));
      const together = [at(acme, '2027-01-04T08:00:00.000Z'), at(acme, '2027-01-04T08:30:00.000Z')];
      // …but the first one's 30 minutes after leave no room for the second.
      const refused = expectProblem(await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', body(topic.uuid, together)), 409, 'SLOT_UNAVAILABLE');
      expect(refused.errors).toEqual([{ path: '/dates/1', message: 'is not an available slot' }]);
      const spaced = [at(acme, '2027-01-04T08:00:00.000Z'), at(acme, '2027-01-04T09:00:00.000Z')];
      expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', body(topic.uuid, spaced))).statusCode).toBe(201);
    });

    it('dates of one request count toward the daily limit together', async () => {
      const acme = await newAccount();
      const topic = await createTopic(acme, { dailyLimit: 1 });
      const sameDay = [at(acme, '2027-01-05T08:00:00.000Z'), at(acme, '2027-01-05T10:00:00.000Z')];
      const refused = expectProblem(await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', body(topic.uuid, sameDay)), 409, 'SLOT_UNAVAILABLE');
      expect(refused.errors).toEqual([{ path: '/dates/1', message: 'is not an available slot' }]);
      const twoDays = [at(acme, '2027-01-05T08:00:00.000Z'), at(acme, '2027-01-06T08:00:00.000Z')];
      expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', body(topic.uuid, twoDays))).statusCode).toBe(201);
    });

    it('an Idempotency-Key replays only the very same body: any other field changed is refused', async () => {
      const acme = await newAccount();
      const topic = await createTopic(acme, {});
      const dates = [at(acme, '2027-01-05T12:00:00.000Z')];
      const headers = { 'idempotency-key': 'crm-order-77' };
      expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', body(topic.uuid, dates), headers)).statusCode).toBe(201);
      for (const changed of [{ email: 'eve@example.com' }, { name: 'Someone Else' }, { note: 'different' }, { lang: 'pl' }, { metadata: { order: 78 } }]) {
        expectProblem(await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', body(topic.uuid, dates, changed), headers), 409, 'IDEMPOTENCY_KEY_REUSED');
      }
      const replay = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', body(topic.uuid, dates), headers);
      expect(replay.headers['idempotent-replayed']).toBe('true');
    });

    it('a slot held for payment comes back the moment the hold lapses, even within the minute a cached view was computed', async () => {
      const acme = await newAccount();
      await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', {
        gateways: { p24: { merchantId: 1, posId: 1, apiKey: 'k', crc: 'c' } },
      });
      const topic = await createTopic(acme, { price: { amount: 10_000, currency: 'PLN' } });
      // Booked at :30 past, so the 30-minute hold ends at :30 past a minute too.
      t.clock.set('2027-01-04T06:00:30.000Z');
      const slot = at(acme, '2027-01-05T08:00:00.000Z');
      const booked = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', body(topic.uuid, [slot], { gateway: 'p24' }));
      expect(booked.statusCode).toBe(201);
      expect(booked.json().payment.expiresAt).toBe('2027-01-04T06:30:30.000Z');
      t.clock.set('2027-01-04T06:30:29.000Z');
      expect((await slotsOf(acme, topic.uuid)).map((s) => s.start)).not.toContain(slot.start);
      t.clock.set('2027-01-04T06:30:31.000Z');
      expect((await slotsOf(acme, topic.uuid)).map((s) => s.start)).toContain(slot.start);
      t.clock.set('2027-01-04T06:00:00.000Z');
    });

    it('GET /meetings?from=&to= returns exactly the meetings that start in [from, to)', async () => {
      const acme = await newAccount();
      const topic = await createTopic(acme, {});
      const starts = ['2027-01-05T08:00:00.000Z', '2027-01-05T09:00:00.000Z', '2027-01-05T10:00:00.000Z', '2027-01-05T11:00:00.000Z'];
      const uuids: string[] = [];
      for (const start of starts) uuids.push((await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', body(topic.uuid, [at(acme, start)]))).json().meetings[0].uuid);
      const query = `/api/v1/meetings?from=${encodeURIComponent(starts[1]!)}&to=${encodeURIComponent(starts[3]!)}`;
      const listed = (await call(t.app, acme.apiKey, 'GET', query)).json().meetings as { uuid: string }[];
      expect(listed.map((meeting) => meeting.uuid)).toEqual([uuids[1], uuids[2]]);
      const none = (await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings?from=${encodeURIComponent(starts[3]!)}&to=${encodeURIComponent(starts[3]!)}`)).json();
      expect(none.meetings).toEqual([]);
    });
  });
}
