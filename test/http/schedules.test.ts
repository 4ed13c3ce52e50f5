import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/context.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createClock, createTestAccount, createTwoInstances, expectProblem, type TestApp, type TwoInstances } from '../helpers.js';

type Slot = { start: string; username: string };

/**
 * Several schedules per host and limits per period, through the API, on two instances over
 * one database: every change made through instance A (a schedule's hours, the host's limits,
 * a topic's choice of schedule) must show at once in the month view instance B serves from
 * its cache. Monday 2027-01-04 06:00 UTC; UTC hosts.
 */
for (const dialect of DIALECTS) {
  describe(`schedules and period limits [${dialect}]`, () => {
    let instances: TwoInstances;
    let a: TestApp;
    let b: FastifyInstance;
    let bCtx: AppContext;

    beforeAll(async () => {
      instances = await createTwoInstances(dialect, createClock('2027-01-04T06:00:00.000Z'));
      ({ a, b, bCtx } = instances);
    });
    afterAll(async () => {
      await instances?.close();
    });

    const weekdays = (start: string, end: string) => Object.fromEntries(['monday', 'tuesday', 'wednesday', 'thursday', 'friday'].map((day) => [day, [{ start, end }]]));
    const evenings = { name: 'Evenings', timezone: 'UTC', weekly: weekdays('18:00', '20:00') };
    const newAccount = () => createTestAccount(a.ctx, { timezone: 'UTC', places: ['zoom'] });
    const createTopic = async (account: CreatedAccount, fields: Record<string, unknown> = {}) => {
      const response = await call(a.app, account.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Call', durationMinutes: 60, places: ['zoom'], ...fields });
      expect(response.statusCode, response.body).toBe(201);
      return response.json() as { uuid: string; schedule: string | null; weeklyLimit: number | null };
    };
    const createSchedule = async (account: CreatedAccount, body: Record<string, unknown> = evenings) => {
      const response = await call(a.app, account.apiKey, 'POST', `/api/v1/users/${account.owner.uuid}/schedules`, body);
      expect(response.statusCode, response.body).toBe(201);
      return response.json() as { uuid: string; name: string };
    };
    /** The slot starts instance `app` offers in January 2027 (the month view). */
    const slotsFrom = async (app: TestApp['app'], account: CreatedAccount, topicUuid: string, team?: string) => {
      const response = await call(app, null, 'POST', '/api/v1/calculate-schedule', {
        ...(team ? { team } : { username: account.owner.username }),
        meetingTopic: topicUuid,
        timezone: 'UTC',
        offset: 0,
        month: 1,
        year: 2027,
      });
      expect(response.statusCode, response.body).toBe(200);
      return (response.json().days as { slots: Slot[] }[]).flatMap((day) => day.slots).map((slot) => slot.start);
    };
    const book = (account: CreatedAccount, topicUuid: string, starts: string[]) =>
      call(a.app, account.apiKey, 'POST', '/api/v1/schedule', {
        dates: starts.map((start) => ({ start, username: account.owner.username })),
        email: 'p@example.com',
        lang: 'en',
        name: 'P',
        place: 'zoom',
        meetingTopic: topicUuid,
        timezone: 'UTC',
      });

    it('keeps named schedules beside the default hours: create, list, read, replace, delete', async () => {
      const acme = await newAccount();
      const base = `/api/v1/users/${acme.owner.uuid}/schedules`;
      const created = await createSchedule(acme, { ...evenings, overrides: [{ date: '2027-01-08', intervals: [] }] });
      expect(created).toMatchObject({ name: 'Evenings', timezone: 'UTC', overrides: [{ date: '2027-01-08', intervals: [] }] });
      expect((await call(a.app, acme.apiKey, 'GET', base)).json().schedules.map((s: { uuid: string }) => s.uuid)).toEqual([created.uuid]);
      const replaced = await call(a.app, acme.apiKey, 'PUT', `${base}/${created.uuid}`, { ...evenings, name: 'Late', timezone: 'Europe/Warsaw' });
      expect(replaced.json()).toMatchObject({ uuid: created.uuid, name: 'Late', timezone: 'Europe/Warsaw', overrides: [] });
      expect((await call(a.app, acme.apiKey, 'GET', `${base}/${created.uuid}`)).json().name).toBe('Late');
      // The default hours are untouched.
      expect((await call(a.app, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/availability`)).json().weekly.monday).toEqual([{ start: '09:00', end: '17:00' }]);
      expect((await call(a.app, acme.apiKey, 'DELETE', `${base}/${created.uuid}`)).statusCode).toBe(204);
      expectProblem(await call(a.app, acme.apiKey, 'GET', `${base}/${created.uuid}`), 404, 'NOT_FOUND');
    });

    it('refuses bad schedules and other accounts’ users, changing nothing', async () => {
      const acme = await newAccount();
      const other = await newAccount();
      const base = `/api/v1/users/${acme.owner.uuid}/schedules`;
      const bad = expectProblem(
        await call(a.app, acme.apiKey, 'POST', base, { name: 'x', timezone: 'Mars/Base', weekly: { monday: [{ start: '10:00', end: '09:00' }] } }),
        400,
        'VALIDATION_FAILED',
      );
      expect(bad.errors?.map((error) => error.path)).toEqual(['/timezone', '/weekly/monday/0']);
      expectProblem(await call(a.app, acme.apiKey, 'POST', base, { ...evenings, name: '  ' }), 400, 'VALIDATION_FAILED');
      expectProblem(await call(a.app, other.apiKey, 'POST', base, evenings), 404, 'NOT_FOUND');
      expectProblem(await call(a.app, other.apiKey, 'GET', base), 404, 'NOT_FOUND');
      expect((await call(a.app, acme.apiKey, 'GET', base)).json().schedules).toEqual([]);
    });

    it('a topic’s schedule picks its hours; edits and the choice show at once on the other instance', async () => {
      const acme = await newAccount();
      const schedule = await createSchedule(acme);
      const onDefault = await createTopic(acme);
      const onEvenings = await createTopic(acme, { schedule: schedule.uuid });
      expect(onEvenings.schedule).toBe(schedule.uuid);
      // Warm instance B's cache, then change things through A.
      expect(await slotsFrom(b, acme, onEvenings.uuid)).toContain('2027-01-05T18:00:00.000Z');
      expect(await slotsFrom(b, acme, onEvenings.uuid)).not.toContain('2027-01-05T09:00:00.000Z');
      expect(await slotsFrom(b, acme, onDefault.uuid)).toContain('2027-01-05T09:00:00.000Z');

      // A meeting of either topic blocks the host on both.
      expect((await book(acme, onEvenings.uuid, ['2027-01-05T18:00:00.000Z'])).statusCode).toBe(201);
      expect(await slotsFrom(b, acme, onEvenings.uuid)).not.toContain('2027-01-05T18:00:00.000Z');

      // Editing a schedule no topic uses changes no view: instance B keeps serving its entries.
      const unused = await createSchedule(acme, { ...evenings, name: 'Unused' });
      await slotsFrom(b, acme, onDefault.uuid);
      const stores = bCtx.scheduleCache.traffic!().stores;
      await call(a.app, acme.apiKey, 'PUT', `/api/v1/users/${acme.owner.uuid}/schedules/${unused.uuid}`, { ...evenings, weekly: weekdays('06:00', '07:00') });
      await slotsFrom(b, acme, onDefault.uuid);
      expect(bCtx.scheduleCache.traffic!().stores).toBe(stores);

      await call(a.app, acme.apiKey, 'PUT', `/api/v1/users/${acme.owner.uuid}/schedules/${schedule.uuid}`, { ...evenings, weekly: weekdays('20:00', '22:00') });
      const edited = await slotsFrom(b, acme, onEvenings.uuid);
      expect(edited).toContain('2027-01-06T21:00:00.000Z');
      expect(edited).not.toContain('2027-01-06T18:00:00.000Z');

      const back = await call(a.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${onEvenings.uuid}`, { schedule: null });
      expect(back.statusCode, back.body).toBe(200);
      const defaults = await slotsFrom(b, acme, onEvenings.uuid);
      expect(defaults).toContain('2027-01-06T09:00:00.000Z');
      expect(defaults).not.toContain('2027-01-06T21:00:00.000Z');
    });

    it('a team topic picks a schedule per host', async () => {
      const acme = await newAccount();
      const schedule = await createSchedule(acme);
      const topic = await createTopic(acme, { team: acme.team.uuid, hostSchedules: { [acme.owner.username]: schedule.uuid } });
      const team = await slotsFrom(b, acme, topic.uuid, acme.team.uuid);
      expect(team).toContain('2027-01-05T18:00:00.000Z');
      expect(team).not.toContain('2027-01-05T09:00:00.000Z');
    });

    it('a host leaving a team topic takes their schedule choice along, without refusing the change', async () => {
      const acme = await newAccount();
      const member = (await call(a.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Bea', lastName: 'Host', email: 'bea@acme.test' })).json() as {
        uuid: string;
        username: string;
      };
      const theirs = (await call(a.app, acme.apiKey, 'POST', `/api/v1/users/${member.uuid}/schedules`, evenings)).json() as { uuid: string };
      const mine = await createSchedule(acme);
      const created = await call(a.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
        name: 'Team',
        durationMinutes: 60,
        places: ['zoom'],
        team: acme.team.uuid,
        hosts: [acme.owner.username, member.username],
        hostSchedules: { [acme.owner.username]: mine.uuid, [member.username]: theirs.uuid },
      });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json().hostSchedules).toEqual({ [acme.owner.username]: mine.uuid, [member.username]: theirs.uuid });
      const patched = await call(a.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${created.json().uuid}`, { hosts: [acme.owner.username] });
      expect(patched.statusCode, patched.body).toBe(200);
      expect(patched.json().hostSchedules).toEqual({ [acme.owner.username]: mine.uuid });
      // Theirs is no longer in use: it can go.
      expect((await call(a.app, acme.apiKey, 'DELETE', `/api/v1/users/${member.uuid}/schedules/${theirs.uuid}`)).statusCode).toBe(204);
    });

    it('refuses a schedule of another account or host, or of the wrong kind of topic', async () => {
      const acme = await newAccount();
      const other = await newAccount();
      const theirs = await createSchedule(other);
      const mine = await createSchedule(acme);
      const refused = expectProblem(
        await call(a.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'X', durationMinutes: 30, schedule: theirs.uuid }),
        400,
        'VALIDATION_FAILED',
      );
      expect(refused.errors).toEqual([{ path: '/schedule', message: "is not a schedule of the topic's host" }]);
      expectProblem(
        await call(a.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'X', durationMinutes: 30, team: acme.team.uuid, schedule: mine.uuid }),
        400,
        'VALIDATION_FAILED',
      );
      const team = expectProblem(
        await call(a.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
          name: 'X',
          durationMinutes: 30,
          team: acme.team.uuid,
          hostSchedules: { [acme.owner.username]: theirs.uuid, ghost: mine.uuid },
        }),
        400,
        'VALIDATION_FAILED',
      );
      expect(team.errors?.map((error) => error.path).sort()).toEqual(['/hostSchedules/ghost', `/hostSchedules/${acme.owner.username}`]);
      expect((await call(a.app, acme.apiKey, 'GET', '/api/v1/meeting-topics')).json().meetingTopics).toEqual([]);
    });

    it('refuses to delete a schedule a topic uses, naming the topic', async () => {
      const acme = await newAccount();
      const schedule = await createSchedule(acme);
      const topic = await createTopic(acme, { name: 'Evening consult', schedule: schedule.uuid });
      const url = `/api/v1/users/${acme.owner.uuid}/schedules/${schedule.uuid}`;
      const problem = expectProblem(await call(a.app, acme.apiKey, 'DELETE', url), 409, 'SCHEDULE_IN_USE');
      expect(problem.detail).toContain('"Evening consult"');
      expect((await call(a.app, acme.apiKey, 'GET', url)).statusCode).toBe(200);
      await call(a.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${topic.uuid}`, { schedule: null });
      expect((await call(a.app, acme.apiKey, 'DELETE', url)).statusCode).toBe(204);
    });

    it('a topic’s weekly limit hides the rest of a full week and refuses bookings beyond it, dates of one request together', async () => {
      const acme = await newAccount();
      for (const bad of [{ weeklyLimit: 0 }, { weeklyLimit: 501 }, { monthlyLimit: 2001 }, { weeklyLimit: 1.5 }]) {
        expectProblem(await call(a.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Bad', durationMinutes: 60, ...bad }), 400, 'VALIDATION_FAILED');
      }
      const topic = await createTopic(acme, { weeklyLimit: 2 });
      expect(topic.weeklyLimit).toBe(2);
      expect(await slotsFrom(b, acme, topic.uuid)).toContain('2027-01-08T09:00:00.000Z');
      // Two dates of one request: the second is the week's second, fine; a third in the same request is not.
      const three = expectProblem(await book(acme, topic.uuid, ['2027-01-05T09:00:00.000Z', '2027-01-06T09:00:00.000Z', '2027-01-07T09:00:00.000Z']), 409, 'SLOT_UNAVAILABLE');
      expect(three.errors).toEqual([{ path: '/dates/2', message: 'is not an available slot' }]);
      expect((await book(acme, topic.uuid, ['2027-01-04T10:00:00.000Z', '2027-01-05T09:00:00.000Z'])).statusCode).toBe(201);
      const after = await slotsFrom(b, acme, topic.uuid);
      expect(after.filter((start) => start < '2027-01-11')).toEqual([]);
      expect(after).toContain('2027-01-11T09:00:00.000Z');
      // A booking days away from the others (Friday afternoon) still sees the week's two: its check reads whole weeks.
      expectProblem(await book(acme, topic.uuid, ['2027-01-08T16:00:00.000Z']), 409, 'SLOT_UNAVAILABLE');
      // A monthly limit counts the host-local month: one meeting fills January, end to end.
      const monthly = await createTopic(acme, { name: 'Monthly', monthlyLimit: 1 });
      expect((await book(acme, monthly.uuid, ['2027-01-29T09:00:00.000Z'])).statusCode).toBe(201);
      expect(await slotsFrom(b, acme, monthly.uuid)).toEqual([]);
      expectProblem(await book(acme, monthly.uuid, ['2027-01-04T15:00:00.000Z']), 409, 'SLOT_UNAVAILABLE');
    });

    it('under concurrent bookings through both instances, a weekly limit across topics lets exactly its number through', async () => {
      const acme = await newAccount();
      const topics = [await createTopic(acme), await createTopic(acme, { name: 'Second' })];
      await call(a.app, acme.apiKey, 'PUT', `/api/v1/users/${acme.owner.uuid}/limits`, { daily: null, weekly: 2 });
      // Eight different free hours of one week, each request on its own topic and instance.
      const starts = ['05', '06', '07'].flatMap((day) => ['09', '11', '13'].map((hour) => `2027-01-${day}T${hour}:00:00.000Z`)).slice(0, 8);
      const responses = await Promise.all(
        starts.map((start, i) =>
          call(i % 2 === 0 ? a.app : b, acme.apiKey, 'POST', '/api/v1/schedule', {
            dates: [{ start, username: acme.owner.username }],
            email: 'p@example.com',
            lang: 'en',
            name: 'P',
            place: 'zoom',
            meetingTopic: topics[i % 2]!.uuid,
            timezone: 'UTC',
          }),
        ),
      );
      const statuses = responses.map((response) => response.statusCode).sort();
      expect(statuses).toEqual([201, 201, 409, 409, 409, 409, 409, 409]);
      expect((await slotsFrom(b, acme, topics[0]!.uuid)).filter((start) => start < '2027-01-11')).toEqual([]);
    });

    it('the host’s own weekly limit refuses a booking days away from the week’s meetings, on a topic with no limit of its own', async () => {
      const acme = await newAccount();
      const topic = await createTopic(acme);
      await call(a.app, acme.apiKey, 'PUT', `/api/v1/users/${acme.owner.uuid}/limits`, { daily: null, weekly: 1 });
      expect((await book(acme, topic.uuid, ['2027-01-04T09:00:00.000Z'])).statusCode).toBe(201);
      // Friday afternoon is four days from Monday's meeting: the check still reads the whole week.
      expectProblem(await book(acme, topic.uuid, ['2027-01-08T16:00:00.000Z']), 409, 'SLOT_UNAVAILABLE');
      expect((await book(acme, topic.uuid, ['2027-01-11T09:00:00.000Z'])).statusCode).toBe(201);
    });

    it('a meeting moves within its full week: it does not count against itself', async () => {
      const acme = await newAccount();
      const topic = await createTopic(acme, { weeklyLimit: 1 });
      const booked = await book(acme, topic.uuid, ['2027-01-05T09:00:00.000Z']);
      expect(booked.statusCode).toBe(201);
      const uuid = booked.json().meetings[0].uuid as string;
      const moved = await call(a.app, acme.apiKey, 'POST', `/api/v1/meetings/${uuid}/reschedule`, { start: '2027-01-08T16:00:00.000Z' });
      expect(moved.statusCode, moved.body).toBe(200);
      // A second meeting that week is still refused.
      expectProblem(await book(acme, topic.uuid, ['2027-01-05T09:00:00.000Z']), 409, 'SLOT_UNAVAILABLE');
    });

    it('the host’s own limits apply across topics and show at once on the other instance', async () => {
      const acme = await newAccount();
      const first = await createTopic(acme);
      const second = await createTopic(acme, { name: 'Second' });
      const url = `/api/v1/users/${acme.owner.uuid}/limits`;
      expect((await call(a.app, acme.apiKey, 'GET', url)).json()).toEqual({ daily: null, weekly: null });
      expect(await slotsFrom(b, acme, second.uuid)).toContain('2027-01-05T12:00:00.000Z');
      expect((await book(acme, first.uuid, ['2027-01-05T09:00:00.000Z'])).statusCode).toBe(201);
      const set = await call(a.app, acme.apiKey, 'PUT', url, { daily: 1, weekly: null });
      expect(set.json()).toEqual({ daily: 1, weekly: null });
      const limited = await slotsFrom(b, acme, second.uuid);
      expect(limited.filter((start) => start.startsWith('2027-01-05'))).toEqual([]);
      expect(limited).toContain('2027-01-06T09:00:00.000Z');
      expectProblem(await book(acme, second.uuid, ['2027-01-05T12:00:00.000Z']), 409, 'SLOT_UNAVAILABLE');
      await call(a.app, acme.apiKey, 'PUT', url, { daily: null, weekly: null });
      expect(await slotsFrom(b, acme, second.uuid)).toContain('2027-01-05T12:00:00.000Z');
      for (const body of [{ daily: 0, weekly: null }, { daily: 1 }, { daily: 1, weekly: 501 }, { daily: 1.5, weekly: null }]) {
        expectProblem(await call(a.app, acme.apiKey, 'PUT', url, body), 400, 'VALIDATION_FAILED');
      }
      expect((await call(a.app, acme.apiKey, 'GET', url)).json()).toEqual({ daily: null, weekly: null });
    });
  });
}
