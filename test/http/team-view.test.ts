import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bumpCalendarVersions, replaceExternalBusy } from '../../src/db/repositories/busy-time.js';
import { isoWeekStartUtc } from '../../src/scheduling/booking/team-schedule.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

type Slot = { start: string; username: string };
type View = { username: string | null; days: { date: string; slots: Slot[] }[] };

for (const dialect of DIALECTS) {
  describe(`team view of POST /calculate-schedule [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let members: { uuid: string; username: string }[];

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
    });
    // A team of its own for every test: one test's bookings and busy times would otherwise
    // change which host another test's team view names.
    beforeEach(async () => {
      acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['offline', 'zoom'] });
      members = [];
      for (const [firstName, lastName] of [
        ['Bob', 'Berg'],
        ['Ada', 'Alt'],
      ] as const) {
        const member = await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName, lastName, email: `${firstName.toLowerCase()}@acme.test` });
        expect(member.statusCode).toBe(201);
        members.push(member.json());
      }
      // Ada works afternoons only, so mornings are Bob's and Olga's alone.
      const hours = { start: '13:00', end: '17:00' };
      const ada = members.find((member) => member.username.startsWith('ada'))!;
      const availability = {
        timezone: 'Europe/Warsaw',
        weekly: { monday: [hours], tuesday: [hours], wednesday: [hours], thursday: [hours], friday: [hours], saturday: [], sunday: [] },
        overrides: [],
      };
      expect((await call(t.app, acme.apiKey, 'PUT', `/api/v1/users/${ada.uuid}/availability`, availability)).statusCode).toBe(200);
    });
    afterAll(async () => t.close());

    const createTeamTopic = async (name: string) =>
      (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name, durationMinutes: 60, team: acme.team.uuid, places: ['zoom'] })).json() as {
        uuid: string;
        hosts: string[];
      };
    const teamView = async (topicUuid: string) => {
      const response = await call(t.app, null, 'POST', '/api/v1/calculate-schedule', {
        meetingTopic: topicUuid,
        team: acme.team.uuid,
        timezone: 'Europe/Warsaw',
        offset: 0,
        month: 1,
        year: 2027,
      });
      expect(response.statusCode).toBe(200);
      return response.json() as View;
    };
    const hostView = async (topicUuid: string, username: string) =>
      (
        await call(t.app, null, 'POST', '/api/v1/calculate-schedule', {
          username,
          meetingTopic: topicUuid,
          team: acme.team.uuid,
          timezone: 'Europe/Warsaw',
          offset: 0,
          month: 1,
          year: 2027,
        })
      ).json() as View;
    const slotsOf = (view: View) => view.days.flatMap((day) => day.slots);
    const book = (topicUuid: string, slot: Slot, email = 'jan@example.com') =>
      call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [slot],
        email,
        lang: 'pl',
        name: 'Jan',
        place: 'zoom',
        meetingTopic: topicUuid,
        team: acme.team.uuid,
        timezone: 'Europe/Warsaw',
      });

    it('offers the union of the hosts’ views, each slot naming a host free then, username null', async () => {
      const topic = await createTeamTopic('Union');
      expect(topic.hosts).toHaveLength(3);
      const view = await teamView(topic.uuid);
      expect(view.username).toBeNull();
      const perHost = new Map<string, Set<string>>();
      for (const username of topic.hosts) perHost.set(username, new Set(slotsOf(await hostView(topic.uuid, username)).map((slot) => slot.start)));
      const union = new Set([...perHost.values()].flatMap((starts) => [...starts]));
      const offered = slotsOf(view);
      expect(offered.length).toBeGreaterThan(0);
      expect(offered.map((slot) => slot.start)).toEqual([...union].sort());
      for (const slot of offered) expect(perHost.get(slot.username)?.has(slot.start), JSON.stringify(slot)).toBe(true);
      // Dates as in a host's view: every date of the range once, in order.
      expect(view.days.map((day) => day.date)).toEqual((await hostView(topic.uuid, topic.hosts[0]!)).days.map((day) => day.date));
    });

    it('names the free host with the fewest meetings of the topic that week, ties by username, the same every time', async () => {
      const topic = await createTeamTopic('Round robin');
      const before = slotsOf(await teamView(topic.uuid));
      const sorted = [...topic.hosts].sort();
      // No meetings yet: every afternoon slot (all three free) goes to the first username.
      const afternoon = before.filter((slot) => new Date(slot.start).getUTCHours() >= 12 && new Date(slot.start).getUTCHours() < 15);
      expect(afternoon.length).toBeGreaterThan(0);
      expect(new Set(afternoon.map((slot) => slot.username))).toEqual(new Set([sorted[0]]));
      expect(slotsOf(await teamView(topic.uuid))).toEqual(before);

      // Booking the first afternoon slot as returned gives the meeting to the host it named…
      const first = afternoon[0]!;
      const booked = await book(topic.uuid, first);
      expect(booked.statusCode).toBe(201);
      expect(booked.json().meetings[0].username).toBe(first.username);
      // …and that week's other afternoon slots go to the next username; another week's stay with the first.
      const after = slotsOf(await teamView(topic.uuid));
      const week = isoWeekStartUtc(Date.parse(first.start));
      const sameWeek = after.filter((slot) => isoWeekStartUtc(Date.parse(slot.start)) === week && afternoon.some((a) => a.start === slot.start));
      const otherWeek = after.filter((slot) => isoWeekStartUtc(Date.parse(slot.start)) !== week && afternoon.some((a) => a.start === slot.start));
      expect(sameWeek.length).toBeGreaterThan(0);
      expect(new Set(sameWeek.map((slot) => slot.username))).toEqual(new Set([sorted[1]]));
      expect(otherWeek.length).toBeGreaterThan(0);
      expect(new Set(otherWeek.map((slot) => slot.username))).toEqual(new Set([sorted[0]]));
      expect(slotsOf(await teamView(topic.uuid))).toEqual(after);
    });

    it('drops a host who becomes busy from that slot: another free host is named, or the slot goes', async () => {
      const topic = await createTeamTopic('Busy');
      const view = slotsOf(await teamView(topic.uuid));
      const shared = view.find((slot) => new Date(slot.start).getUTCHours() === 13)!;
      const named = topic.hosts.find((username) => username === shared.username)!;
      const namedUuid = named === acme.owner.username ? acme.owner.uuid : members.find((member) => member.username === named)!.uuid;
      // The named host's remote calendar now says they are busy then.
      await t.ctx.db.transaction().execute(async (trx) => {
        await replaceExternalBusy(trx, namedUuid, '00000000-0000-4000-8000-00000000beef', [
          { uuid: '00000000-0000-4000-8000-00000000b001', start: Date.parse(shared.start), end: Date.parse(shared.start) + 3_600_000 },
        ]);
        await bumpCalendarVersions(trx, [namedUuid]);
      });
      const again = slotsOf(await teamView(topic.uuid)).find((slot) => slot.start === shared.start)!;
      expect(again.username).not.toBe(named);
      // The others get busy too: no host is free, so the start is no longer offered.
      for (const host of [acme.owner.uuid, ...members.map((member) => member.uuid)].filter((uuid) => uuid !== namedUuid)) {
        await t.ctx.db.transaction().execute(async (trx) => {
          await replaceExternalBusy(trx, host, `00000000-0000-4000-8000-${host.slice(-12)}`, [
            { uuid: `00000000-0000-4000-9000-${host.slice(-12)}`, start: Date.parse(shared.start), end: Date.parse(shared.start) + 3_600_000 },
          ]);
          await bumpCalendarVersions(trx, [host]);
        });
      }
      expect(slotsOf(await teamView(topic.uuid)).map((slot) => slot.start)).not.toContain(shared.start);
      // Booking the slot as first returned is refused now: nobody is free.
      expectProblem(await book(topic.uuid, shared, 'late@example.com'), 409, 'SLOT_UNAVAILABLE');
    });

    it("computes a cold team view (the hosts' calendars read together) as each host's own cold view says", async () => {
      const topic = await createTeamTopic('Cold');
      const uuids = [acme.owner.uuid, ...members.map((member) => member.uuid)];
      // Each host busy at a different time, so a calendar read for the wrong host would show.
      const spans = ['2027-01-12T08:00:00.000Z', '2027-01-13T08:00:00.000Z', '2027-01-14T12:00:00.000Z'];
      await t.ctx.db.transaction().execute(async (trx) => {
        for (const [i, host] of uuids.entries()) {
          await replaceExternalBusy(trx, host, `00000000-0000-4000-8000-c01d0000000${i}`, [
            { uuid: `00000000-0000-4000-9000-c01d0000000${i}`, start: Date.parse(spans[i]!), end: Date.parse(spans[i]!) + 8 * 3_600_000 },
          ]);
        }
        await bumpCalendarVersions(trx, uuids);
      });
      const view = slotsOf(await teamView(topic.uuid));
      // Every host's own view computed afresh, alone.
      await bumpCalendarVersions(t.ctx.db, uuids);
      const perHost = new Map<string, Set<string>>();
      for (const username of topic.hosts) perHost.set(username, new Set(slotsOf(await hostView(topic.uuid, username)).map((slot) => slot.start)));
      const union = new Set([...perHost.values()].flatMap((starts) => [...starts]));
      expect(view.map((slot) => slot.start)).toEqual([...union].sort());
      for (const slot of view) expect(perHost.get(slot.username)?.has(slot.start), JSON.stringify(slot)).toBe(true);
      // The busy days are still offered, by the hosts who are free then.
      for (const start of spans) expect(view.some((slot) => slot.start === start)).toBe(true);
    });

    it('keeps username required for an individual topic (400 at /username)', async () => {
      const individual = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Solo', durationMinutes: 30, places: ['zoom'] })).json();
      const problem = expectProblem(
        await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { meetingTopic: individual.uuid, timezone: 'Europe/Warsaw', offset: 0 }),
        400,
        'VALIDATION_FAILED',
      );
      expect(problem.errors!.map((error) => error.path)).toEqual(['/username']);
    });
  });
}
