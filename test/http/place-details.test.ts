import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderedMessage } from '../../src/mail/message.js';
import { createApiKeyForUser } from '../../src/scheduling/account/api-keys.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, runJobsCapturingMail, type TestApp } from '../helpers.js';

type Slot = { start: string; username: string };

const HOST_ROOM = 'https://zoom.us/j/111?pwd=host';
const TOPIC_ROOM = 'https://zoom.us/j/222';
const ADDRESS = 'ul. Prosta 1, 00-001 Warszawa';

/** LOCATION and URL of the invitation, read with ical.js as a calendar would. */
function invitation(message: RenderedMessage) {
  const event = new ICAL.Component(ICAL.parse(message.ics.content)).getFirstSubcomponent('vevent')!;
  return { location: event.getFirstPropertyValue('location'), url: event.getFirstPropertyValue('url') ?? null };
}

for (const dialect of DIALECTS) {
  describe(`place details and meeting locations [${dialect}]`, () => {
    let t: TestApp;
    const sent: RenderedMessage[] = [];

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
    });
    afterAll(async () => t.close());

    /** An account of the test's own with its 'Consult' topic, so no test sees another's place details, topics or meetings. */
    const setUp = async () => {
      const acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['offline', 'phone-call', 'zoom', 'webex'] });
      const created = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
        name: 'Consult',
        durationMinutes: 60,
        places: ['offline', 'phone-call', 'zoom'],
        placeDetails: { offline: ADDRESS, zoom: TOPIC_ROOM },
      });
      expect(created.statusCode).toBe(201);
      const topic: { uuid: string } = created.json();
      const slots = async (username = acme.owner.username) => {
        const body = (await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username, meetingTopic: topic.uuid, timezone: 'Europe/Warsaw', offset: 0 })).json();
        return (body.days as { slots: Slot[] }[]).flatMap((day) => day.slots);
      };
      let used = 0;
      /** A free slot not used earlier in the test. */
      const nextSlot = async () => {
        used += 2;
        return (await slots())[used]!;
      };
      const book = async (place: string, extra: Record<string, unknown> = {}) => {
        const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
          dates: [await nextSlot()],
          email: `${place}@example.com`,
          lang: 'en',
          name: 'Jan Kowalski',
          place,
          meetingTopic: topic.uuid,
          timezone: 'Europe/Warsaw',
          ...extra,
        });
        expect(response.statusCode).toBe(201);
        return response.json().meetings[0] as { uuid: string; location: Record<string, unknown> };
      };
      return { acme, topic, nextSlot, book };
    };
    const deliver = async () => {
      sent.length = 0;
      await runJobsCapturingMail(t.ctx, sent);
    };

    it('a topic keeps its place details; each must be a place it offers, one line of at most 500, an https link for online places', async () => {
      const { acme, topic } = await setUp();
      const got = (await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${topic.uuid}`)).json();
      expect(got.placeDetails).toEqual({ offline: ADDRESS, zoom: TOPIC_ROOM });
      const create = (placeDetails: unknown) =>
        call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Bad', durationMinutes: 30, places: ['offline', 'zoom'], placeDetails });
      const paths = async (placeDetails: unknown) => (expectProblem(await create(placeDetails), 400, 'VALIDATION_FAILED').errors ?? []).map((error) => error.path);
      expect(await paths({ webex: 'https://webex.com/meet/x' })).toEqual(['/placeDetails/webex']);
      expect(await paths({ zoom: 'http://zoom.us/j/1' })).toEqual(['/placeDetails/zoom']);
      expect(await paths({ zoom: 'not a link' })).toEqual(['/placeDetails/zoom']);
      expect(await paths({ offline: 'line 1\nline 2' })).toEqual(['/placeDetails/offline']);
      expect(await paths({ offline: 'x'.repeat(501) })).toEqual(['/placeDetails/offline']);
      expect(await paths({ nowhere: 'x' })).toContain('/placeDetails/nowhere');
      expect((await create({ offline: 'x'.repeat(500) })).statusCode).toBe(201);
      const before = (await call(t.app, acme.apiKey, 'GET', '/api/v1/meeting-topics')).json().meetingTopics.length;
      await create({ zoom: 'ftp://x' });
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/meeting-topics')).json().meetingTopics).toHaveLength(before);
    });

    it('PATCH replaces a topic’s place details, and a topic that stops offering a place forgets its detail', async () => {
      const { acme } = await setUp();
      const other = (
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Other', durationMinutes: 30, places: ['offline', 'zoom'], placeDetails: { zoom: TOPIC_ROOM } })
      ).json();
      const patched = await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${other.uuid}`, { placeDetails: { offline: ADDRESS, zoom: TOPIC_ROOM } });
      expect(patched.json().placeDetails).toEqual({ offline: ADDRESS, zoom: TOPIC_ROOM });
      const narrowed = await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${other.uuid}`, { places: ['offline'] });
      expect(narrowed.json().placeDetails).toEqual({ offline: ADDRESS });
      const refused = expectProblem(
        await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${other.uuid}`, { placeDetails: { zoom: TOPIC_ROOM } }),
        400,
        'VALIDATION_FAILED',
      );
      expect(refused.errors?.map((error) => error.path)).toEqual(['/placeDetails/zoom']);
    });

    it('hosts set their own place details; an admin of their team may too, another member may not', async () => {
      const { acme } = await setUp();
      const url = `/api/v1/users/${acme.owner.uuid}/place-details`;
      expect((await call(t.app, acme.apiKey, 'GET', url)).json()).toEqual({});
      const put = await call(t.app, acme.apiKey, 'PUT', url, { zoom: HOST_ROOM });
      expect(put.statusCode).toBe(200);
      expect(put.json()).toEqual({ zoom: HOST_ROOM });
      expect((await call(t.app, acme.apiKey, 'GET', url)).json()).toEqual({ zoom: HOST_ROOM });

      const member = (await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Nia', lastName: 'Member', email: 'nia@acme.test' })).json();
      const memberKey = (await createApiKeyForUser(t.ctx, member.uuid)).apiKey;
      expectProblem(await call(t.app, memberKey, 'PUT', url, { zoom: 'https://evil.example/j/1' }), 403, 'FORBIDDEN');
      expectProblem(await call(t.app, memberKey, 'GET', url), 403, 'FORBIDDEN');
      expect((await call(t.app, memberKey, 'PUT', `/api/v1/users/${member.uuid}/place-details`, { offline: 'Biuro 2' })).statusCode).toBe(200);
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${member.uuid}/place-details`)).json()).toEqual({ offline: 'Biuro 2' });
      expect((await call(t.app, acme.apiKey, 'PUT', `/api/v1/users/${member.uuid}/place-details`, {})).json()).toEqual({});

      const paths = async (body: unknown) => (expectProblem(await call(t.app, acme.apiKey, 'PUT', url, body), 400, 'VALIDATION_FAILED').errors ?? []).map((error) => error.path);
      expect(await paths({ 'google-meet': 'https://meet.google.com/abc' })).toEqual(['/google-meet']);
      expect(await paths({ zoom: 'http://zoom.us/j/1' })).toEqual(['/zoom']);
      expect(await paths({ zom: HOST_ROOM })).toContain('/zom');
      expect((await call(t.app, acme.apiKey, 'GET', url)).json()).toEqual({ zoom: HOST_ROOM });

      const stranger = await createTestAccount(t.ctx);
      expectProblem(await call(t.app, stranger.apiKey, 'GET', url), 404, 'NOT_FOUND');
    });

    it('resolves the location when booked: the host’s own, else the topic’s, else the participant’s phone; GET /meetings shows it', async () => {
      const { acme, book } = await setUp();
      await call(t.app, acme.apiKey, 'PUT', `/api/v1/users/${acme.owner.uuid}/place-details`, { zoom: HOST_ROOM });
      const zoom = await book('zoom');
      expect(zoom.location).toEqual({ place: 'zoom', address: null, url: HOST_ROOM, phone: null, text: HOST_ROOM, source: 'host', conferenceId: null, password: null });
      const offline = await book('offline');
      expect(offline.location).toEqual({ place: 'offline', address: ADDRESS, url: null, phone: null, text: ADDRESS, source: 'topic', conferenceId: null, password: null });
      const phone = await book('phone-call', { phone: '+48 600 100 200' });
      expect(phone.location).toEqual({
        place: 'phone-call',
        address: null,
        url: null,
        phone: '+48 600 100 200',
        text: '+48 600 100 200',
        source: 'participant',
        conferenceId: null,
        password: null,
      });

      const listed = (await call(t.app, acme.apiKey, 'GET', '/api/v1/meetings?limit=200')).json().meetings as { uuid: string; location: unknown }[];
      expect(listed.find((meeting) => meeting.uuid === zoom.uuid)!.location).toEqual(zoom.location);
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${offline.uuid}`)).json().location).toEqual(offline.location);

      // Without the host's own room, the topic's is used.
      await call(t.app, acme.apiKey, 'PUT', `/api/v1/users/${acme.owner.uuid}/place-details`, {});
      expect((await book('zoom')).location).toMatchObject({ url: TOPIC_ROOM, source: 'topic' });
    });

    it('a host’s later change of place details leaves booked meetings (and a move to another time) as they were', async () => {
      const { acme, topic, nextSlot, book } = await setUp();
      await call(t.app, acme.apiKey, 'PUT', `/api/v1/users/${acme.owner.uuid}/place-details`, { zoom: HOST_ROOM });
      const meeting = await book('zoom');
      await call(t.app, acme.apiKey, 'PUT', `/api/v1/users/${acme.owner.uuid}/place-details`, { zoom: 'https://zoom.us/j/999' });
      await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${topic.uuid}`, { placeDetails: { zoom: 'https://zoom.us/j/888' } });
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${meeting.uuid}`)).json().location.url).toBe(HOST_ROOM);
      const moved = await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/reschedule`, { start: (await nextSlot()).start });
      expect(moved.statusCode).toBe(200);
      expect(moved.json().location.url).toBe(HOST_ROOM);
      await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${topic.uuid}`, { placeDetails: { offline: ADDRESS, zoom: TOPIC_ROOM } });
    });

    it('shows the location in both e-mails, in English and Polish, and in the invitation as LOCATION and URL', async () => {
      const { acme, book } = await setUp();
      await call(t.app, acme.apiKey, 'PUT', `/api/v1/users/${acme.owner.uuid}/place-details`, { zoom: HOST_ROOM });
      await deliver();
      const english = await book('zoom', { email: 'en@example.com', lang: 'en' });
      const polish = await book('offline', { email: 'pl@example.com', lang: 'pl' });
      await deliver();

      const toEnglish = sent.filter((message) => message.to.email === 'en@example.com');
      const toPolish = sent.filter((message) => message.to.email === 'pl@example.com');
      const toHost = sent.filter((message) => message.to.email === acme.owner.email);
      expect(toEnglish).toHaveLength(1);
      expect(toPolish).toHaveLength(1);
      expect(toHost).toHaveLength(2);

      expect(toEnglish[0]!.text).toContain('Where: Zoom');
      expect(toEnglish[0]!.text).toContain(`Link: ${HOST_ROOM}`);
      expect(toEnglish[0]!.html).toContain(HOST_ROOM.replace('&', '&amp;'));
      expect(invitation(toEnglish[0]!)).toEqual({ location: HOST_ROOM, url: HOST_ROOM });

      expect(toPolish[0]!.text).toContain('Miejsce: Spotkanie osobiste');
      expect(toPolish[0]!.text).toContain(`Adres: ${ADDRESS}`);
      expect(invitation(toPolish[0]!)).toEqual({ location: ADDRESS, url: null });

      const hostOfEnglish = toHost.find((message) => message.ics.content.includes(english.uuid))!;
      const hostOfPolish = toHost.find((message) => message.ics.content.includes(polish.uuid))!;
      expect(hostOfEnglish.text).toContain(`Link: ${HOST_ROOM}`);
      expect(invitation(hostOfEnglish)).toEqual({ location: HOST_ROOM, url: HOST_ROOM });
      expect(hostOfPolish.text).toContain(`Address: ${ADDRESS}`);
    });

    it('a move to another host resolves the location again from the new host’s details', async () => {
      const { acme } = await setUp();
      await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Tom', lastName: 'Second', email: 'tom@acme.test' });
      const team = (
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
          name: 'Team consult',
          durationMinutes: 60,
          places: ['zoom'],
          team: acme.team.uuid,
          placeDetails: { zoom: TOPIC_ROOM },
        })
      ).json();
      const hosts = team.hosts as string[];
      expect(hosts.length).toBeGreaterThanOrEqual(2);
      const other = hosts.find((username) => username !== acme.owner.username)!;
      const teamSlots = async (username: string) => {
        const body = (
          await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username, meetingTopic: team.uuid, team: acme.team.uuid, timezone: 'Europe/Warsaw', offset: 7 })
        ).json();
        return (body.days as { slots: Slot[] }[]).flatMap((day) => day.slots);
      };
      await call(t.app, acme.apiKey, 'PUT', `/api/v1/users/${acme.owner.uuid}/place-details`, { zoom: HOST_ROOM });
      const slot = (await teamSlots(acme.owner.username))[0]!;
      const booked = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [slot],
        email: 'team@example.com',
        lang: 'en',
        name: 'Jan',
        place: 'zoom',
        meetingTopic: team.uuid,
        team: acme.team.uuid,
        timezone: 'Europe/Warsaw',
      });
      expect(booked.json().meetings[0].location.url).toBe(HOST_ROOM);
      const target = (await teamSlots(other)).at(-1)!;
      const moved = await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${booked.json().meetings[0].uuid}/reschedule`, { start: target.start, username: other });
      expect(moved.statusCode).toBe(200);
      expect(moved.json().location).toMatchObject({ url: TOPIC_ROOM, source: 'topic' });
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${booked.json().meetings[0].uuid}`)).json().location.url).toBe(TOPIC_ROOM);
    });
  });
}
