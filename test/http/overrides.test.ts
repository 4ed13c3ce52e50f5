import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKeyForUser } from '../../src/scheduling/account/api-keys.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

type Day = { date: string; slots: { start: string }[] };

/** PUT|DELETE /users/{userUuid}/availability/overrides/{date}: one date at a time, the week untouched, slots current at once. */
for (const dialect of DIALECTS) {
  describe(`date overrides one at a time [${dialect}]`, () => {
    let t: TestApp;

    beforeAll(async () => {
      // Monday 2027-01-04, 09:00 in Warsaw; the owner works Mon–Fri 09:00–17:00 there.
      t = await createTestApp(dialect, createClock('2027-01-04T08:00:00.000Z'));
    });
    afterAll(async () => t.close());

    /** An account of the test's own, so no test sees another's overrides. */
    const newAccount = () => createTestAccount(t.ctx, { timezone: 'Europe/Warsaw' });
    const url = (userUuid: string, date: string) => `/api/v1/users/${userUuid}/availability/overrides/${date}`;
    /** The owner's slots of the week of 2027-01-11 (Mon) to 2027-01-17 (Sun), as local start times per date. */
    async function week(acme: CreatedAccount, topic: { uuid: string }): Promise<Record<string, string[]>> {
      const response = await call(t.app, null, 'POST', '/api/v1/calculate-schedule', {
        username: acme.owner.username,
        meetingTopic: topic.uuid,
        timezone: 'Europe/Warsaw',
        offset: 7,
      });
      expect(response.statusCode).toBe(200);
      return Object.fromEntries(
        (response.json().days as Day[]).map((day) => [
          day.date,
          day.slots.map((slot) => new Date(slot.start).toLocaleTimeString('en-GB', { timeZone: 'Europe/Warsaw', hour: '2-digit', minute: '2-digit' })),
        ]),
      );
    }

    it('adds a Saturday, takes a Monday off, and the free slots follow at once; the weekly hours stay', async () => {
      const acme = await newAccount();
      const topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 60 })).json();
      const before = await week(acme, topic); // also fills the schedule cache, which the change must invalidate
      expect(before['2027-01-16']).toEqual([]);
      expect(before['2027-01-11']).toHaveLength(8);

      const saturday = await call(t.app, acme.apiKey, 'PUT', url(acme.owner.uuid, '2027-01-16'), {
        intervals: [
          { start: '13:00', end: '15:00' },
          { start: '10:00', end: '11:00' },
        ],
      });
      expect(saturday.statusCode).toBe(200);
      expect(saturday.json().overrides).toEqual([
        {
          date: '2027-01-16',
          intervals: [
            { start: '10:00', end: '11:00' },
            { start: '13:00', end: '15:00' },
          ],
        },
      ]);
      expect(saturday.json().weekly.monday).toEqual([{ start: '09:00', end: '17:00' }]);
      const monday = await call(t.app, acme.apiKey, 'PUT', url(acme.owner.uuid, '2027-01-11'), { intervals: [] });
      expect(monday.json().overrides.map((o: { date: string }) => o.date)).toEqual(['2027-01-11', '2027-01-16']);

      const after = await week(acme, topic);
      expect(after['2027-01-16']).toEqual(['10:00', '13:00', '14:00']);
      expect(after['2027-01-11']).toEqual([]);
      expect(after['2027-01-12']).toEqual(before['2027-01-12']);

      // Replacing a date's override replaces it, not adds to it.
      await call(t.app, acme.apiKey, 'PUT', url(acme.owner.uuid, '2027-01-16'), { intervals: [{ start: '16:00', end: '17:00' }] });
      expect((await week(acme, topic))['2027-01-16']).toEqual(['16:00']);

      // Removing the Monday override brings its weekly hours back; GET shows what is left.
      expect((await call(t.app, acme.apiKey, 'DELETE', url(acme.owner.uuid, '2027-01-11'))).statusCode).toBe(204);
      expect((await week(acme, topic))['2027-01-11']).toEqual(before['2027-01-11']);
      const stored = (await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/availability`)).json();
      expect(stored.overrides).toEqual([{ date: '2027-01-16', intervals: [{ start: '16:00', end: '17:00' }] }]);
      expectProblem(await call(t.app, acme.apiKey, 'DELETE', url(acme.owner.uuid, '2027-01-11')), 404, 'NOT_FOUND');
    });

    it('refuses bad dates and intervals with paths a client can show, changing nothing', async () => {
      const acme = await newAccount();
      const before = (await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/availability`)).json();
      const notADate = expectProblem(await call(t.app, acme.apiKey, 'PUT', url(acme.owner.uuid, '2027-02-30'), { intervals: [] }), 400, 'VALIDATION_FAILED');
      expect(notADate.errors?.map((e) => e.path)).toEqual(['/params/date']);
      expectProblem(await call(t.app, acme.apiKey, 'PUT', url(acme.owner.uuid, 'tomorrow'), { intervals: [] }), 400, 'VALIDATION_FAILED');
      const overlap = expectProblem(
        await call(t.app, acme.apiKey, 'PUT', url(acme.owner.uuid, '2027-01-20'), {
          intervals: [
            { start: '09:00', end: '12:00' },
            { start: '11:00', end: '13:00' },
          ],
        }),
        400,
        'VALIDATION_FAILED',
      );
      expect(overlap.errors?.map((e) => e.path)).toEqual(['/intervals/1']);
      const backwards = expectProblem(
        await call(t.app, acme.apiKey, 'PUT', url(acme.owner.uuid, '2027-01-20'), { intervals: [{ start: '12:00', end: '09:00' }] }),
        400,
        'VALIDATION_FAILED',
      );
      expect(backwards.errors?.map((e) => e.path)).toEqual(['/intervals/0']);
      expectProblem(await call(t.app, acme.apiKey, 'PUT', url(acme.owner.uuid, '2027-01-20'), {}), 400, 'VALIDATION_FAILED');
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/availability`)).json()).toEqual(before);
    });

    it('is for the user and their team admins only; another account sees nothing', async () => {
      const acme = await newAccount();
      const other = await createTestAccount(t.ctx);
      // The owner has an override of their own, which the other account must not reach.
      expect((await call(t.app, acme.apiKey, 'PUT', url(acme.owner.uuid, '2027-01-16'), { intervals: [{ start: '10:00', end: '11:00' }] })).statusCode).toBe(200);
      const member = (
        await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Piotr', lastName: 'Plain', email: 'piotr@acme.test' })
      ).json() as { uuid: string };
      const memberKey = (await createApiKeyForUser(t.ctx, member.uuid)).apiKey;
      // The admin sets the member's override; the member manages their own, but not the owner's.
      expect((await call(t.app, acme.apiKey, 'PUT', url(member.uuid, '2027-01-18'), { intervals: [] })).statusCode).toBe(200);
      expect((await call(t.app, memberKey, 'DELETE', url(member.uuid, '2027-01-18'))).statusCode).toBe(204);
      expectProblem(await call(t.app, memberKey, 'PUT', url(acme.owner.uuid, '2027-01-18'), { intervals: [] }), 403, 'FORBIDDEN');
      expectProblem(await call(t.app, other.apiKey, 'PUT', url(acme.owner.uuid, '2027-01-18'), { intervals: [] }), 404, 'NOT_FOUND');
      expectProblem(await call(t.app, other.apiKey, 'DELETE', url(acme.owner.uuid, '2027-01-16')), 404, 'NOT_FOUND');
      const stored = (await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/availability`)).json();
      expect(stored.overrides).toEqual([{ date: '2027-01-16', intervals: [{ start: '10:00', end: '11:00' }] }]);
    });

    it('keeps every date when several are set at once', async () => {
      const acme = await newAccount();
      const dates = ['2027-02-01', '2027-02-02', '2027-02-03', '2027-02-04', '2027-02-05', '2027-02-06'];
      const responses = await Promise.all(dates.map((date) => call(t.app, acme.apiKey, 'PUT', url(acme.owner.uuid, date), { intervals: [{ start: '08:00', end: '09:00' }] })));
      expect(responses.map((r) => r.statusCode)).toEqual(dates.map(() => 200));
      const stored = (await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/availability`)).json();
      expect(stored.overrides.map((o: { date: string }) => o.date).filter((d: string) => d.startsWith('2027-02'))).toEqual(dates);
    });
  });
}
