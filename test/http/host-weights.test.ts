import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

type Slot = { start: string; username: string };

/** Weighted round robin through the API: shares of real bookings follow `hostWeights`. */
for (const dialect of DIALECTS) {
  describe(`host weights [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let bob: { uuid: string; username: string };

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
      acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['offline'] });
      const member = await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Bob', lastName: 'Berg', email: 'bob@acme.test' });
      expect(member.statusCode).toBe(201);
      bob = member.json();
    });
    afterAll(async () => t.close());

    const createTopic = async (fields: Record<string, unknown>) =>
      call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Sales call', durationMinutes: 30, team: acme.team.uuid, places: ['offline'], ...fields });
    const teamSlots = async (topicUuid: string) => {
      const response = await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { meetingTopic: topicUuid, team: acme.team.uuid, timezone: 'Europe/Warsaw', offset: 0 });
      expect(response.statusCode).toBe(200);
      return (response.json().days as { slots: Slot[] }[]).flatMap((day) => day.slots);
    };

    it('gives the host of weight 3 three bookings for each one of the host of weight 1', async () => {
      const created = await createTopic({ hostWeights: { [acme.owner.username]: 3 } });
      expect(created.statusCode).toBe(201);
      const topic = created.json() as { uuid: string; hostWeights: Record<string, number> };
      expect(topic.hostWeights).toEqual({ [acme.owner.username]: 3 });
      const counts = new Map<string, number>();
      // Eight participants each take the first time nobody has booked yet (so both hosts are free there), all in one week.
      const taken = new Set<string>();
      for (let i = 0; i < 8; i += 1) {
        const slot = (await teamSlots(topic.uuid)).find((offered) => !taken.has(offered.start));
        taken.add(slot!.start);
        const booked = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
          dates: [slot],
          email: `p${i}@example.com`,
          lang: 'en',
          name: `P ${i}`,
          place: 'offline',
          meetingTopic: topic.uuid,
          team: acme.team.uuid,
          timezone: 'Europe/Warsaw',
        });
        expect(booked.statusCode).toBe(201);
        counts.set(slot!.username, (counts.get(slot!.username) ?? 0) + 1);
      }
      expect(Object.fromEntries(counts)).toEqual({ [acme.owner.username]: 6, [bob.username]: 2 });
    });

    it('a change of weights changes the team view at once', async () => {
      const topic = (await createTopic({})).json() as { uuid: string };
      // Equal weights, nobody booked: the smaller username first (at the view's last time: the other test's bookings are earlier).
      const first = (await teamSlots(topic.uuid)).at(-1);
      const smaller = [acme.owner.username, bob.username].sort()[0]!;
      const larger = [acme.owner.username, bob.username].sort()[1]!;
      expect(first!.username).toBe(smaller);
      expect((await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${topic.uuid}`, { hostWeights: { [larger]: 5 } })).statusCode).toBe(200);
      expect((await teamSlots(topic.uuid)).at(-1)!.username).toBe(larger);
    });

    it.each([
      ['a weight of 0', (owner: string) => ({ hostWeights: { [owner]: 0 } }), '/hostWeights/'],
      ['a weight of 101', (owner: string) => ({ hostWeights: { [owner]: 101 } }), '/hostWeights/'],
      ['a weight for someone not a host', () => ({ hostWeights: { 'no-such-user': 2 } }), '/hostWeights/no-such-user'],
      ['weights on an individual topic', (owner: string) => ({ team: null, hostWeights: { [owner]: 2 } }), '/hostWeights'],
    ])('refuses %s with a 400 naming the field', async (_name, fields, path) => {
      const response = await createTopic(fields(acme.owner.username));
      const problem = expectProblem(response, 400, 'VALIDATION_FAILED');
      expect(problem.errors!.some((error) => error.path.startsWith(path))).toBe(true);
    });
  });
}
