import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createContext, type AppContext } from '../../src/context.js';
import type { RenderedMessage } from '../../src/mail/message.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, runJobsCapturingMail, type TestApp } from '../helpers.js';

type Slot = { start: string; username: string };
type Member = { uuid: string; username: string; email: string };

/**
 * Collective team topics: a slot needs every host free, the meeting holds them all (each
 * blocked, each invited), and no host is ever booked twice, however the bookings race.
 */
for (const dialect of DIALECTS) {
  describe(`collective team topics [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let bob: Member;
    let cat: Member;
    let collective: { uuid: string };
    let catAlone: { uuid: string };
    let hosts: string[];

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
      acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['offline'] });
      const add = async (firstName: string) => {
        const response = await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName, lastName: 'Test', email: `${firstName}@acme.test` });
        expect(response.statusCode).toBe(201);
        return response.json() as Member;
      };
      bob = await add('Bob');
      cat = await add('Cat');
      // Bob works afternoons only: the collective topic offers only what all three share.
      const afternoons = Object.fromEntries(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [day, [] as unknown[]]));
      for (const day of ['monday', 'tuesday', 'wednesday', 'thursday', 'friday']) afternoons[day] = [{ start: '13:00', end: '17:00' }];
      expect((await call(t.app, acme.apiKey, 'PUT', `/api/v1/users/${bob.uuid}/availability`, { timezone: 'Europe/Warsaw', weekly: afternoons, overrides: [] })).statusCode).toBe(
        200,
      );
      const created = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
        name: 'Panel interview',
        durationMinutes: 60,
        team: acme.team.uuid,
        places: ['offline'],
        assignment: 'collective',
      });
      expect(created.statusCode).toBe(201);
      collective = created.json();
      hosts = created.json().hosts;
      expect(hosts).toHaveLength(3);
      catAlone = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Cat 1:1', durationMinutes: 60, places: ['offline'], hosts: [cat.username] })).json();
    });
    afterAll(async () => t.close());

    const view = async (topicUuid: string, username?: string, app = t.app) => {
      const team = topicUuid === catAlone.uuid ? {} : { team: acme.team.uuid };
      const response = await call(app, null, 'POST', '/api/v1/calculate-schedule', {
        meetingTopic: topicUuid,
        ...team,
        ...(username ? { username } : {}),
        timezone: 'Europe/Warsaw',
        offset: 0,
      });
      expect(response.statusCode).toBe(200);
      return (response.json().days as { slots: Slot[] }[]).flatMap((day) => day.slots);
    };
    let participants = 0;
    const book = (topicUuid: string, start: string, username: string, app = t.app) => {
      participants += 1;
      return call(app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [{ start, username }],
        email: `p${participants}@example.com`,
        lang: 'en',
        name: `P ${participants}`,
        place: 'offline',
        meetingTopic: topicUuid,
        ...(topicUuid === catAlone.uuid ? {} : { team: acme.team.uuid }),
        timezone: 'Europe/Warsaw',
      });
    };

    it('stores assignment, defaults to round-robin, and refuses a collective individual topic', async () => {
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${collective.uuid}`)).json().assignment).toBe('collective');
      const roundRobin = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'RR', durationMinutes: 30, team: acme.team.uuid, places: ['offline'] });
      expect(roundRobin.json().assignment).toBe('round-robin');
      const individual = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Solo', durationMinutes: 30, places: ['offline'], assignment: 'collective' });
      const problem = expectProblem(individual, 400, 'VALIDATION_FAILED');
      expect(problem.errors!.map((error) => error.path)).toContain('/assignment');
      const patched = await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${catAlone.uuid}`, { assignment: 'collective' });
      expectProblem(patched, 400, 'VALIDATION_FAILED');
      const seated = await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${collective.uuid}`, { seats: 5 });
      expect(expectProblem(seated, 400, 'VALIDATION_FAILED').errors!.map((error) => error.path)).toEqual(['/seats']);
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${collective.uuid}`)).json().seats).toBe(1);
    });

    it('offers only starts at which every host is free, the same in the team view and in each host view', async () => {
      const team = await view(collective.uuid);
      expect(team.length).toBeGreaterThan(0);
      // Bob's afternoons (13:00–17:00 Warsaw = 12:00–16:00 UTC in winter): nothing earlier, every slot naming the first host.
      for (const slot of team) {
        const hour = new Date(slot.start).getUTCHours();
        expect(hour).toBeGreaterThanOrEqual(12);
        expect(hour).toBeLessThan(16);
        expect(slot.username).toBe(hosts[0]);
      }
      for (const username of hosts) {
        const own = await view(collective.uuid, username);
        expect(own.map((slot) => slot.start)).toEqual(team.map((slot) => slot.start));
        expect(new Set(own.map((slot) => slot.username))).toEqual(new Set([username]));
      }
      // Cat alone would offer mornings: the intersection is narrower than any one host.
      expect((await view(catAlone.uuid, cat.username)).length).toBeGreaterThan(team.length);
    });

    it('a round-robin topic switched to collective (and back) changes its warm views at once', async () => {
      const topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Switch', durationMinutes: 60, team: acme.team.uuid, places: ['offline'] })).json();
      const roundRobin = (await view(topic.uuid)).map((slot) => slot.start);
      const together = (await view(collective.uuid)).map((slot) => slot.start);
      expect(roundRobin.length).toBeGreaterThan(together.length);
      expect((await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${topic.uuid}`, { assignment: 'collective' })).json().assignment).toBe('collective');
      expect((await view(topic.uuid)).map((slot) => slot.start)).toEqual(together);
      expect((await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${topic.uuid}`, { assignment: 'round-robin' })).statusCode).toBe(200);
      expect((await view(topic.uuid)).map((slot) => slot.start)).toEqual(roundRobin);
    });

    it('drops a start at once when any one host is booked elsewhere (warm cache)', async () => {
      const before = await view(collective.uuid);
      await view(collective.uuid, acme.owner.username);
      const target = before[0]!.start;
      expect((await book(catAlone.uuid, target, cat.username)).statusCode).toBe(201);
      expect((await view(collective.uuid)).map((slot) => slot.start)).not.toContain(target);
      expect((await view(collective.uuid, acme.owner.username)).map((slot) => slot.start)).not.toContain(target);
      // And booking it anyway is refused.
      expectProblem(await book(collective.uuid, target, acme.owner.username), 409, 'SLOT_UNAVAILABLE');
    });

    it('books all hosts: the record lists them, each is blocked and sees it, each gets the invitation', async () => {
      const slot = (await view(collective.uuid))[0]!;
      const booked = await book(collective.uuid, slot.start, bob.username);
      expect(booked.statusCode).toBe(201);
      const meeting = booked.json().meetings[0];
      expect(meeting.username).toBe(bob.username);
      expect([...meeting.hosts].sort()).toEqual([...hosts].sort());
      expect(meeting.hosts[0]).toBe(bob.username);
      // Cat (not the named host) is blocked: her own topic no longer offers that start, and booking it is refused.
      expect((await view(catAlone.uuid, cat.username)).map((offered) => offered.start)).not.toContain(slot.start);
      expectProblem(await book(catAlone.uuid, slot.start, cat.username), 409, 'SLOT_UNAVAILABLE');
      // Every host's list of meetings has it.
      for (const username of hosts) {
        const list = await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings?username=${username}`);
        expect(list.json().meetings.map((listed: { uuid: string }) => listed.uuid)).toContain(meeting.uuid);
      }
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${meeting.uuid}`)).json().hosts).toEqual(meeting.hosts);
      const sent: RenderedMessage[] = [];
      await runJobsCapturingMail(t.ctx, sent);
      const invited = sent.filter((message) => message.ics.method === 'REQUEST' && message.text.includes('Panel interview')).map((message) => message.to.email);
      for (const email of [acme.owner.email, bob.email, cat.email]) expect(invited).toContain(email);

      // Cancelled: every host gets the cancellation, and the time is free for each again.
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/cancel`, {})).statusCode).toBe(200);
      const cancels: RenderedMessage[] = [];
      await runJobsCapturingMail(t.ctx, cancels);
      const told = cancels.filter((message) => message.ics.method === 'CANCEL').map((message) => message.to.email);
      for (const email of [acme.owner.email, bob.email, cat.email]) expect(told).toContain(email);
      expect((await view(catAlone.uuid, cat.username)).map((offered) => offered.start)).toContain(slot.start);
    });

    it('moves a collective meeting with all its hosts', async () => {
      const [first, second] = await view(collective.uuid);
      const meeting = (await book(collective.uuid, first!.start, cat.username)).json().meetings[0];
      const moved = await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/reschedule`, { start: second!.start });
      expect(moved.statusCode).toBe(200);
      const catFree = (await view(catAlone.uuid, cat.username)).map((offered) => offered.start);
      expect(catFree).toContain(first!.start);
      expect(catFree).not.toContain(second!.start);
      expect((await view(collective.uuid, acme.owner.username)).map((offered) => offered.start)).not.toContain(second!.start);
      await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/cancel`, {});
    });

    it('of concurrent bookings of one collective slot, naming different hosts, exactly one succeeds', async () => {
      const slot = (await view(collective.uuid)).at(-1)!;
      const responses = await Promise.all([...hosts, ...hosts].map((username) => book(collective.uuid, slot.start, username)));
      expect(responses.filter((response) => response.statusCode === 201)).toHaveLength(1);
      for (const response of responses.filter((candidate) => candidate.statusCode !== 201)) expectProblem(response, 409, 'SLOT_UNAVAILABLE');
    });

    it('a collective booking racing a booking of one of its hosts: never both', async () => {
      const slots = (await view(collective.uuid)).slice(-8, -2);
      for (const slot of slots) {
        const [together, alone] = await Promise.all([book(collective.uuid, slot.start, acme.owner.username), book(catAlone.uuid, slot.start, cat.username)]);
        expect([together.statusCode, alone.statusCode].filter((status) => status === 201)).toHaveLength(1);
      }
    });

    it('books through the public booking page, and the manage link moves it with all hosts, itself not blocking', async () => {
      const open = (
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
          name: 'Open panel',
          durationMinutes: 60,
          team: acme.team.uuid,
          places: ['offline'],
          assignment: 'collective',
          public: true,
        })
      ).json();
      const [first, second] = (await view(open.uuid)).slice(-6);
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/public/schedule',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        payload: JSON.stringify({
          dates: [first],
          email: 'open@example.com',
          lang: 'en',
          name: 'Open',
          place: 'offline',
          meetingTopic: open.uuid,
          team: acme.team.uuid,
          timezone: 'Europe/Warsaw',
        }),
        remoteAddress: '10.9.0.1',
      });
      expect(response.statusCode, response.body).toBe(201);
      const booked = response.json() as { meetings: { uuid: string; hosts: string[] }[]; manageUrls: string[] };
      expect([...booked.meetings[0]!.hosts].sort()).toEqual([...hosts].sort());
      expect((await view(catAlone.uuid, cat.username)).map((slot) => slot.start)).not.toContain(first!.start);
      const token = new URL(booked.manageUrls[0]!).pathname.split('/booking/')[1]!;
      const calendar = await call(t.app, null, 'POST', `/api/v1/public/bookings/${token}/calculate-schedule`, { timezone: 'Europe/Warsaw', offset: 0 });
      const movable = (calendar.json().days as { slots: Slot[] }[]).flatMap((day) => day.slots).map((slot) => slot.start);
      // Its own time is offered to move within (it does not block itself for any of its hosts), the public view does not offer it.
      expect(movable).toContain(first!.start);
      expect((await view(open.uuid)).map((slot) => slot.start)).not.toContain(first!.start);
      const moved = await call(t.app, null, 'POST', `/api/v1/public/bookings/${token}/reschedule`, { start: second!.start });
      expect(moved.statusCode, moved.body).toBe(200);
      const catFree = (await view(catAlone.uuid, cat.username)).map((slot) => slot.start);
      expect(catFree).toContain(first!.start);
      expect(catFree).not.toContain(second!.start);
    });

    it('reminds every host of a collective meeting (runs last: it moves the clock)', async () => {
      const reminded = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
        name: 'Reminded panel',
        durationMinutes: 60,
        team: acme.team.uuid,
        places: ['offline'],
        assignment: 'collective',
        reminders: [{ minutesBefore: 60, channel: 'email', to: 'host' }],
      });
      expect(reminded.statusCode).toBe(201);
      const slot = (await view(reminded.json().uuid)).at(-3)!;
      expect((await book(reminded.json().uuid, slot.start, cat.username)).statusCode).toBe(201);
      await runJobsCapturingMail(t.ctx, []);
      t.clock.set(Date.parse(slot.start) - 60 * 60_000);
      const sent: RenderedMessage[] = [];
      await runJobsCapturingMail(t.ctx, sent);
      const reminders = sent.filter((message) => message.subject.startsWith('Reminder: Reminded panel')).map((message) => message.to.email);
      expect(reminders.sort()).toEqual([acme.owner.email, bob.email, cat.email].sort());
      t.clock.set('2027-01-04T06:00:00.000Z');
    });

    describe('two instances over one database', () => {
      let bCtx: AppContext;
      let b: Awaited<ReturnType<typeof buildApp>>;
      beforeAll(async () => {
        bCtx = await createContext(t.ctx.config, { now: t.clock.now, log: pino({ level: 'silent' }) });
        b = await buildApp(bCtx);
      });
      afterAll(async () => {
        await b?.close();
        await bCtx?.close();
      });

      it("a booking of one co-host on one instance drops the slot from the other's cached collective views", async () => {
        const warm = await view(collective.uuid, undefined, b);
        await view(collective.uuid, bob.username, b);
        const target = warm[0]!.start;
        expect((await book(catAlone.uuid, target, cat.username, t.app)).statusCode).toBe(201);
        expect((await view(collective.uuid, undefined, b)).map((slot) => slot.start)).not.toContain(target);
        expect((await view(collective.uuid, bob.username, b)).map((slot) => slot.start)).not.toContain(target);
        expectProblem(await book(collective.uuid, target, bob.username, b), 409, 'SLOT_UNAVAILABLE');
      });

      it('concurrent collective bookings on two instances: exactly one', async () => {
        const slot = (await view(collective.uuid)).at(-1)!;
        const responses = await Promise.all([t.app, b, t.app, b].map((app, i) => book(collective.uuid, slot.start, hosts[i % hosts.length]!, app)));
        expect(responses.filter((response) => response.statusCode === 201)).toHaveLength(1);
      });
    });
  });
}
