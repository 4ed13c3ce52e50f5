import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, createTwoInstances, type TestApp, type TwoInstances } from '../helpers.js';

type Slot = { start: string; username: string };

/**
 * Calculated schedules are cached per instance; these tests run two instances over one
 * database and check that a change made through one is seen at once by the other.
 */
for (const dialect of DIALECTS) {
  describe(`cached schedules stay exact across instances [${dialect}]`, () => {
    let instances: TwoInstances;
    let a: TestApp;
    let b: FastifyInstance;

    beforeAll(async () => {
      instances = await createTwoInstances(dialect, createClock('2027-01-04T06:00:00.000Z'));
      ({ a, b } = instances);
    });
    afterAll(async () => {
      await instances?.close();
    });

    /**
     * An account of the test's own with its two topics, and the shared clock back at Monday
     * 06:00, so no test sees another's bookings, hours or moved time.
     */
    const setUp = async () => {
      a.clock.set('2027-01-04T06:00:00.000Z');
      const acme = await createTestAccount(a.ctx, { timezone: 'UTC', places: ['zoom'] });
      const topic: { uuid: string } = (
        await call(a.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Cached', durationMinutes: 30, places: ['zoom'], minimumNoticeMinutes: 60 })
      ).json();
      const other: { uuid: string } = (await call(a.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Other', durationMinutes: 30, places: ['zoom'] })).json();
      const slotsFrom = async (app: TestApp['app'], topicUuid = topic.uuid) =>
        (
          (await call(app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic: topicUuid, timezone: 'UTC', offset: 0 })).json().days as {
            slots: Slot[];
          }[]
        )
          .flatMap((day) => day.slots)
          .map((slot) => slot.start);
      const book = (app: TestApp['app'], start: string, topicUuid = topic.uuid) =>
        call(app, acme.apiKey, 'POST', '/api/v1/schedule', {
          dates: [{ start, username: acme.owner.username }],
          email: 'p@example.com',
          lang: 'en',
          name: 'P',
          place: 'zoom',
          meetingTopic: topicUuid,
          timezone: 'UTC',
        });
      return { acme, other, slotsFrom, book };
    };

    it('drops a slot booked through the other instance', async () => {
      const { slotsFrom, book } = await setUp();
      const before = await slotsFrom(a.app);
      expect((await book(b, before[3]!)).statusCode).toBe(201);
      expect(await slotsFrom(a.app)).not.toContain(before[3]);
    });

    it('brings a slot back when the other instance cancels its meeting', async () => {
      const { acme, slotsFrom, book } = await setUp();
      const before = await slotsFrom(a.app);
      const meeting = (await book(b, before[5]!)).json().meetings[0];
      expect(await slotsFrom(a.app)).not.toContain(before[5]);
      await call(b, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/cancel`);
      expect(await slotsFrom(a.app)).toContain(before[5]);
    });

    it("follows changed hours and another topic's buffers", async () => {
      const { acme, other, slotsFrom, book } = await setUp();
      const before = await slotsFrom(a.app);
      await call(b, acme.apiKey, 'PUT', `/api/v1/users/${acme.owner.uuid}/availability`, { timezone: 'UTC', weekly: { monday: [{ start: '12:00', end: '13:00' }] } });
      const monday = await slotsFrom(a.app);
      expect(monday).not.toEqual(before);
      expect(monday.filter((s) => s.startsWith('2027-01-04'))).toEqual(['2027-01-04T12:00:00.000Z', '2027-01-04T12:30:00.000Z']);

      // A meeting of the other topic at 12:30; widening that topic's buffer removes 12:00 too.
      expect((await book(b, '2027-01-04T12:30:00.000Z', other.uuid)).statusCode).toBe(201);
      expect((await slotsFrom(a.app)).filter((s) => s.startsWith('2027-01-04'))).toEqual(['2027-01-04T12:00:00.000Z']);
      await call(b, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${other.uuid}`, { bufferBeforeMinutes: 15 });
      expect((await slotsFrom(a.app)).filter((s) => s.startsWith('2027-01-04'))).toEqual([]);
    });

    it('trims to the exact minimum notice as time moves within a cached minute', async () => {
      const { acme, slotsFrom } = await setUp();
      await call(b, acme.apiKey, 'PUT', `/api/v1/users/${acme.owner.uuid}/availability`, { timezone: 'UTC', weekly: { tuesday: [{ start: '09:00', end: '12:00' }] } });
      a.clock.set('2027-01-05T07:59:00.000Z'); // notice 60 min: 09:00 is still offered
      expect((await slotsFrom(a.app))[0]).toBe('2027-01-05T09:00:00.000Z');
      a.clock.set('2027-01-05T08:00:00.001Z'); // now 09:00 is less than an hour away
      expect((await slotsFrom(a.app))[0]).toBe('2027-01-05T09:30:00.000Z');
      a.clock.set('2027-01-05T08:00:59.999Z');
      expect((await slotsFrom(a.app))[0]).toBe('2027-01-05T09:30:00.000Z');
    });

    it("serves each of a host's views its own days when views of other weeks, months and zones come in between", async () => {
      const { acme } = await setUp();
      const topic = (await call(a.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Views', durationMinutes: 30, places: ['zoom'] })).json();
      const views = [
        { timezone: 'UTC', offset: 0 },
        { timezone: 'UTC', offset: 7 },
        { timezone: 'UTC', offset: 0, month: 2, year: 2027 },
        { timezone: 'Asia/Tokyo', offset: 0, month: 2, year: 2027 },
      ];
      const ask = async (view: (typeof views)[number]) =>
        (await call(a.app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic: topic.uuid, ...view })).json() as {
          from: string;
          days: { date: string }[];
        };
      const first = await Promise.all(views.map(async (view) => ask(view)));
      // Each cached now, asked again in turns: every answer is that view's, never the one asked just before.
      for (const round of [0, 1]) {
        for (const [i, view] of views.entries()) expect({ round, view: await ask(view) }).toEqual({ round, view: first[i] });
      }
      // The four views differ, so serving one for another would show.
      expect(new Set(first.map((view) => JSON.stringify(view.days))).size).toBe(views.length);
    });
  });
}

describe('zone names in any letter case share one cached schedule', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite', createClock('2027-01-04T06:00:00.000Z'));
  });
  afterAll(async () => t.close());

  it('europe/WARSAW and Europe/Warsaw are one entry, and each caller gets its own spelling back', async () => {
    const acme = await createTestAccount(t.ctx, { timezone: 'UTC', places: ['zoom'] });
    const topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Cased', durationMinutes: 30, places: ['zoom'] })).json();
    const ask = (timezone: string) =>
      call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic: topic.uuid, timezone, offset: 0, month: 1 });
    const first = (await ask('Europe/Warsaw')).json();
    const entries = t.ctx.scheduleCache!.stats().entries;
    for (const spelling of ['europe/warsaw', 'EUROPE/WARSAW', 'Europe/WARSAW']) {
      const response = (await ask(spelling)).json();
      expect(response.timezone).toBe(spelling);
      expect(response.days).toEqual(first.days);
    }
    expect(t.ctx.scheduleCache!.stats().entries).toBe(entries);
    expect((await ask('Europe/Warsaw')).json().timezone).toBe('Europe/Warsaw');
  });
});
