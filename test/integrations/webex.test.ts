import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeWebex, startFakeWebex } from '../fakes/webex.js';
import { DIALECTS, createClock, expectProblem } from '../helpers.js';
import { createRoomBookings, freeSlots, type Harness, type RoomBookings, PUBLIC_URL, startHarness } from './harness.js';

/**
 * Webex from a business's point of view, against the stand-in in test/fakes/webex.ts: the
 * Integration configured, a host connected through the whole OAuth round trip (client
 * credentials in the form body, PKCE), each booking at `webex` given a meeting of its own from
 * the outbox whose link, meeting number and password reach both e-mails and the invitation,
 * moved with one full PUT and deleted with the meeting; an outage, a lost answer (Webex takes
 * no idempotency key), an expired token and a revoked grant, without a lost booking or a
 * second link.
 */
for (const dialect of DIALECTS) {
  // Not shuffled, by design, as zoom.test.ts: the tests are the life of one host's connection
  // in order (app configured, connected, used, broken, reconnected, disconnected), each step
  // on the connection, the stand-in's state and the counts the step before left.
  describe(`Webex rooms [${dialect}]`, { shuffle: false }, () => {
    let h: Harness;
    let webex: FakeWebex;
    let topicUuid: string;
    let bookings: RoomBookings;

    const titled = (title: string) => [...webex.meetings.values()].filter((m) => m.title === title);
    const untilLinked = async (uuid: string, rounds: number, stepMs: number) => {
      for (let i = 0; i < rounds && (await bookings.meeting(uuid)).location.url === null; i += 1) {
        h.clock.advance(stepMs);
        await h.runJobs();
      }
    };

    beforeAll(async () => {
      const clock = createClock('2027-01-04T06:00:00.000Z');
      webex = await startFakeWebex({ now: clock.now, accountEmail: 'olga@acme.webex.example' });
      h = await startHarness(dialect, clock, webex.env, ['webex', 'offline']);
      const topic = await h.api('POST', '/api/v1/meeting-topics', { name: 'Intro call', durationMinutes: 30, places: ['webex', 'offline'], bookingWindowDays: 365 });
      topicUuid = (topic.json() as { uuid: string }).uuid;
      bookings = createRoomBookings(h, 'webex', topicUuid, await freeSlots(h.app, h.acme.owner.username, topicUuid, 30));
    }, 60_000);

    afterAll(async () => {
      await h?.close();
      await webex?.close();
    });

    afterEach(() => {
      // Every test leaves the provider reachable.
      webex.failNextApiCalls(0, 500);
      webex.dropNextApiAnswers(0);
      webex.answerTokenEndpointWith(null);
    });

    it('keeps the business’s Webex Integration with its secret write-only, and refuses a connection before it is set', async () => {
      expect(await bookings.placesReady()).toEqual({ [h.acme.owner.username]: ['offline'] });
      const early = await h.api('POST', `/api/v1/users/${h.acme.owner.uuid}/connections`, { provider: 'webex' });
      expect(expectProblem(early, 400, 'VALIDATION_FAILED').errors?.[0]?.path).toBe('/provider');

      const missing = await h.api('PATCH', '/api/v1/account', { integrations: { webex: { clientId: webex.clientId } } });
      expect(expectProblem(missing, 400, 'VALIDATION_FAILED').errors?.[0]?.path).toBe('/integrations/webex/clientSecret');
      const saved = await h.api('PATCH', '/api/v1/account', { integrations: { webex: { clientId: webex.clientId, clientSecret: webex.clientSecret } } });
      expect(saved.statusCode, saved.body).toBe(200);
      const account = (await h.api('GET', '/api/v1/account')).json() as { integrations: { provider: string; configured: boolean; settings: Record<string, string> }[] };
      expect(account.integrations.find((i) => i.provider === 'webex')).toEqual({ provider: 'webex', configured: true, settings: { clientId: webex.clientId } });
      expect(h.answers.some((body) => body.includes(webex.clientSecret))).toBe(false);
    });

    it('connects through the whole round trip: Webex’s scopes and PKCE asked for, the code exchanged once with the credentials in the body, the person read', async () => {
      const { started, callback, callbackUrl } = await h.connect(h.acme.owner.uuid, 'webex', webex);
      const authorize = new URL(String(started.authorizeUrl));
      expect(authorize.origin + authorize.pathname).toBe(webex.env.WEBEX_AUTHORIZE_URL);
      expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
        response_type: 'code',
        client_id: webex.clientId,
        redirect_uri: `${PUBLIC_URL}/oauth/webex/callback`,
        scope: 'spark:people_read meeting:schedules_read meeting:schedules_write',
        code_challenge_method: 'S256',
      });
      expect(callback.statusCode, callback.body).toBe(200);
      expect(callback.body).toContain('Webex is connected');
      expect(callback.body).toContain('olga@acme.webex.example');
      // The stand-in accepts the code only with client_id/client_secret in the form and the PKCE verifier.
      expect(webex.tokenCalls).toEqual([{ grantType: 'authorization_code', ok: true }]);
      expect(webex.apiCalls.map((c) => `${c.method} ${c.path}`)).toEqual(['GET /v1/people/me']);
      expect(await bookings.connectionOf()).toMatchObject({ uuid: started.uuid, provider: 'webex', status: 'connected', accountEmail: 'olga@acme.webex.example', lastError: null });
      expect(await bookings.placesReady()).toEqual({ [h.acme.owner.username]: ['webex', 'offline'] });

      const replay = await h.app.inject({ method: 'GET', url: callbackUrl });
      expect(replay.statusCode).toBe(400);
      expect(webex.tokenCalls).toHaveLength(1);
    });

    it('gives each booking a Webex meeting of its own after the booking, its link, number and password in both confirmations and the invitation', async () => {
      const callsBefore = webex.apiCalls.length;
      const [a, b] = [await bookings.book(), await bookings.book()];
      expect(webex.apiCalls.length).toBe(callsBefore);
      expect((await bookings.meeting(a)).location.url).toBeNull();
      await h.runJobs();
      const rooms = [await bookings.meeting(a), await bookings.meeting(b)].map((m) => m.location);
      expect(rooms[0]!.url).not.toBe(rooms[1]!.url);
      for (const i of [0, 1]) {
        const made = titled(`Intro call: Guest ${bookings.participant - 1 + i}`);
        expect(made).toHaveLength(1);
        expect(rooms[i]).toMatchObject({ place: 'webex', url: made[0]!.webLink, conferenceId: made[0]!.meetingNumber, password: made[0]!.password });
        expect(Date.parse(made[0]!.end) - Date.parse(made[0]!.start)).toBe(30 * 60_000);
        expect(made[0]!.enabledAutoRecordMeeting).toBe(false);
      }
      const guest = bookings.mailsTo(`guest${bookings.participant - 1}@example.com`);
      expect(guest).toHaveLength(1);
      for (const value of [rooms[0]!.url, rooms[0]!.conferenceId, rooms[0]!.password]) expect(guest[0]!.text).toContain(String(value));
      const ics = guest[0]!.ics.content.replace(/\r\n[ \t]/g, '');
      expect(ics).toContain(`URL;VALUE=URI:${String(rooms[0]!.url)}`);
      expect(ics).toMatch(/LOCATION:.*webex\.com/);
      expect(h.sent.filter((m) => m.to.email === h.acme.owner.email && m.text.includes(String(rooms[0]!.url)))).toHaveLength(1);
      const made = webex.meetings.size;
      await h.runJobs();
      expect(webex.meetings.size).toBe(made);
    });

    it('moves the meeting with one full PUT on a reschedule (password and settings kept) and deletes it once on a cancel', async () => {
      const uuid = await bookings.book();
      await h.runJobs();
      const room = (await bookings.meeting(uuid)).location;
      const [made] = titled(`Intro call: Guest ${bookings.participant}`);
      // A setting the host changed in Webex meanwhile: a PUT without it would reset it.
      made!.enabledJoinBeforeHost = true;
      const newStart = bookings.nextSlot();
      const moved = await h.api('POST', `/api/v1/meetings/${uuid}/reschedule`, { start: newStart });
      expect(moved.statusCode, moved.body).toBe(200);
      await h.runJobs();
      const puts = webex.apiCalls.filter((c) => c.method === 'PUT' && c.path === `/v1/meetings/${made!.id}`);
      expect(puts).toHaveLength(1);
      expect(webex.meetings.get(made!.id)).toMatchObject({
        start: newStart,
        password: room.password,
        enabledJoinBeforeHost: true,
        title: `Intro call: Guest ${bookings.participant}`,
      });
      expect((await bookings.meeting(uuid)).location).toMatchObject({ url: room.url, password: room.password });

      const cancelled = await h.api('POST', `/api/v1/meetings/${uuid}/cancel`, {});
      expect(cancelled.statusCode, cancelled.body).toBe(200);
      await h.runJobs();
      await h.runJobs();
      expect(webex.apiCalls.filter((c) => c.method === 'DELETE' && c.path.startsWith(`/v1/meetings/${made!.id}`))).toHaveLength(1);
      expect(webex.meetings.has(made!.id)).toBe(false);
    });

    it('takes a meeting the host already deleted in Webex as gone when the booking is cancelled', async () => {
      const uuid = await bookings.book();
      await h.runJobs();
      const [made] = titled(`Intro call: Guest ${bookings.participant}`);
      webex.meetings.delete(made!.id);
      const logsBefore = h.logs.length;
      expect((await h.api('POST', `/api/v1/meetings/${uuid}/cancel`, {})).statusCode).toBe(200);
      await h.runJobs();
      expect(webex.apiCalls.filter((c) => c.method === 'DELETE' && c.path.startsWith(`/v1/meetings/${made!.id}`))).toHaveLength(1);
      expect(h.logs.slice(logsBefore).filter((line) => line.includes('an outbox job failed') && line.includes('conference-room'))).toEqual([]);
    });

    it('makes the meeting later when Webex fails for a while, and the participant gets one confirmation with one link', async () => {
      webex.failNextApiCalls(3, 503);
      const uuid = await bookings.book();
      const email = `guest${bookings.participant}@example.com`;
      await h.runJobs();
      expect((await bookings.meeting(uuid)).location.url).toBeNull();
      expect(bookings.mailsTo(email)).toHaveLength(0);
      await untilLinked(uuid, 6, 60_000);
      const location = (await bookings.meeting(uuid)).location;
      expect(location.url).toMatch(/webex\.com/);
      const mails = bookings.mailsTo(email);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.text).toContain(String(location.url));
      expect(titled(`Intro call: Guest ${bookings.participant}`)).toHaveLength(1);
    });

    it('adopts the meeting Webex made when its answer was lost, found by the request id in its agenda, instead of making a second', async () => {
      webex.dropNextApiAnswers(1);
      const uuid = await bookings.book();
      const title = `Intro call: Guest ${bookings.participant}`;
      await h.runJobs();
      // Webex made the meeting; termin never heard of it.
      expect(titled(title)).toHaveLength(1);
      expect((await bookings.meeting(uuid)).location.url).toBeNull();
      await untilLinked(uuid, 6, 60_000);
      const made = titled(title);
      expect(made).toHaveLength(1);
      expect(made[0]!.agenda).toMatch(/termin \S+\)$/);
      expect(webex.apiCalls.filter((c) => c.method === 'GET' && c.path.startsWith('/v1/meetings?') && c.path.includes('meetingType=scheduledMeeting')).length).toBeGreaterThan(0);
      expect(webex.apiCalls.filter((c) => c.method === 'POST' && c.path === '/v1/meetings' && (c.body as { title: string }).title === title)).toHaveLength(1);
      expect((await bookings.meeting(uuid)).location).toMatchObject({ url: made[0]!.webLink, conferenceId: made[0]!.meetingNumber, password: made[0]!.password });
      const mails = bookings.mailsTo(`guest${bookings.participant}@example.com`);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.text).toContain(made[0]!.webLink);
      // What was adopted is the series itself: a cancel removes it at Webex.
      expect((await h.api('POST', `/api/v1/meetings/${uuid}/cancel`, {})).statusCode).toBe(200);
      await h.runJobs();
      expect(titled(title)).toHaveLength(0);
    });

    it('refreshes an expired access token once with the credentials in the body, and keeps working with the refresh token Webex returns', async () => {
      const refreshes = () => webex.tokenCalls.filter((c) => c.grantType === 'refresh_token');
      const before = refreshes().length;
      webex.expireAccessTokens();
      const a = await bookings.book();
      await h.runJobs();
      expect((await bookings.meeting(a)).location.url).toMatch(/webex\.com/);
      expect(refreshes().slice(before)).toEqual([{ grantType: 'refresh_token', ok: true }]);
      webex.expireAccessTokens();
      const b = await bookings.book();
      await h.runJobs();
      expect((await bookings.meeting(b)).location.url).toMatch(/webex\.com/);
      expect(refreshes().slice(before)).toEqual([
        { grantType: 'refresh_token', ok: true },
        { grantType: 'refresh_token', ok: true },
      ]);
      expect((await bookings.connectionOf()).status).toBe('connected');
    });

    it('turns a revoked grant (Webex’s own error shape) into a connection error the host hears of, and books without a link', async () => {
      webex.revokeAllGrants();
      webex.expireAccessTokens();
      const uuid = await bookings.book();
      await h.runJobs();
      const failed = await bookings.connectionOf();
      expect(failed.status).toBe('error');
      expect(String(failed.lastError)).toMatch(/Webex refused.*invalid_grant/);
      expect(h.webhookEvents('connection.error').map((e) => (e.data as { uuid: string }).uuid)).toEqual([failed.uuid]);
      expect(h.sent.filter((m) => m.to.email === h.acme.owner.email && /Webex connection stopped working/.test(m.subject))).toHaveLength(1);
      expect(await bookings.placesReady()).toEqual({ [h.acme.owner.username]: ['offline'] });
      expect((await bookings.meeting(uuid)).location.url).toBeNull();
      const mails = bookings.mailsTo(`guest${bookings.participant}@example.com`);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.text).toMatch(/link .*follow/i);

      // Connected again: the waiting meeting gets its room, and the participant one update with it.
      const { callback } = await h.connect(h.acme.owner.uuid, 'webex', webex);
      expect(callback.statusCode, callback.body).toBe(200);
      await h.runJobs();
      const location = (await bookings.meeting(uuid)).location;
      expect(location.url).toMatch(/webex\.com/);
      expect(bookings.mailsTo(`guest${bookings.participant}@example.com`)).toHaveLength(2);
      expect(bookings.mailsTo(`guest${bookings.participant}@example.com`)[1]!.text).toContain(String(location.url));
    });

    it('shows an error page and stores nothing when the token endpoint answers garbage, HTML, a huge body or an error of its own', async () => {
      const connection = await bookings.connectionOf();
      for (const raw of [
        { status: 200, contentType: 'application/json', body: '{"access_token":' },
        { status: 502, contentType: 'text/html', body: '<h1>Bad gateway</h1>' },
        { status: 400, contentType: 'text/html', body: '<html>Bad request</html>' },
        { status: 200, contentType: 'application/json', body: JSON.stringify({ access_token: 'x'.repeat(3_000_000), token_type: 'Bearer' }) },
        {
          status: 400,
          contentType: 'application/json',
          body: JSON.stringify({ message: "error = '(invalid_grant) Authorization code has been used.'", errors: [], trackingId: 'T' }),
        },
      ]) {
        webex.answerTokenEndpointWith(raw);
        const { callback } = await h.connect(h.acme.owner.uuid, 'webex', webex);
        expect(callback.statusCode, raw.body.slice(0, 40)).toBe(400);
        expect(callback.body).toContain('Not connected');
        expect(await bookings.connectionOf()).toEqual(connection);
      }
    });

    it('forgets the tokens on disconnect without calling a revocation endpoint Webex does not have', async () => {
      const connection = await bookings.connectionOf();
      const removed = await h.api('DELETE', `/api/v1/users/${h.acme.owner.uuid}/connections/${String(connection.uuid)}`);
      expect(removed.statusCode).toBe(204);
      expectProblem(await h.api('GET', `/api/v1/users/${h.acme.owner.uuid}/connections/${String(connection.uuid)}`), 404, 'NOT_FOUND');
      expect(webex.revocations).toHaveLength(0);
    });

    it('never shows or logs a token', () => {
      expect(webex.issuedTokens.length).toBeGreaterThan(3);
      const logs = h.logs.join('\n');
      for (const token of webex.issuedTokens) {
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
      expect(logs.includes(webex.clientSecret)).toBe(false);
    });
  });
}
