import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKeyForUser } from '../../src/scheduling/account/api-keys.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

for (const dialect of DIALECTS) {
  describe(`the private meetings feed [${dialect}]`, () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-03-01T06:00:00.000Z'), { PUBLIC_URL: 'https://termin.example.com' });
    });
    afterAll(async () => t?.close());

    /** An account of the test's own (owner, colleague Carl, a team topic), so no test sees another's meetings or feed address. */
    const setUp = async () => {
      const acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw' });
      const colleague: { uuid: string; username: string } = (
        await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, {
          firstName: 'Carl',
          lastName: 'Colleague',
          email: `carl-${dialect}@example.com`,
          admin: false,
        })
      ).json();
      const topic: { uuid: string } = (
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro, call; first', durationMinutes: 30, team: acme.team.uuid, places: ['zoom'] })
      ).json();
      const book = async (start: string, username = acme.owner.username, name = 'Jan Kowalski') => {
        const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
          dates: [{ start, username }],
          email: 'jan@example.com',
          lang: 'en',
          name,
          place: 'zoom',
          meetingTopic: topic.uuid,
          team: acme.team.uuid,
          timezone: 'Europe/Warsaw',
        });
        expect(response.statusCode, response.body).toBe(201);
        return response.json().meetings[0] as { uuid: string };
      };
      return { acme, colleague, book };
    };
    const feedPath = (url: string) => new URL(url).pathname;
    const readFeed = async (url: string) => {
      const response = await t.app.inject({ method: 'GET', url: feedPath(url) });
      return response;
    };
    const eventsOf = (text: string) =>
      new ICAL.Component(ICAL.parse(text)).getAllSubcomponents('vevent').map((event) => ({
        uid: event.getFirstPropertyValue('uid'),
        start: (event.getFirstPropertyValue('dtstart') as ICAL.Time).toJSDate().toISOString(),
        end: (event.getFirstPropertyValue('dtend') as ICAL.Time).toJSDate().toISOString(),
        summary: event.getFirstPropertyValue('summary'),
      }));

    it('holds every confirmed meeting of the host, and only theirs', async () => {
      const { acme, colleague, book } = await setUp();
      const first = await book('2027-03-02T09:00:00.000Z');
      const second = await book('2027-03-03T12:30:00.000Z', acme.owner.username, 'Ann, the "tester"; jr');
      const cancelled = await book('2027-03-04T09:00:00.000Z');
      await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${cancelled.uuid}/cancel`, {});
      await book('2027-03-02T09:00:00.000Z', colleague.username);

      const feed = await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/feed`);
      expect(feed.statusCode).toBe(200);
      const { url } = feed.json() as { url: string };
      expect(url).toMatch(/^https:\/\/termin\.example\.com\/feeds\/[A-Za-z0-9_-]{43}\.ics$/);
      // The same address until rotated.
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/feed`)).json().url).toBe(url);

      const response = await readFeed(url);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/calendar; charset=utf-8');
      const calendar = new ICAL.Component(ICAL.parse(response.body));
      expect(calendar.getFirstPropertyValue('method')).toBe('PUBLISH');
      expect(calendar.getFirstPropertyValue('x-wr-calname')).toBe('termin: Olga Owner');
      expect(eventsOf(response.body)).toEqual([
        { uid: `${first.uuid}@termin`, start: '2027-03-02T09:00:00.000Z', end: '2027-03-02T09:30:00.000Z', summary: 'Intro, call; first: Jan Kowalski' },
        { uid: `${second.uuid}@termin`, start: '2027-03-03T12:30:00.000Z', end: '2027-03-03T13:00:00.000Z', summary: 'Intro, call; first: Ann, the "tester"; jr' },
      ]);
    });

    it('stops answering the old address once rotated', async () => {
      const { acme, book } = await setUp();
      await book('2027-03-02T09:00:00.000Z');
      await book('2027-03-03T12:30:00.000Z');
      const old = (await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/feed`)).json().url as string;
      const rotated = await call(t.app, acme.apiKey, 'POST', `/api/v1/users/${acme.owner.uuid}/feed/rotate`);
      expect(rotated.statusCode).toBe(200);
      const fresh = rotated.json().url as string;
      expect(fresh).not.toBe(old);
      expect((await readFeed(old)).statusCode).toBe(404);
      expect((await readFeed(fresh)).statusCode).toBe(200);
      expect(eventsOf((await readFeed(fresh)).body)).toHaveLength(2);
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/feed`)).json().url).toBe(fresh);
    });

    it("holds a collective meeting in every host's feed, the co-host's too, and drops it there when cancelled", async () => {
      const { acme, colleague } = await setUp();
      const panel = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
        name: 'Panel',
        durationMinutes: 60,
        team: acme.team.uuid,
        places: ['zoom'],
        assignment: 'collective',
      });
      expect(panel.statusCode, panel.body).toBe(201);
      // Booked in the owner's name: the colleague holds it only as a co-host.
      const booked = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [{ start: '2027-03-05T10:00:00.000Z', username: acme.owner.username }],
        email: 'pat@example.com',
        lang: 'en',
        name: 'Pat Panel',
        place: 'zoom',
        meetingTopic: panel.json().uuid,
        team: acme.team.uuid,
        timezone: 'Europe/Warsaw',
      });
      expect(booked.statusCode, booked.body).toBe(201);
      const meeting = booked.json().meetings[0] as { uuid: string; hostUsername?: string };
      const expected = { uid: `${meeting.uuid}@termin`, start: '2027-03-05T10:00:00.000Z', end: '2027-03-05T11:00:00.000Z', summary: 'Panel: Pat Panel' };
      const feedOf = async (uuid: string) => (await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${uuid}/feed`)).json().url as string;
      const colleagueFeed = await feedOf(colleague.uuid);
      expect(eventsOf((await readFeed(colleagueFeed)).body)).toEqual([expected]);
      expect(eventsOf((await readFeed(await feedOf(acme.owner.uuid))).body)).toEqual([expected]);
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/cancel`, {})).statusCode).toBe(200);
      expect(eventsOf((await readFeed(colleagueFeed)).body)).toEqual([]);
    });

    it('answers 404 for made-up addresses, and keeps feeds to the user and their admins', async () => {
      const { acme, colleague, book } = await setUp();
      await book('2027-03-02T09:00:00.000Z', colleague.username);
      expect((await t.app.inject({ method: 'GET', url: '/feeds/not-a-token.ics' })).statusCode).toBe(404);
      expect((await t.app.inject({ method: 'GET', url: `/feeds/${'A'.repeat(43)}.ics` })).statusCode).toBe(404);
      const other = await createTestAccount(t.ctx);
      expectProblem(await call(t.app, other.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/feed`), 404, 'NOT_FOUND');
      expectProblem(await call(t.app, other.apiKey, 'POST', `/api/v1/users/${acme.owner.uuid}/feed/rotate`), 404, 'NOT_FOUND');
      // The colleague is no admin: the owner's feed is not theirs to read.
      const key = await createApiKeyForUser(t.ctx, colleague.uuid);
      expectProblem(await call(t.app, key.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/feed`), 403, 'FORBIDDEN');
      // The admin may read the colleague's.
      const colleagueFeed = (await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${colleague.uuid}/feed`)).json().url as string;
      expect(eventsOf((await readFeed(colleagueFeed)).body)).toHaveLength(1);
    });
  });
}
