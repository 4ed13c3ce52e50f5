import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, call, createClock, createTestAccount, createTwoInstances, type TestApp, type TwoInstances } from '../helpers.js';

type Slot = { start: string; username: string };

/**
 * Time off with a stand-in (issue 41 item 4): where the host is away, a team topic's round
 * robin and the host's own link offer the stand-in, with the stand-in's name; booking it
 * locks the stand-in as a host, so concurrent bookings of the stand-in through the host's
 * topic and through their own never double-book them. Monday 2027-01-04 06:00 UTC; UTC hours.
 */
for (const dialect of DIALECTS) {
  describe(`time off with a stand-in [${dialect}]`, () => {
    let instances: TwoInstances;
    let a: TestApp;
    let b: TwoInstances['b'];

    beforeAll(async () => {
      instances = await createTwoInstances(dialect, createClock('2027-01-04T06:00:00.000Z'));
      ({ a, b } = instances);
    });
    afterAll(async () => {
      await instances?.close();
    });

    /** Olga (the owner) away all Tuesday 2027-01-12 with Dana standing in; Dana hosts none of Olga's topics. */
    async function setUp() {
      const acme = await createTestAccount(a.ctx, { timezone: 'UTC', places: ['zoom'] });
      const added = await call(a.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, {
        firstName: 'Dana',
        lastName: 'Deputy',
        email: `dana-${acme.account.uuid}@acme.test`,
      });
      expect(added.statusCode, added.body).toBe(201);
      const dana = added.json() as { uuid: string; username: string };
      const topic = async (fields: Record<string, unknown>) => {
        const response = await call(a.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Call', durationMinutes: 60, places: ['zoom'], ...fields });
        expect(response.statusCode, response.body).toBe(201);
        return response.json() as { uuid: string };
      };
      const team = await topic({ team: acme.team.uuid, hosts: [acme.owner.username] });
      const own = await topic({});
      const away = await call(a.app, acme.apiKey, 'POST', `/api/v1/users/${acme.owner.uuid}/time-off`, {
        start: '2027-01-12T00:00:00Z',
        end: '2027-01-13T00:00:00Z',
        delegate: dana.username,
      });
      expect(away.statusCode, away.body).toBe(201);
      return { acme, dana, team, own };
    }
    const slotsOn = async (body: Record<string, unknown>, date: string) => {
      const response = await call(b, null, 'POST', '/api/v1/calculate-schedule', { timezone: 'UTC', offset: 0, month: 1, year: 2027, ...body });
      expect(response.statusCode, response.body).toBe(200);
      return (response.json().days as { date: string; slots: Slot[] }[]).find((day) => day.date === date)?.slots ?? [];
    };
    const booking = (topicUuid: string, start: string, username: string, extra: Record<string, unknown> = {}) => ({
      dates: [{ start, username }],
      email: 'p@example.com',
      lang: 'en',
      name: 'P',
      place: 'zoom',
      meetingTopic: topicUuid,
      timezone: 'UTC',
      ...extra,
    });

    it("offers the stand-in in the team's round robin and on the host's own link where the host is away, and books them", async () => {
      const { acme, dana, team, own } = await setUp();
      const teamTuesday = await slotsOn({ team: acme.team.uuid, meetingTopic: team.uuid }, '2027-01-12');
      expect(teamTuesday.length).toBeGreaterThan(0);
      expect(new Set(teamTuesday.map((slot) => slot.username))).toEqual(new Set([dana.username]));
      // Wednesday the host is back: no stand-in.
      expect(new Set((await slotsOn({ team: acme.team.uuid, meetingTopic: team.uuid }, '2027-01-13')).map((slot) => slot.username))).toEqual(new Set([acme.owner.username]));
      const ownTuesday = await slotsOn({ username: acme.owner.username, meetingTopic: own.uuid }, '2027-01-12');
      expect(ownTuesday.map((slot) => slot.username)).toEqual(teamTuesday.map(() => dana.username));

      const start = teamTuesday[0]!.start;
      const booked = await call(a.app, acme.apiKey, 'POST', '/api/v1/schedule', booking(team.uuid, start, dana.username, { team: acme.team.uuid }));
      expect(booked.statusCode, booked.body).toBe(201);
      expect(booked.json().meetings[0].username).toBe(dana.username);
      // Dana is not a stand-in outside the time off.
      const wednesday = await call(a.app, acme.apiKey, 'POST', '/api/v1/schedule', booking(team.uuid, '2027-01-13T10:00:00.000Z', dana.username, { team: acme.team.uuid }));
      expect(wednesday.statusCode, wednesday.body).toBe(404);
    });

    it('never double-books the stand-in under concurrent bookings through the host’s topic and the stand-in’s own', async () => {
      const { acme, dana, own } = await setUp();
      const danas = await call(a.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Dana call', durationMinutes: 60, places: ['zoom'], hosts: [dana.username] });
      expect(danas.statusCode, danas.body).toBe(201);
      for (const hour of ['10', '12', '14']) {
        const start = `2027-01-12T${hour}:00:00.000Z`;
        const answers = await Promise.all([
          call(a.app, acme.apiKey, 'POST', '/api/v1/schedule', booking(own.uuid, start, dana.username, { email: 'x@example.com' })),
          call(b, acme.apiKey, 'POST', '/api/v1/schedule', booking(danas.json().uuid, start, dana.username, { email: 'y@example.com' })),
        ]);
        expect(answers.map((answer) => answer.statusCode).sort()).toEqual([201, 409]);
      }
    });
  });
}
