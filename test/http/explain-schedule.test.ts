import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bumpCalendarVersions, replaceExternalBusy } from '../../src/db/repositories/busy-time.js';
import { createApiKeyForUser } from '../../src/scheduling/account/api-keys.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

// Monday 2027-01-04 07:00 in Warsaw (UTC+1); the default hours are Mon–Fri 09:00–17:00 there.
const START = '2027-01-04T06:00:00.000Z';
const CALENDAR = '00000000-0000-4000-8000-00000000ca1e';

interface Reason {
  code: string;
  detail: string;
  [key: string]: unknown;
}
interface Explanation {
  start: string;
  end: string;
  offered: boolean;
  reasons: Reason[];
}

/** POST /explain-schedule answers from the engine's own trace, to whom may ask, without other people's meetings. */
for (const dialect of DIALECTS) {
  describe(`explain-schedule [${dialect}]`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(dialect, createClock(START));
    });
    afterAll(async () => {
      await t.close();
    });

    const setUp = async () => {
      const acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['offline'] });
      const topic = (
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30, bufferAfterMinutes: 15, places: ['offline'] })
      ).json() as {
        uuid: string;
      };
      const member = (
        await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Mia', lastName: 'Member', email: `mia-${acme.team.uuid}@acme.test` })
      ).json() as { uuid: string; username: string };
      const memberKey = (await createApiKeyForUser(t.ctx, member.uuid)).apiKey;
      const teamTopic = (
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Team intro', durationMinutes: 30, team: acme.team.uuid, places: ['offline'] })
      ).json() as { uuid: string };
      const book = async (start: string, meetingTopic: string) => {
        const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
          dates: [{ start, username: acme.owner.username }],
          email: 'pat@example.com',
          lang: 'en',
          name: 'Pat',
          place: 'offline',
          meetingTopic,
          timezone: 'Europe/Warsaw',
          ...(meetingTopic === teamTopic.uuid ? { team: acme.team.uuid } : {}),
        });
        expect(response.statusCode, response.body).toBe(201);
        return response.json().meetings[0] as { uuid: string };
      };
      const explain = async (start: string, key = acme.apiKey, meetingTopic = topic.uuid, extra: Record<string, unknown> = {}) => {
        const response = await call(t.app, key, 'POST', '/api/v1/explain-schedule', { username: acme.owner.username, meetingTopic, start, ...extra });
        expect(response.statusCode, response.body).toBe(200);
        return response.json() as Explanation;
      };
      const offeredStarts = async (meetingTopic = topic.uuid, extra: Record<string, unknown> = {}) => {
        const response = await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic, timezone: 'UTC', offset: 0, ...extra });
        expect(response.statusCode, response.body).toBe(200);
        return new Set((response.json().days as { slots: { start: string }[] }[]).flatMap((day) => day.slots.map((slot) => slot.start)));
      };
      return { acme, topic, teamTopic, member, memberKey, book, explain, offeredStarts };
    };

    it('names the meeting, the buffer and the remote calendar span in the way, and agrees with the month view', async () => {
      const { acme, topic, book, explain, offeredStarts } = await setUp();
      // Wednesday 09:00–09:30 local, with the topic's 15 minutes after it.
      const meeting = await book('2027-01-06T08:00:00.000Z', topic.uuid);
      await t.ctx.db.transaction().execute(async (trx) => {
        await replaceExternalBusy(trx, acme.owner.uuid, CALENDAR, [
          { uuid: '00000000-0000-4000-8000-0000000000e1', start: Date.parse('2027-01-06T10:00:00.000Z'), end: Date.parse('2027-01-06T11:00:00.000Z') },
        ]);
        await bumpCalendarVersions(trx, [acme.owner.uuid]);
      });

      const taken = await explain('2027-01-06T08:00:00.000Z');
      expect(taken).toMatchObject({ start: '2027-01-06T08:00:00.000Z', end: '2027-01-06T08:30:00.000Z', offered: false });
      expect(taken.reasons).toEqual([
        {
          code: 'MEETING',
          detail: expect.stringContaining('2027-01-06 09:00–2027-01-06 09:30 (Europe/Warsaw)'),
          meetingUuid: meeting.uuid,
          start: '2027-01-06T08:00:00.000Z',
          end: '2027-01-06T08:30:00.000Z',
        },
      ]);
      const buffered = await explain('2027-01-06T08:30:00.000Z');
      expect(buffered.reasons).toEqual([expect.objectContaining({ code: 'BUFFER', meetingUuid: meeting.uuid, bufferAfterMinutes: 15, bufferBeforeMinutes: 0 })]);
      const calendar = await explain('2027-01-06T10:30:00.000Z');
      expect(calendar.reasons).toEqual([
        { code: 'CALENDAR_EVENT', detail: expect.any(String), calendarUuid: CALENDAR, from: '2027-01-06T10:00:00.000Z', to: '2027-01-06T11:00:00.000Z' },
      ]);
      // Every reason, not the first: off the grid and inside the meeting.
      expect((await explain('2027-01-06T08:10:00.000Z')).reasons.map((reason) => reason.code)).toEqual(['OFF_GRID', 'MEETING']);
      expect((await explain('2027-01-06T08:10:00.000Z')).reasons[0]).toMatchObject({ previous: '2027-01-06T08:00:00.000Z', next: '2027-01-06T08:30:00.000Z' });

      const offered = await offeredStarts();
      for (const start of [
        '2027-01-06T08:00:00.000Z',
        '2027-01-06T08:30:00.000Z',
        '2027-01-06T09:00:00.000Z',
        '2027-01-06T10:30:00.000Z',
        '2027-01-06T11:00:00.000Z',
        '2027-01-09T09:00:00.000Z',
      ]) {
        const answer = await explain(start);
        expect(answer.offered, start).toBe(offered.has(start));
        expect(answer.reasons.length === 0, start).toBe(answer.offered);
      }
    });

    it("explains the host's own weekly limit, full with a meeting earlier that week, as the month view refuses the start", async () => {
      const { acme, topic, book, explain, offeredStarts } = await setUp();
      expect((await call(t.app, acme.apiKey, 'PUT', `/api/v1/users/${acme.owner.uuid}/limits`, { daily: null, weekly: 1 })).statusCode).toBe(200);
      // Monday afternoon's meeting fills the week (Monday first): Friday is free on the clock, the topic has no limit of its own,
      // and only a read of the whole week around Friday sees the meeting.
      await book('2027-01-04T14:00:00.000Z', topic.uuid);
      const friday = '2027-01-08T09:00:00.000Z';
      const explained = await explain(friday);
      expect(explained.offered).toBe(false);
      expect(explained.reasons).toEqual([{ code: 'WEEKLY_LIMIT', detail: expect.any(String), scope: 'host', limit: 1, count: 1 }]);
      expect((await offeredStarts()).has(friday)).toBe(false);
      // The next week is free again, in both (its seven days: offset 7).
      const nextFriday = '2027-01-15T09:00:00.000Z';
      expect((await offeredStarts(topic.uuid, { offset: 7 })).has(nextFriday)).toBe(true);
      expect(await explain(nextFriday)).toMatchObject({ offered: true, reasons: [] });
    });

    it('explains hours, notice and the booking window with their context', async () => {
      const { explain } = await setUp();
      // Saturday: no weekly hours.
      expect((await explain('2027-01-09T09:00:00.000Z')).reasons).toEqual([
        { code: 'OUTSIDE_HOURS', detail: 'The host has no hours on 2027-01-09 (Europe/Warsaw).', schedule: 'default', date: '2027-01-09', hours: [] },
      ]);
      // Monday 16:45 local: off the half-hour grid, and the meeting would run past 17:00.
      expect((await explain('2027-01-04T15:45:00.000Z')).reasons).toEqual([
        {
          code: 'OFF_GRID',
          detail: "It is not on the topic's slot grid; the nearest grid starts are 2027-01-04 16:30 (Europe/Warsaw).",
          previous: '2027-01-04T15:30:00.000Z',
          next: null,
        },
        expect.objectContaining({ code: 'OUTSIDE_HOURS', date: '2027-01-04', hours: [{ start: '09:00', end: '17:00' }] }),
      ]);
      // Earlier today than now, and a year out (window 60 days).
      expect((await explain('2027-01-04T05:30:00.000Z')).reasons.map((reason) => reason.code)).toEqual(['OUTSIDE_HOURS', 'MINIMUM_NOTICE']);
      expect((await explain('2028-01-04T09:00:00.000Z')).reasons).toEqual([{ code: 'BOOKING_WINDOW', detail: expect.any(String), latest: '2027-03-05T06:00:00.000Z' }]);
    });

    it('lets a plain member ask about a team topic without learning which meeting is in the way; not about another host’s own topic', async () => {
      const { acme, topic, teamTopic, memberKey, book, explain } = await setUp();
      const meeting = await book('2027-01-07T08:00:00.000Z', teamTopic.uuid);
      const asOwner = await explain('2027-01-07T08:00:00.000Z', acme.apiKey, teamTopic.uuid, { team: acme.team.uuid });
      expect(asOwner.reasons).toEqual([expect.objectContaining({ code: 'MEETING', meetingUuid: meeting.uuid })]);
      const asMember = await explain('2027-01-07T08:00:00.000Z', memberKey, teamTopic.uuid, { team: acme.team.uuid });
      expect(asMember.reasons).toEqual([expect.objectContaining({ code: 'MEETING', meetingUuid: null, start: '2027-01-07T08:00:00.000Z' })]);
      expect(JSON.stringify(asMember)).not.toContain(meeting.uuid);
      const forbidden = await call(t.app, memberKey, 'POST', '/api/v1/explain-schedule', {
        username: acme.owner.username,
        meetingTopic: topic.uuid,
        start: '2027-01-07T08:00:00.000Z',
      });
      expectProblem(forbidden, 403, 'FORBIDDEN');
    });

    it("never names a deactivated user's meeting times: one who is no host of the topic is 404 as an unknown username, a deactivated host is HOST_INACTIVE alone", async () => {
      const { acme, member, teamTopic } = await setUp();
      const pia = (
        await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Pia', lastName: 'Plain', email: `pia-${acme.team.uuid}@acme.test` })
      ).json() as { uuid: string };
      const piaKey = (await createApiKeyForUser(t.ctx, pia.uuid)).apiKey;
      // Mia hosts her own (individual) topic and the team's; she has a meeting on each, then leaves her last team.
      const own = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Mia solo', durationMinutes: 30, hosts: [member.username], places: ['offline'] });
      expect(own.statusCode, own.body).toBe(201);
      const bookMia = async (meetingTopic: string, start: string, team?: string) => {
        const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
          dates: [{ start, username: member.username }],
          email: 'pat@example.com',
          lang: 'en',
          name: 'Pat',
          place: 'offline',
          meetingTopic,
          timezone: 'Europe/Warsaw',
          ...(team ? { team } : {}),
        });
        expect(response.statusCode, response.body).toBe(201);
      };
      await bookMia(teamTopic.uuid, '2027-01-06T09:00:00.000Z', acme.team.uuid);
      await bookMia(own.json().uuid, '2027-01-07T09:00:00.000Z');
      expect((await call(t.app, acme.apiKey, 'DELETE', `/api/v1/teams/${acme.team.uuid}/users/${member.uuid}`)).statusCode).toBe(204);

      // No longer a host of the team topic (leaving the team ended that): any key naming her learns nothing, as for a name never used.
      for (const key of [piaKey, acme.apiKey]) {
        for (const username of [member.username, 'nobody-at-all']) {
          const response = await call(t.app, key, 'POST', '/api/v1/explain-schedule', {
            username,
            meetingTopic: teamTopic.uuid,
            team: acme.team.uuid,
            start: '2027-01-06T09:00:00.000Z',
          });
          const problem = expectProblem(response, 404, 'NOT_FOUND');
          expect(problem.detail).toContain(`host "${username}" of this meeting topic`);
          expect(response.body).not.toContain('2027-01-06T09:30');
        }
      }
      // Still listed on her individual topic: the owner is told she is deactivated, and nothing about the meeting at that time.
      const asOwner = await call(t.app, acme.apiKey, 'POST', '/api/v1/explain-schedule', {
        username: member.username,
        meetingTopic: own.json().uuid,
        start: '2027-01-07T09:00:00.000Z',
      });
      expect(asOwner.statusCode, asOwner.body).toBe(200);
      expect(asOwner.json()).toEqual({
        start: '2027-01-07T09:00:00.000Z',
        end: '2027-01-07T09:30:00.000Z',
        offered: false,
        reasons: [{ code: 'HOST_INACTIVE', detail: 'The host is deactivated: they offer no times at all.' }],
        timezone: 'Europe/Warsaw',
      });
      // A plain member may not ask about an individual topic of someone they do not manage.
      expectProblem(
        await call(t.app, piaKey, 'POST', '/api/v1/explain-schedule', { username: member.username, meetingTopic: own.json().uuid, start: '2027-01-07T09:00:00.000Z' }),
        403,
        'FORBIDDEN',
      );
    });

    it("explains a collective topic by every host: a co-host's busy calendar keeps the start out of both views and is named with its host", async () => {
      const { acme, member, memberKey, offeredStarts } = await setUp();
      const created = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
        name: 'Panel',
        durationMinutes: 30,
        team: acme.team.uuid,
        assignment: 'collective',
        hosts: [acme.owner.username, member.username],
        places: ['offline'],
      });
      expect(created.statusCode, created.body).toBe(201);
      const panel = created.json().uuid as string;
      const start = '2027-01-07T09:00:00.000Z'; // Thursday 10:00 in Warsaw, inside both hosts' hours
      const ask = async (key = acme.apiKey) => {
        const response = await call(t.app, key, 'POST', '/api/v1/explain-schedule', { username: acme.owner.username, meetingTopic: panel, team: acme.team.uuid, start });
        expect(response.statusCode, response.body).toBe(200);
        return response.json() as Explanation;
      };
      expect(await ask()).toMatchObject({ offered: true, reasons: [] });
      expect((await offeredStarts(panel, { team: acme.team.uuid })).has(start)).toBe(true);

      // Only the member's remote calendar is busy then: the owner alone would be free.
      await t.ctx.db.transaction().execute(async (trx) => {
        await replaceExternalBusy(trx, member.uuid, CALENDAR, [
          { uuid: '00000000-0000-4000-8000-0000000000e2', start: Date.parse('2027-01-07T08:45:00.000Z'), end: Date.parse('2027-01-07T09:45:00.000Z') },
        ]);
        await bumpCalendarVersions(trx, [member.uuid]);
      });
      expect((await offeredStarts(panel, { team: acme.team.uuid })).has(start)).toBe(false);
      const explained = await ask();
      expect(explained.offered).toBe(false);
      expect(explained.reasons).toEqual([
        expect.objectContaining({ code: 'CALENDAR_EVENT', username: member.username, from: '2027-01-07T08:45:00.000Z', to: '2027-01-07T09:45:00.000Z' }),
      ]);
      expect(explained.reasons[0]!.detail.startsWith(`${member.username}: `)).toBe(true);
      // The member may ask too (a team topic) and hears the same.
      expect((await ask(memberKey)).reasons.map((reason) => [reason.code, reason.username])).toEqual([['CALENDAR_EVENT', member.username]]);
    });

    it('refuses bad input, strangers and other accounts with problem details', async () => {
      const { acme, topic, teamTopic } = await setUp();
      const other = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['offline'] });
      const body = { username: acme.owner.username, meetingTopic: topic.uuid, start: '2027-01-06T08:00:00.000Z' };
      expectProblem(await call(t.app, null, 'POST', '/api/v1/explain-schedule', body), 401, 'UNAUTHENTICATED');
      expectProblem(await call(t.app, other.apiKey, 'POST', '/api/v1/explain-schedule', body), 404, 'NOT_FOUND');
      const badStart = expectProblem(await call(t.app, acme.apiKey, 'POST', '/api/v1/explain-schedule', { ...body, start: '2027-01-06 09:00' }), 400, 'VALIDATION_FAILED');
      expect(badStart.errors?.map((error) => error.path)).toContain('/start');
      expectProblem(await call(t.app, acme.apiKey, 'POST', '/api/v1/explain-schedule', { ...body, startt: 'x' }), 400, 'VALIDATION_FAILED');
      const noTeam = expectProblem(await call(t.app, acme.apiKey, 'POST', '/api/v1/explain-schedule', { ...body, meetingTopic: teamTopic.uuid }), 400, 'VALIDATION_FAILED');
      expect(noTeam.errors?.map((error) => error.path)).toEqual(['/team']);
      expectProblem(await call(t.app, acme.apiKey, 'POST', '/api/v1/explain-schedule', { ...body, username: 'nobody-here' }), 404, 'NOT_FOUND');
    });
  });
}
