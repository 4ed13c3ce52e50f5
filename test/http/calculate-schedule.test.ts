import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

type Day = { date: string; slots: { start: string; username: string }[] };

for (const dialect of DIALECTS) {
  describe(`POST /calculate-schedule [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let other: CreatedAccount;
    let topic: { uuid: string };
    let teamTopic: { uuid: string };

    beforeAll(async () => {
      // Monday 2027-01-04, 08:00 UTC = 09:00 in Warsaw.
      t = await createTestApp(dialect, createClock('2027-01-04T08:00:00.000Z'));
      acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw' });
      other = await createTestAccount(t.ctx);
      topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30 })).json();
      teamTopic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Team', durationMinutes: 60, team: acme.team.uuid })).json();
    });
    afterAll(async () => t.close());

    const calculate = (body: Record<string, unknown>, key: string | null = null) => call(t.app, key, 'POST', '/api/v1/calculate-schedule', body);

    it("answers without a key: 7 dates from today in the participant zone, slots on the host's hours", async () => {
      const response = await calculate({ username: acme.owner.username, meetingTopic: topic.uuid, timezone: 'Europe/Warsaw', offset: 0 });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body).toMatchObject({
        username: acme.owner.username,
        meetingTopic: topic.uuid,
        team: null,
        timezone: 'Europe/Warsaw',
        durationMinutes: 30,
        from: '2027-01-04',
        to: '2027-01-10',
      });
      expect(body.days.map((d: Day) => d.date)).toEqual(['2027-01-04', '2027-01-05', '2027-01-06', '2027-01-07', '2027-01-08', '2027-01-09', '2027-01-10']);
      const monday = body.days[0] as Day;
      expect(monday.slots).toHaveLength(16);
      expect(monday.slots[0]).toEqual({ start: '2027-01-04T08:00:00.000Z', username: acme.owner.username });
      expect(monday.slots.at(-1)!.start).toBe('2027-01-04T15:30:00.000Z');
      expect(body.days[5].slots).toEqual([]);
      expect(body.days[6].slots).toEqual([]);
    });

    it("moves by offset and groups slots under the participant's local dates", async () => {
      const tokyo = (await calculate({ username: acme.owner.username, meetingTopic: topic.uuid, timezone: 'Asia/Tokyo', offset: 7 })).json();
      expect([tokyo.from, tokyo.to]).toEqual(['2027-01-11', '2027-01-17']);
      // 09:00–17:00 Warsaw is 17:00–01:00 Tokyo: the last slots of a Warsaw day fall on the next Tokyo date.
      const monday = tokyo.days[0] as Day;
      expect(monday.slots[0]!.start).toBe('2027-01-11T08:00:00.000Z');
      const tuesday = tokyo.days[1] as Day;
      expect(tuesday.slots[0]!.start).toBe('2027-01-11T15:00:00.000Z');
    });

    it('lists a whole month, counting months past 12 into later years', async () => {
      const march = (await calculate({ username: acme.owner.username, meetingTopic: topic.uuid, timezone: 'America/New_York', offset: 0, month: 14 })).json();
      expect([march.from, march.to]).toEqual(['2028-02-01', '2028-02-29']);
      expect(march.days).toHaveLength(29);
      // The default 60-day booking window ends long before February 2028.
      expect(march.days.every((d: Day) => d.slots.length === 0)).toBe(true);
      const feb = (await calculate({ username: acme.owner.username, meetingTopic: topic.uuid, timezone: 'UTC', offset: 0, month: 2, year: 2027 })).json();
      expect([feb.from, feb.to]).toEqual(['2027-02-01', '2027-02-28']);
      expect(feb.days.filter((d: Day) => d.slots.length > 0).length).toBeGreaterThan(15);
    });

    it('validates with JSON Pointer paths', async () => {
      const base = { username: acme.owner.username, meetingTopic: topic.uuid, timezone: 'Europe/Warsaw', offset: 0 };
      for (const [patch, path] of [
        [{ offset: 5 }, '/offset'],
        [{ offset: -7 }, '/offset'],
        [{ offset: '7' }, '/offset'],
        [{ month: 0 }, '/month'],
        [{ timezone: 'Mars/Olympus' }, '/timezone'],
        [{ unexpected: true }, '/unexpected'],
      ] as const) {
        const problem = expectProblem(await calculate({ ...base, ...patch }), 400, 'VALIDATION_FAILED');
        expect(problem.errors!.map((e) => e.path)).toContain(path);
      }
      const { offset: _offset, ...withoutOffset } = base;
      expect(expectProblem(await calculate(withoutOffset), 400, 'VALIDATION_FAILED').errors).toEqual([{ path: '/offset', message: 'is required' }]);
    });

    it('answers a body sent again byte for byte from the calendar as it is now, and refuses a bad one each time', async () => {
      // Kept once validated (repeated-bodies.ts): the repeat is neither parsed nor validated again.
      const body = { username: acme.owner.username, meetingTopic: topic.uuid.toUpperCase(), timezone: 'Europe/Warsaw', offset: 7 };
      const first = await calculate(body);
      expect(first.statusCode).toBe(200);
      expect(first.json().meetingTopic).toBe(topic.uuid);
      const taken = (first.json().days[0] as Day).slots[0]!.start;
      const booked = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [{ start: taken, username: acme.owner.username }],
        email: 'p@example.com',
        lang: 'en',
        name: 'P',
        place: 'zoom',
        meetingTopic: topic.uuid,
        timezone: 'UTC',
      });
      expect(booked.statusCode).toBe(201);
      const again = await calculate(body);
      expect(again.statusCode).toBe(200);
      expect(again.json().meetingTopic).toBe(topic.uuid);
      expect((again.json().days[0] as Day).slots.map((slot) => slot.start)).not.toContain(taken);
      for (let i = 0; i < 2; i += 1) {
        const problem = expectProblem(await calculate({ ...body, offset: '7' }), 400, 'VALIDATION_FAILED');
        expect(problem.errors!.map((e) => e.path)).toEqual(['/offset']);
        const zone = expectProblem(await calculate({ ...body, timezone: 'Mars/Olympus' }), 400, 'VALIDATION_FAILED');
        expect(zone.errors!.map((e) => e.path)).toEqual(['/timezone']);
      }
    });

    it("answers 404 for unknown hosts and topics, and for another account's topic when a key is sent", async () => {
      expectProblem(await calculate({ username: 'nobody', meetingTopic: topic.uuid, timezone: 'UTC', offset: 0 }), 404, 'NOT_FOUND');
      expectProblem(await calculate({ username: acme.owner.username, meetingTopic: '00000000-0000-4000-8000-000000000000', timezone: 'UTC', offset: 0 }), 404, 'NOT_FOUND');
      expectProblem(await calculate({ username: acme.owner.username, meetingTopic: topic.uuid, timezone: 'UTC', offset: 0 }, other.apiKey), 404, 'NOT_FOUND');
      expectProblem(await calculate({ username: acme.owner.username, meetingTopic: topic.uuid, timezone: 'UTC', offset: 0 }, 'tmn_bogus'), 401, 'UNAUTHENTICATED');
      expect((await calculate({ username: acme.owner.username, meetingTopic: topic.uuid, timezone: 'UTC', offset: 0 }, acme.apiKey)).statusCode).toBe(200);
    });

    it('ignores a team sent for an individual topic', async () => {
      const response = await calculate({ username: acme.owner.username, meetingTopic: topic.uuid, timezone: 'UTC', offset: 0, team: acme.team.uuid });
      expect(response.statusCode).toBe(200);
      expect(response.json().team).toBeNull();
    });

    it('requires the team of a team topic', async () => {
      const base = { username: acme.owner.username, meetingTopic: teamTopic.uuid, timezone: 'UTC', offset: 0 };
      expect(expectProblem(await calculate(base), 400, 'VALIDATION_FAILED').errors![0]!.path).toBe('/team');
      expectProblem(await calculate({ ...base, team: other.team.uuid }), 404, 'NOT_FOUND');
      const ok = await calculate({ ...base, team: acme.team.uuid });
      expect(ok.statusCode).toBe(200);
      expect(ok.json().team).toBe(acme.team.uuid);
      expect(ok.json().days[0].slots).toHaveLength(8);
    });
  });
}
