import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGoogleAdapter, googleEventIdOf } from '../../src/connections/google.js';
import { newId } from '../../src/ids.js';
import { withAccessToken } from '../../src/scheduling/provider-access.js';
import { type FakeGoogle, type GoogleEvent, startFakeGoogle } from '../fakes/google.js';
import { DIALECTS, createClock } from '../helpers.js';
import { createRoomBookings, freeSlots, type Harness, type RoomBookings, PUBLIC_URL, startHarness } from './harness.js';

/**
 * Google Meet from a business's point of view, against the stand-in in test/fakes/google.ts:
 * the app configured, a host connected through Google's OAuth (offline access, PKCE, `iss` on
 * the callback, an ID token in the answer), each booking at `google-meet` given an event of
 * its own in the host's calendar with a Meet conference (pending at first), whose link
 * reaches both e-mails and the invitation; moved and deleted with the meeting; a lost answer,
 * a slow conference, an expired token with Google's non-rotating refresh token, a revoked
 * grant; and no token anywhere it could leak.
 */
const instantOf = (time: GoogleEvent['start']) => Date.parse('dateTime' in time ? time.dateTime : time.date);

for (const dialect of DIALECTS) {
  // Not shuffled, by design, as zoom.test.ts: the tests are the life of one host's connection
  // in order (app configured, connected, used, broken, reconnected, disconnected), each step
  // on the connection, the stand-in's state and the counts the step before left.
  describe(`Google Meet rooms [${dialect}]`, { shuffle: false }, () => {
    let h: Harness;
    let google: FakeGoogle;
    let topicUuid: string;
    let bookings: RoomBookings;

    const eventsOf = (name: string) => [...google.events.values()].filter((event) => event.summary === `Intro call: ${name}`);
    const inserts = () => google.apiCalls.filter((c) => c.method === 'POST' && c.path.startsWith('/calendar/v3/calendars/primary/events'));
    const runUntilLocated = async (uuid: string, stepMs: number, rounds: number) => {
      for (let i = 0; i < rounds && (await bookings.meeting(uuid)).location.url === null; i += 1) {
        h.clock.advance(stepMs);
        await h.runJobs();
      }
    };

    beforeAll(async () => {
      const clock = createClock('2027-01-04T06:00:00.000Z');
      google = await startFakeGoogle({ now: clock.now, accountEmail: 'olga@acme-workspace.example' });
      h = await startHarness(dialect, clock, google.env, ['google-meet', 'offline']);
      const topic = await h.api('POST', '/api/v1/meeting-topics', { name: 'Intro call', durationMinutes: 30, places: ['google-meet', 'offline'], bookingWindowDays: 365 });
      topicUuid = (topic.json() as { uuid: string }).uuid;
      bookings = createRoomBookings(h, 'google-meet', topicUuid, await freeSlots(h.app, h.acme.owner.username, topicUuid, 30));
      const saved = await h.api('PATCH', '/api/v1/account', { integrations: { google: { clientId: google.clientId, clientSecret: google.clientSecret } } });
      expect(saved.statusCode, saved.body).toBe(200);
    }, 60_000);

    afterAll(async () => {
      await h?.close();
      await google?.close();
    });

    afterEach(() => {
      google.failNextApiCalls(0, 500);
      google.setPendingReads(1);
    });

    it('connects through Google’s OAuth: offline access with consent, PKCE, the code exchanged once, the account’s e-mail read', async () => {
      const { started, callback, callbackUrl } = await h.connect(h.acme.owner.uuid, 'google', google);
      const authorize = new URL(String(started.authorizeUrl));
      expect(authorize.origin + authorize.pathname).toBe(google.env.GOOGLE_AUTHORIZE_URL);
      expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
        response_type: 'code',
        client_id: google.clientId,
        redirect_uri: `${PUBLIC_URL}/oauth/google/callback`,
        scope: 'openid email https://www.googleapis.com/auth/calendar.events',
        access_type: 'offline',
        prompt: 'consent',
        code_challenge_method: 'S256',
      });
      // Google sends its issuer back with the code (RFC 9207): termin accepts it.
      expect(callbackUrl).toContain('iss=https%3A%2F%2Faccounts.google.com');
      expect(callback.statusCode, callback.body).toBe(200);
      expect(callback.body).toContain('Google is connected');
      expect(callback.body).toContain('olga@acme-workspace.example');
      expect(google.tokenCalls).toEqual([{ grantType: 'authorization_code', ok: true }]);
      expect(await bookings.connectionOf()).toMatchObject({
        uuid: started.uuid,
        provider: 'google',
        status: 'connected',
        accountEmail: 'olga@acme-workspace.example',
        lastError: null,
      });
      const schedule = await h.api('POST', '/api/v1/calculate-schedule', { username: h.acme.owner.username, meetingTopic: topicUuid, timezone: 'UTC', offset: 0 }, null);
      expect((schedule.json() as { placesReady: Record<string, string[]> }).placesReady).toEqual({ [h.acme.owner.username]: ['google-meet', 'offline'] });
      // The browser's back button: the state is used up, Google is not asked again.
      expect((await h.app.inject({ method: 'GET', url: callbackUrl })).statusCode).toBe(400);
      expect(google.tokenCalls).toHaveLength(1);
    });

    it('gives each booking its own Meet link, in an event of the host’s calendar, in both confirmations and the invitation', async () => {
      const before = google.apiCalls.length;
      const [a, b] = [await bookings.book(), await bookings.book()];
      expect(google.apiCalls.length).toBe(before);
      await h.runJobs();
      const [first, second] = [await bookings.meeting(a), await bookings.meeting(b)];
      expect(first.location.url).not.toBe(second.location.url);
      const event = eventsOf(`Guest ${bookings.participant - 1}`);
      expect(event).toHaveLength(1);
      expect(first.location).toMatchObject({
        place: 'google-meet',
        url: `https://meet.google.com/${event[0]!.conference!.meetCode}`,
        conferenceId: event[0]!.conference!.meetCode,
      });
      expect(event[0]!.id).toMatch(/^termin[0-9a-v]+$/);
      expect(event[0]!.attendees).toEqual([{ email: `guest${bookings.participant - 1}@example.com`, displayName: `Guest ${bookings.participant - 1}` }]);
      expect(instantOf(event[0]!.end) - instantOf(event[0]!.start)).toBe(30 * 60_000);
      expect(event[0]!.extendedProperties?.private?.termin).toBe(a);
      // Google sends no invitation of its own: termin's is the participant's one.
      expect(inserts().every((c) => c.path.includes('conferenceDataVersion=1') && c.path.includes('sendUpdates=none'))).toBe(true);

      const guest = bookings.mailsTo(`guest${bookings.participant - 1}@example.com`);
      expect(guest).toHaveLength(1);
      expect(guest[0]!.text).toContain(String(first.location.url));
      const ics = guest[0]!.ics.content.replace(/\r\n[ \t]/g, '');
      expect(ics).toContain(`URL;VALUE=URI:${String(first.location.url)}`);
      expect(ics).toMatch(/LOCATION:.*meet\.google\.com/);
      expect(h.sent.filter((m) => m.to.email === h.acme.owner.email && m.text.includes(String(first.location.url)))).toHaveLength(1);
      expect(h.webhookEvents('meeting.located').filter((e) => (e.data as { uuid: string }).uuid === a)).toHaveLength(1);
      const count = google.events.size;
      await h.runJobs();
      expect(google.events.size).toBe(count);
    });

    it('moves the event with one PATCH on a reschedule and removes it with one DELETE on a cancel', async () => {
      const uuid = await bookings.book();
      await h.runJobs();
      const link = (await bookings.meeting(uuid)).location.url;
      const event = eventsOf(`Guest ${bookings.participant}`)[0]!;
      const newStart = bookings.nextSlot();
      const moved = await h.api('POST', `/api/v1/meetings/${uuid}/reschedule`, { start: newStart });
      expect(moved.statusCode, moved.body).toBe(200);
      await h.runJobs();
      const path = `/calendar/v3/calendars/primary/events/${event.id}`;
      expect(google.apiCalls.filter((c) => c.method === 'PATCH' && c.path.startsWith(path))).toHaveLength(1);
      expect(instantOf(google.events.get(event.id)!.start)).toBe(Date.parse(newStart));
      expect((await bookings.meeting(uuid)).location.url).toBe(link);

      expect((await h.api('POST', `/api/v1/meetings/${uuid}/cancel`, {})).statusCode).toBe(200);
      await h.runJobs();
      await h.runJobs();
      expect(google.apiCalls.filter((c) => c.method === 'DELETE' && c.path.startsWith(path))).toHaveLength(1);
      expect(google.events.get(event.id)!.status).toBe('cancelled');
    });

    it('finds the event Google made when the insert’s answer was lost, under the id it recorded, and sends one link', async () => {
      google.dropNextApiAnswers(1);
      const uuid = await bookings.book();
      const name = `Guest ${bookings.participant}`;
      await h.runJobs();
      expect(eventsOf(name)).toHaveLength(1);
      expect((await bookings.meeting(uuid)).location.url).toBeNull();
      const id = eventsOf(name)[0]!.id;
      await runUntilLocated(uuid, 60_000, 6);
      expect(eventsOf(name)).toHaveLength(1);
      expect((await bookings.meeting(uuid)).location.url).toBe(`https://meet.google.com/${eventsOf(name)[0]!.conference!.meetCode}`);
      // The retry read the event under the id it had recorded, and made no second one.
      expect(inserts().filter((c) => (c.body as { id: string }).id === id)).toHaveLength(1);
      expect(google.apiCalls.some((c) => c.method === 'GET' && c.path === `/calendar/v3/calendars/primary/events/${id}`)).toBe(true);
      const mails = bookings.mailsTo(`guest${bookings.participant}@example.com`);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.text).toContain(String((await bookings.meeting(uuid)).location.url));
    });

    it('answers a repeated insert of one room (Google refuses the id as a duplicate) with the event made first', async () => {
      expect(googleEventIdOf('0190f3a2-7c1e-7b3d-9a4f-1c2d3e4f5a6b')).toBe('termin0190f3a27c1e7b3d9a4f1c2d3e4f5a6b');
      const adapter = createGoogleAdapter({ authorize: google.env.GOOGLE_AUTHORIZE_URL!, token: google.env.GOOGLE_TOKEN_URL!, api: google.env.GOOGLE_API_URL! });
      const start = Date.parse(bookings.nextSlot());
      const request = {
        meetingUuid: newId(),
        requestId: newId(),
        title: 'Intro call: Twice Asked',
        start,
        end: start + 30 * 60_000,
        timezone: 'Europe/Warsaw',
        attendee: { name: 'Twice Asked', email: 'twice@example.com' },
      };
      const connectionUuid = String((await bookings.connectionOf()).uuid);
      const first = await withAccessToken(h.ctx, connectionUuid, (token) => adapter.rooms.createRoom(token, request));
      const again = await withAccessToken(h.ctx, connectionUuid, (token) => adapter.rooms.createRoom(token, request));
      expect(again).toEqual(first);
      expect(eventsOf('Twice Asked')).toHaveLength(1);
      expect(google.apiCalls.filter((c) => c.method === 'POST' && (c.body as { id?: string }).id === first.roomId)).toHaveLength(2);
      expect(await withAccessToken(h.ctx, connectionUuid, (token) => adapter.rooms.findRoom(token, request))).toEqual(first);
      await withAccessToken(h.ctx, connectionUuid, (token) => adapter.rooms.deleteRoom(token, first.roomId));
      // Deleting again (410 at Google) is no error, and the deleted event is no room to adopt.
      await withAccessToken(h.ctx, connectionUuid, (token) => adapter.rooms.deleteRoom(token, first.roomId));
      expect(await withAccessToken(h.ctx, connectionUuid, (token) => adapter.rooms.findRoom(token, request))).toBeNull();
    });

    it('waits for a Meet conference still pending, and tries again later rather than sending no link', async () => {
      google.setPendingReads(20);
      const uuid = await bookings.book();
      await h.runJobs();
      expect((await bookings.meeting(uuid)).location.url).toBeNull();
      expect(bookings.mailsTo(`guest${bookings.participant}@example.com`)).toHaveLength(0);
      google.setPendingReads(0);
      for (const event of eventsOf(`Guest ${bookings.participant}`)) event.conference!.pendingReads = 0;
      await runUntilLocated(uuid, 60_000, 6);
      expect((await bookings.meeting(uuid)).location.url).toMatch(/^https:\/\/meet\.google\.com\//);
      expect(eventsOf(`Guest ${bookings.participant}`)).toHaveLength(1);
      expect(bookings.mailsTo(`guest${bookings.participant}@example.com`)).toHaveLength(1);
    }, 30_000);

    it('makes the room later when Google fails for a while, with one confirmation and one link', async () => {
      google.failNextApiCalls(3, 503);
      const uuid = await bookings.book();
      await h.runJobs();
      expect((await bookings.meeting(uuid)).location.url).toBeNull();
      await runUntilLocated(uuid, 60_000, 6);
      expect((await bookings.meeting(uuid)).location.url).toMatch(/^https:\/\/meet\.google\.com\//);
      expect(eventsOf(`Guest ${bookings.participant}`)).toHaveLength(1);
      expect(bookings.mailsTo(`guest${bookings.participant}@example.com`)).toHaveLength(1);
    });

    it('refreshes an expired access token and keeps Google’s refresh token, which Google does not rotate', async () => {
      const refreshes = () => google.tokenCalls.filter((c) => c.grantType === 'refresh_token');
      const before = refreshes().length;
      google.expireAccessTokens();
      const a = await bookings.book();
      await h.runJobs();
      expect((await bookings.meeting(a)).location.url).toMatch(/meet\.google\.com/);
      expect(refreshes().slice(before)).toEqual([{ grantType: 'refresh_token', ok: true }]);
      // Google's refresh answer had no refresh_token: the next refresh still has the first one to send.
      google.expireAccessTokens();
      h.clock.advance(61 * 60_000);
      const connectionUuid = String((await bookings.connectionOf()).uuid);
      const token = await withAccessToken(h.ctx, connectionUuid, async (accessToken) => accessToken);
      expect(google.issuedTokens).toContain(token);
      expect(refreshes().slice(before)).toEqual([
        { grantType: 'refresh_token', ok: true },
        { grantType: 'refresh_token', ok: true },
      ]);
      expect((await bookings.connectionOf()).status).toBe('connected');
    });

    it('turns a revoked grant into a connection error the host hears of, and books without a link', async () => {
      google.revokeAllGrants();
      google.expireAccessTokens();
      const uuid = await bookings.book();
      await h.runJobs();
      const failed = await bookings.connectionOf();
      expect(failed.status).toBe('error');
      expect(String(failed.lastError)).toMatch(/Google refused.*Token has been expired or revoked/);
      expect(h.webhookEvents('connection.error').map((e) => (e.data as { uuid: string }).uuid)).toEqual([failed.uuid]);
      expect(h.sent.filter((m) => m.to.email === h.acme.owner.email && /Google connection stopped working/.test(m.subject))).toHaveLength(1);
      expect((await bookings.meeting(uuid)).status).toBe('confirmed');
      expect((await bookings.meeting(uuid)).location.url).toBeNull();
      expect(bookings.mailsTo(`guest${bookings.participant}@example.com`)[0]!.text).toMatch(/link .*follow/i);

      // Connecting again makes the waiting meeting's room.
      const { callback } = await h.connect(h.acme.owner.uuid, 'google', google);
      expect(callback.statusCode, callback.body).toBe(200);
      await h.runJobs();
      expect((await bookings.meeting(uuid)).location.url).toMatch(/meet\.google\.com/);
      expect(bookings.mailsTo(`guest${bookings.participant}@example.com`)).toHaveLength(2);
    });

    it('revokes the grant at Google on disconnect', async () => {
      const connection = await bookings.connectionOf();
      const removed = await h.api('DELETE', `/api/v1/users/${h.acme.owner.uuid}/connections/${String(connection.uuid)}`);
      expect(removed.statusCode).toBe(204);
      expect(google.revocations.at(-1)).toEqual({ revoked: true });
    });

    it('never shows or logs a token or the client secret', () => {
      expect(google.issuedTokens.length).toBeGreaterThan(4);
      const logs = h.logs.join('\n');
      for (const token of google.issuedTokens) {
        expect(logs.includes(token), 'a token in the logs').toBe(false);
        expect(
          h.answers.some((body) => body.includes(token)),
          'a token in an answer',
        ).toBe(false);
        expect(
          h.sent.some((m) => m.text.includes(token) || m.html.includes(token)),
          'a token in an e-mail',
        ).toBe(false);
      }
      expect(logs.includes(google.clientSecret)).toBe(false);
      expect(h.answers.some((body) => body.includes(google.clientSecret))).toBe(false);
    });
  });
}
