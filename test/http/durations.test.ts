import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

type Slot = { start: string; username: string };

/**
 * Several durations (issue 41 item 1): the participant picks a length; slots, buffers, the
 * booking's end, its price and the explanation follow it. Monday 2027-01-04; Warsaw hosts
 * work 09:00–17:00 (08:00–16:00 UTC).
 */
for (const dialect of DIALECTS) {
  describe(`several durations [${dialect}]`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
    });
    afterAll(async () => t.close());

    const newAccount = () => createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['zoom'] });
    const createTopic = async (account: CreatedAccount, fields: Record<string, unknown>) => {
      const response = await call(t.app, account.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Call', durationMinutes: 30, places: ['zoom'], ...fields });
      expect(response.statusCode).toBe(201);
      return response.json() as { uuid: string; durations: number[]; priceVariants: { uuid: string; durationMinutes?: number }[] };
    };
    const schedule = (account: CreatedAccount, topicUuid: string, duration?: number) =>
      call(t.app, null, 'POST', '/api/v1/calculate-schedule', {
        username: account.owner.username,
        meetingTopic: topicUuid,
        timezone: 'Europe/Warsaw',
        offset: 0,
        ...(duration === undefined ? {} : { duration }),
      });
    const startsOn = async (account: CreatedAccount, topicUuid: string, date: string, duration?: number) => {
      const response = await schedule(account, topicUuid, duration);
      expect(response.statusCode).toBe(200);
      return ((response.json().days as { date: string; slots: Slot[] }[]).find((day) => day.date === date)?.slots ?? []).map((slot) => slot.start);
    };
    const book = (account: CreatedAccount, topicUuid: string, start: string, extra: Record<string, unknown> = {}) =>
      call(t.app, account.apiKey, 'POST', '/api/v1/schedule', {
        dates: [{ start, username: account.owner.username }],
        email: 'jan@example.com',
        lang: 'en',
        name: 'Jan Kowalski',
        place: 'zoom',
        meetingTopic: topicUuid,
        timezone: 'Europe/Warsaw',
        ...extra,
      });

    it('a topic lists the lengths it offers, its default among them; one of one length follows its durationMinutes', async () => {
      const acme = await newAccount();
      const topic = await createTopic(acme, { durations: [60, 15, 30] });
      expect(topic.durations).toEqual([15, 30, 60]);
      const plain = await createTopic(acme, {});
      expect(plain.durations).toEqual([30]);
      const moved = await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${plain.uuid}`, { durationMinutes: 45 });
      expect(moved.json().durations).toEqual([45]);

      const paths = async (fields: Record<string, unknown>) =>
        (
          expectProblem(await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Bad', durationMinutes: 30, ...fields }), 400, 'VALIDATION_FAILED').errors ?? []
        ).map((error) => error.path);
      expect(await paths({ durations: [15, 60] })).toEqual(['/durations']);
      expect(await paths({ durations: [] })).toEqual(['/durations']);
      expect(await paths({ durations: [5, 10, 15, 20, 25, 30, 35] })).toEqual(['/durations']);
      expect(await paths({ durations: [30, 721] })).toEqual(['/durations/1']);
      expect(await paths({ durations: [30, 60], priceVariants: [{ name: 'Long', price: { amount: 100, currency: 'PLN' }, durationMinutes: 45 }] })).toEqual([
        '/priceVariants/0/durationMinutes',
      ]);
    });

    it('offers slots of the chosen length: a longer one ends before the hours do, and a length the topic does not offer is 400', async () => {
      const acme = await newAccount();
      const topic = await createTopic(acme, { durations: [30, 90] });
      const short = await startsOn(acme, topic.uuid, '2027-01-05');
      const long = await startsOn(acme, topic.uuid, '2027-01-05', 90);
      // 16:30 Warsaw fits 30 minutes before 17:00; 90 minutes must start by 15:30.
      expect(short.at(-1)).toBe('2027-01-05T15:30:00.000Z');
      expect(long.at(-1)).toBe('2027-01-05T14:30:00.000Z');
      expect((await schedule(acme, topic.uuid, 90)).json().durationMinutes).toBe(90);
      expect(expectProblem(await schedule(acme, topic.uuid, 45), 400, 'VALIDATION_FAILED').errors).toEqual([
        { path: '/duration', message: "must be one of the topic's durations (30, 90)" },
      ]);
      expect(expectProblem(await book(acme, topic.uuid, '2027-01-05T08:00:00.000Z', { duration: 45 }), 400, 'VALIDATION_FAILED').errors?.map((e) => e.path)).toEqual(['/duration']);
    });

    it('books the chosen length: the meeting ends then, blocks that long with its buffer, and a move keeps its length', async () => {
      const acme = await newAccount();
      const topic = await createTopic(acme, { durations: [30, 90], bufferAfterMinutes: 30 });
      const booked = await book(acme, topic.uuid, '2027-01-05T08:00:00.000Z', { duration: 90 });
      expect(booked.statusCode).toBe(201);
      const meeting = booked.json().meetings[0];
      expect([meeting.start, meeting.end, meeting.durationMinutes]).toEqual(['2027-01-05T08:00:00.000Z', '2027-01-05T09:30:00.000Z', 90]);
      // 90 minutes and 30 after: a 30-minute meeting fits from 10:00 UTC, not at 09:30.
      const after = await startsOn(acme, topic.uuid, '2027-01-05');
      expect(after).not.toContain('2027-01-05T09:30:00.000Z');
      expect(after).toContain('2027-01-05T10:00:00.000Z');
      // The second date of a 90-minute booking is refused where only 30 minutes fit before another meeting.
      expect((await book(acme, topic.uuid, '2027-01-05T11:00:00.000Z')).statusCode).toBe(201);
      expectProblem(await book(acme, topic.uuid, '2027-01-05T10:00:00.000Z', { duration: 90 }), 409, 'SLOT_UNAVAILABLE');
      const moved = await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/reschedule`, { start: '2027-01-06T08:00:00.000Z' });
      expect(moved.statusCode).toBe(200);
      expect([moved.json().end, moved.json().durationMinutes]).toEqual(['2027-01-06T09:30:00.000Z', 90]);
    });

    it('explains a start for the length asked about', async () => {
      const acme = await newAccount();
      const topic = await createTopic(acme, { durations: [30, 90] });
      const explain = (duration?: number) =>
        call(t.app, acme.apiKey, 'POST', '/api/v1/explain-schedule', {
          username: acme.owner.username,
          meetingTopic: topic.uuid,
          start: '2027-01-05T15:00:00.000Z',
          ...(duration === undefined ? {} : { duration }),
        });
      expect((await explain()).json()).toMatchObject({ offered: true, end: '2027-01-05T15:30:00.000Z' });
      const long = (await explain(90)).json();
      expect(long).toMatchObject({ offered: false, end: '2027-01-05T16:30:00.000Z' });
      expect(long.reasons.map((reason: { code: string }) => reason.code)).toEqual(['OUTSIDE_HOURS']);
    });

    it('a price variant for a length is that length’s price; a variant of another length is refused', async () => {
      const acme = await newAccount();
      await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { gateways: { p24: { merchantId: 1, posId: 1, apiKey: 'k', crc: 'c' } } });
      const topic = await createTopic(acme, {
        durations: [30, 60],
        price: { amount: 10_000, currency: 'PLN' },
        priceVariants: [{ name: 'One hour', price: { amount: 18_000, currency: 'PLN' }, durationMinutes: 60 }],
      });
      const hour = topic.priceVariants[0]!;
      expect(hour.durationMinutes).toBe(60);
      const long = await book(acme, topic.uuid, '2027-01-05T08:00:00.000Z', { duration: 60, gateway: 'p24' });
      expect(long.statusCode).toBe(201);
      expect([long.json().payment.amount, long.json().meetings[0].priceVariant]).toEqual([18_000, hour.uuid]);
      const short = await book(acme, topic.uuid, '2027-01-05T10:00:00.000Z', { gateway: 'p24' });
      expect([short.json().payment.amount, short.json().meetings[0].priceVariant]).toEqual([10_000, null]);
      expect(
        expectProblem(await book(acme, topic.uuid, '2027-01-05T12:00:00.000Z', { gateway: 'p24', priceVariant: hour.uuid }), 400, 'VALIDATION_FAILED').errors?.map((e) => e.path),
      ).toEqual(['/priceVariant']);
    });

    it('quotes the chosen length’s price for the booking page, as the booking charges it', async () => {
      const acme = await newAccount();
      const topic = await createTopic(acme, {
        public: true,
        durations: [30, 60],
        price: { amount: 10_000, currency: 'PLN' },
        priceVariants: [{ name: 'One hour', price: { amount: 18_000, currency: 'PLN' }, durationMinutes: 60 }],
      });
      const hour = topic.priceVariants[0]!;
      const quote = (body: Record<string, unknown>) => call(t.app, null, 'POST', '/api/v1/public/quote', { meetingTopic: topic.uuid, ...body });
      const long = await quote({ duration: 60 });
      expect(long.statusCode).toBe(200);
      expect(long.json()).toMatchObject({ price: { amount: 18_000, currency: 'PLN' }, total: { amount: 18_000, currency: 'PLN' } });
      expect((await quote({ duration: 60, dates: 2 })).json().total).toEqual({ amount: 36_000, currency: 'PLN' });
      expect((await quote({ duration: 30 })).json().total).toEqual({ amount: 10_000, currency: 'PLN' });
      expect((await quote({})).json().total).toEqual({ amount: 10_000, currency: 'PLN' });
      expect(expectProblem(await quote({ duration: 45 }), 400, 'VALIDATION_FAILED').errors?.map((e) => e.path)).toEqual(['/duration']);
      expect(expectProblem(await quote({ duration: 30, priceVariant: hour.uuid }), 400, 'VALIDATION_FAILED').errors?.map((e) => e.path)).toEqual(['/priceVariant']);
    });

    it('a team topic’s team view and a collective topic offer and book the chosen length', async () => {
      const acme = await newAccount();
      const added = await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Bob', lastName: 'Test', email: 'bob@acme.test' });
      expect(added.statusCode).toBe(201);
      const bob = added.json() as { username: string };
      const teamSlots = async (topicUuid: string, duration?: number, username?: string) => {
        const response = await call(t.app, null, 'POST', '/api/v1/calculate-schedule', {
          meetingTopic: topicUuid,
          team: acme.team.uuid,
          ...(username === undefined ? {} : { username }),
          timezone: 'Europe/Warsaw',
          offset: 0,
          ...(duration === undefined ? {} : { duration }),
        });
        expect(response.statusCode).toBe(200);
        return (response.json().days as { date: string; slots: Slot[] }[]).find((day) => day.date === '2027-01-05')?.slots ?? [];
      };

      for (const assignment of ['round-robin', 'collective'] as const) {
        const topic = await createTopic(acme, { name: `Team ${assignment}`, team: acme.team.uuid, assignment, durations: [30, 90] });
        // 90 minutes must start by 15:30 Warsaw (14:30 UTC); 30 minutes fit until 16:30.
        expect((await teamSlots(topic.uuid)).at(-1)?.start).toBe('2027-01-05T15:30:00.000Z');
        const long = await teamSlots(topic.uuid, 90);
        expect(long.at(-1)?.start).toBe('2027-01-05T14:30:00.000Z');
        const slot = long[0]!;
        expect([acme.owner.username, bob.username]).toContain(slot.username);
        const booked = await book(acme, topic.uuid, slot.start, { duration: 90, team: acme.team.uuid, dates: [{ start: slot.start, username: slot.username }] });
        expect(booked.statusCode).toBe(201);
        const meeting = booked.json().meetings[0];
        const end = new Date(Date.parse(slot.start) + 90 * 60_000).toISOString();
        expect([meeting.start, meeting.end, meeting.durationMinutes]).toEqual([slot.start, end, 90]);
        // The 90 minutes are held: the booked host (a collective topic: the team) is not offered a time inside them.
        const held = (await teamSlots(topic.uuid, undefined, assignment === 'collective' ? undefined : slot.username)).map((s) => s.start);
        expect(held.filter((start) => start >= slot.start && start < end)).toEqual([]);
        expect(held).toContain(end);
      }
    });
  });
}
