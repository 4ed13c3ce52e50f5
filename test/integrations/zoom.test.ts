import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { withAccessToken } from '../../src/scheduling/provider-access.js';
import { type FakeZoom, startFakeZoom } from '../fakes/zoom.js';
import { DIALECTS, createClock, createTestAccount, expectProblem } from '../helpers.js';
import { createRoomBookings, freeSlots, type Harness, type RoomBookings, PUBLIC_URL, startHarness } from './harness.js';

/**
 * Zoom from a business's point of view, against the stand-in in test/fakes/zoom.ts: the app
 * configured, a host connected through the whole OAuth round trip, each booking at `zoom`
 * given a room of its own from the outbox (never while booking) whose link reaches both
 * e-mails and the invitation, moved and deleted with the meeting; an outage, an expired
 * token and a revoked grant, without a lost booking or a second link.
 */
for (const dialect of DIALECTS) {
  // Not shuffled, by design: the tests are the life of one host's Zoom connection, in order
  // (the app configured, connected, rooms made, outages, a token refreshed, the grant revoked
  // and reconnected, disconnected, then no token anywhere), each step on the connection, the
  // fake's state and the counts the step before left.
  describe(`Zoom rooms [${dialect}]`, { shuffle: false }, () => {
    let h: Harness;
    let zoom: FakeZoom;
    let topicUuid: string;
    let bookings: RoomBookings;

    beforeAll(async () => {
      const clock = createClock('2027-01-04T06:00:00.000Z');
      zoom = await startFakeZoom({ now: clock.now, accountEmail: 'olga@zoom.example' });
      h = await startHarness(dialect, clock, zoom.env, ['zoom', 'offline']);
      const topic = await h.api('POST', '/api/v1/meeting-topics', { name: 'Intro call', durationMinutes: 30, places: ['zoom', 'offline'], bookingWindowDays: 365 });
      topicUuid = (topic.json() as { uuid: string }).uuid;
      bookings = createRoomBookings(h, 'zoom', topicUuid, await freeSlots(h.app, h.acme.owner.username, topicUuid, 40));
    }, 60_000);

    afterAll(async () => {
      await h?.close();
      await zoom?.close();
    });

    afterEach(async () => {
      // Every test leaves the provider reachable and no job behind.
      zoom.failNextApiCalls(0, 500);
      zoom.answerTokenEndpointWith(null);
    });

    it('keeps the business’s Zoom app with its secret write-only, and refuses a connection before it is set', async () => {
      // Not connected, no static link: a Zoom meeting would have no link yet.
      expect(await bookings.placesReady()).toEqual({ [h.acme.owner.username]: ['offline'] });
      const early = await h.api('POST', `/api/v1/users/${h.acme.owner.uuid}/connections`, { provider: 'zoom' });
      expect(expectProblem(early, 400, 'VALIDATION_FAILED').errors?.[0]?.path).toBe('/provider');
      const unknown = await h.api('POST', `/api/v1/users/${h.acme.owner.uuid}/connections`, { provider: 'skype' });
      expect(expectProblem(unknown, 400, 'VALIDATION_FAILED').errors?.[0]?.path).toBe('/provider');

      const missing = await h.api('PATCH', '/api/v1/account', { integrations: { zoom: { clientId: zoom.clientId } } });
      expect(expectProblem(missing, 400, 'VALIDATION_FAILED').errors?.[0]?.path).toBe('/integrations/zoom/clientSecret');
      const saved = await h.api('PATCH', '/api/v1/account', { integrations: { zoom: { clientId: zoom.clientId, clientSecret: zoom.clientSecret } } });
      expect(saved.statusCode, saved.body).toBe(200);
      const account = (await h.api('GET', '/api/v1/account')).json() as { integrations: { provider: string; configured: boolean; settings: Record<string, string> }[] };
      expect(account.integrations.find((i) => i.provider === 'zoom')).toEqual({ provider: 'zoom', configured: true, settings: { clientId: zoom.clientId } });
      expect(h.answers.some((body) => body.includes(zoom.clientSecret))).toBe(false);
    });

    it('refuses a callback with a missing, forged, reused or expired state, or the host’s refusal, with a page and nothing stored', async () => {
      const started = (await h.api('POST', `/api/v1/users/${h.acme.owner.uuid}/connections`, { provider: 'zoom' })).json() as {
        uuid: string;
        authorizeUrl: string;
        status: string;
      };
      expect(started.status).toBe('pending');
      const authorize = new URL(started.authorizeUrl);
      expect(authorize.origin + authorize.pathname).toBe(zoom.env.ZOOM_AUTHORIZE_URL);
      expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
        response_type: 'code',
        client_id: zoom.clientId,
        redirect_uri: `${PUBLIC_URL}/oauth/zoom/callback`,
        code_challenge_method: 'S256',
      });
      expect(authorize.searchParams.get('state')!.length).toBeGreaterThanOrEqual(32);
      expect(authorize.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);

      const consent = await fetch(started.authorizeUrl, { redirect: 'manual' });
      const back = new URL(consent.headers.get('location')!);
      const code = back.searchParams.get('code')!;
      const state = back.searchParams.get('state')!;
      const page = (query: string) => h.app.inject({ method: 'GET', url: `/oauth/zoom/callback?${query}` });

      for (const query of [`code=${code}`, `code=${code}&state=forged${state.slice(6)}`, `error=access_denied&state=${state}`]) {
        const refused = await page(query);
        expect(refused.statusCode, query).toBe(400);
        expect(refused.headers['content-type']).toMatch(/^text\/html/);
        expect(refused.body).toContain('Not connected');
      }
      // The host said no: that state is used up, so the code cannot be used with it either.
      expect((await page(`code=${code}&state=${state}`)).statusCode).toBe(400);
      expect(zoom.tokenCalls).toHaveLength(0);
      expect((await bookings.connectionOf()).status).toBe('pending');

      // A state older than 15 minutes.
      const again = (await h.api('POST', `/api/v1/users/${h.acme.owner.uuid}/connections`, { provider: 'zoom' })).json() as { authorizeUrl: string };
      const late = new URL((await fetch(again.authorizeUrl, { redirect: 'manual' })).headers.get('location')!);
      h.clock.advance(16 * 60_000);
      const expired = await page(late.search.slice(1));
      expect(expired.statusCode).toBe(400);
      expect(expired.body).toContain('expired');
      expect(zoom.tokenCalls).toHaveLength(0);
      // Another provider's callback with this state.
      expect((await h.app.inject({ method: 'GET', url: `/oauth/skype/callback?${late.search.slice(1)}` })).statusCode).toBe(404);
      expect((await bookings.connectionOf()).status).toBe('pending');
    });

    it('connects through the whole round trip: code exchanged once with PKCE, the Zoom user read, a reused callback refused', async () => {
      const { started, callback, callbackUrl } = await h.connect(h.acme.owner.uuid, 'zoom', zoom);
      expect(callback.statusCode, callback.body).toBe(200);
      expect(callback.body).toContain('Zoom is connected');
      expect(callback.body).toContain('olga@zoom.example');
      expect(zoom.tokenCalls).toEqual([{ grantType: 'authorization_code', ok: true }]);
      const connection = await bookings.connectionOf();
      expect(connection).toMatchObject({ uuid: started.uuid, provider: 'zoom', status: 'connected', accountEmail: 'olga@zoom.example', lastError: null });
      expect((await h.api('GET', `/api/v1/users/${h.acme.owner.uuid}/connections/${String(started.uuid)}`)).json()).toEqual(connection);
      expect(await bookings.placesReady()).toEqual({ [h.acme.owner.username]: ['zoom', 'offline'] });

      // The same callback again (a browser's back button): the state is used up.
      const replay = await h.app.inject({ method: 'GET', url: callbackUrl });
      expect(replay.statusCode).toBe(400);
      expect(zoom.tokenCalls).toHaveLength(1);
      expect((await bookings.connectionOf()).status).toBe('connected');
    });

    it('gives each booking a room of its own after the booking, with its link in both confirmations and the invitation', async () => {
      const callsBefore = zoom.apiCalls.length;
      const [a, b] = [await bookings.book(), await bookings.book()];
      // Nothing is asked of Zoom while booking.
      expect(zoom.apiCalls.length).toBe(callsBefore);
      expect((await bookings.meeting(a)).location.url).toBeNull();
      await h.runJobs();
      const rooms = [await bookings.meeting(a), await bookings.meeting(b)].map((m) => m.location);
      expect(rooms[0]!.url).not.toBe(rooms[1]!.url);
      for (const i of [0, 1]) {
        const location = rooms[i]!;
        const made = zoom.meetings.get(Number(location.conferenceId))!;
        expect(location).toMatchObject({ place: 'zoom', url: made.join_url, conferenceId: String(made.id), password: made.password });
        expect(made.duration).toBe(30);
        expect(made.topic).toBe(`Intro call: Guest ${bookings.participant - 1 + i}`);
      }
      const guest = bookings.mailsTo(`guest${bookings.participant - 1}@example.com`);
      expect(guest).toHaveLength(1);
      expect(guest[0]!.text).toContain(String(rooms[0]!.url));
      expect(guest[0]!.text).toContain(String(rooms[0]!.password));
      expect(guest[0]!.ics.content.replace(/\r\n[ \t]/g, '')).toContain(`URL;VALUE=URI:${String(rooms[0]!.url)}`);
      expect(guest[0]!.ics.content.replace(/\r\n[ \t]/g, '')).toMatch(/LOCATION:.*zoom\.us/);
      const host = h.sent.filter((m) => m.to.email === h.acme.owner.email && m.text.includes(String(rooms[0]!.url)));
      expect(host).toHaveLength(1);
      // Subscribers hear that the meetings have their links.
      for (const uuid of [a, b]) expect(h.webhookEvents('meeting.located').filter((e) => (e.data as { uuid: string }).uuid === uuid)).toHaveLength(1);
      // Running the jobs again makes nothing new.
      const made = zoom.meetings.size;
      await h.runJobs();
      expect(zoom.meetings.size).toBe(made);
    });

    it('moves the room once on a reschedule and deletes it once on a cancel', async () => {
      const uuid = await bookings.book();
      await h.runJobs();
      const room = (await bookings.meeting(uuid)).location;
      const id = Number(room.conferenceId);
      const newStart = bookings.nextSlot();
      const moved = await h.api('POST', `/api/v1/meetings/${uuid}/reschedule`, { start: newStart });
      expect(moved.statusCode, moved.body).toBe(200);
      await h.runJobs();
      const patches = zoom.apiCalls.filter((c) => c.method === 'PATCH' && c.path === `/v2/meetings/${id}`);
      expect(patches).toHaveLength(1);
      expect(zoom.meetings.get(id)!.start_time).toBe(newStart.replace('.000Z', 'Z'));
      // The participant keeps the same link.
      expect((await bookings.meeting(uuid)).location.url).toBe(room.url);

      const cancelled = await h.api('POST', `/api/v1/meetings/${uuid}/cancel`, {});
      expect(cancelled.statusCode, cancelled.body).toBe(200);
      await h.runJobs();
      await h.runJobs();
      expect(zoom.apiCalls.filter((c) => c.method === 'DELETE' && c.path === `/v2/meetings/${id}`)).toHaveLength(1);
      expect(zoom.meetings.has(id)).toBe(false);
    });

    it('offers a team topic’s slots to the host whose Zoom is connected first, whatever the alphabet says', async () => {
      const bob = (await h.api('POST', `/api/v1/teams/${h.acme.team.uuid}/users`, { firstName: 'Bob', lastName: 'Able', email: 'bob@acme.test' })).json() as { username: string };
      expect(bob.username < h.acme.owner.username).toBe(true);
      const team = (await h.api('POST', '/api/v1/meeting-topics', { name: 'Team call', durationMinutes: 30, places: ['zoom'], team: h.acme.team.uuid })).json() as { uuid: string };
      const view = await h.api('POST', '/api/v1/calculate-schedule', { meetingTopic: team.uuid, team: h.acme.team.uuid, timezone: 'UTC', offset: 7 }, null);
      const body = view.json() as { placesReady: Record<string, string[]>; days: { slots: { username: string }[] }[] };
      expect(body.placesReady).toEqual({ [h.acme.owner.username]: ['zoom'], [bob.username]: [] });
      const hosts = new Set(body.days.flatMap((day) => day.slots.map((slot) => slot.username)));
      // Both have the same hours and no meetings of this topic: without the preference, Bob (first by name) would take them all.
      expect([...hosts]).toEqual([h.acme.owner.username]);
    });

    it('makes the room later when Zoom fails for a while, and the participant gets one confirmation with one link', async () => {
      zoom.failNextApiCalls(3, 503);
      const uuid = await bookings.book();
      const email = `guest${bookings.participant}@example.com`;
      await h.runJobs();
      expect((await bookings.meeting(uuid)).location.url).toBeNull();
      // The confirmation waits for the room (up to 10 minutes).
      expect(bookings.mailsTo(email)).toHaveLength(0);
      for (let i = 0; i < 6 && (await bookings.meeting(uuid)).location.url === null; i += 1) {
        h.clock.advance(60_000);
        await h.runJobs();
      }
      const location = (await bookings.meeting(uuid)).location;
      expect(location.url).toMatch(/zoom\.us/);
      const mails = bookings.mailsTo(email);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.text).toContain(String(location.url));
      expect([...zoom.meetings.values()].filter((m) => m.topic === `Intro call: Guest ${bookings.participant}`)).toHaveLength(1);
    });

    it('adopts the room Zoom made when its answer was lost, instead of making a second', async () => {
      zoom.dropNextApiAnswers(1);
      const uuid = await bookings.book();
      const topic = `Intro call: Guest ${bookings.participant}`;
      await h.runJobs();
      // Zoom made the room; termin never heard of it.
      expect([...zoom.meetings.values()].filter((m) => m.topic === topic)).toHaveLength(1);
      expect((await bookings.meeting(uuid)).location.url).toBeNull();
      for (let i = 0; i < 6 && (await bookings.meeting(uuid)).location.url === null; i += 1) {
        h.clock.advance(60_000);
        await h.runJobs();
      }
      const made = [...zoom.meetings.values()].filter((m) => m.topic === topic);
      expect(made).toHaveLength(1);
      expect((await bookings.meeting(uuid)).location).toMatchObject({ url: made[0]!.join_url, password: made[0]!.password });
      expect(bookings.mailsTo(`guest${bookings.participant}@example.com`)).toHaveLength(1);
    });

    it('sends the confirmation after 10 minutes without the link, then one update with it, same UID, next SEQUENCE', async () => {
      zoom.failNextApiCalls(1_000, 500);
      const uuid = await bookings.book();
      const email = `guest${bookings.participant}@example.com`;
      await h.runJobs();
      h.clock.advance(10 * 60_000 + 1_000);
      await h.runJobs();
      const first = bookings.mailsTo(email);
      expect(first).toHaveLength(1);
      expect(first[0]!.text).toMatch(/link .*follow/i);
      zoom.failNextApiCalls(0, 500);
      for (let i = 0; i < 8 && (await bookings.meeting(uuid)).location.url === null; i += 1) {
        h.clock.advance(5 * 60_000);
        await h.runJobs();
      }
      const location = (await bookings.meeting(uuid)).location;
      expect(location.url).toMatch(/zoom\.us/);
      const mails = bookings.mailsTo(email);
      expect(mails).toHaveLength(2);
      expect(mails[1]!.text).toContain(String(location.url));
      const uid = (ics: string) => /UID:(.+)\r\n/.exec(ics)?.[1];
      const sequence = (ics: string) => Number(/SEQUENCE:(\d+)/.exec(ics)?.[1] ?? 0);
      expect(uid(mails[1]!.ics.content)).toBe(uid(mails[0]!.ics.content));
      expect(sequence(mails[1]!.ics.content)).toBe(sequence(mails[0]!.ics.content) + 1);
      expect([...zoom.meetings.values()].filter((m) => m.topic === `Intro call: Guest ${bookings.participant}`)).toHaveLength(1);
    });

    it('refreshes an expired access token once, keeps the rotated refresh token, and two instances refresh it once between them', async () => {
      const refreshes = () => zoom.tokenCalls.filter((c) => c.grantType === 'refresh_token');
      const before = refreshes().length;
      zoom.expireAccessTokens();
      const a = await bookings.book();
      await h.runJobs();
      expect((await bookings.meeting(a)).location.url).toMatch(/zoom\.us/);
      expect(refreshes().slice(before)).toEqual([{ grantType: 'refresh_token', ok: true }]);

      // Zoom refused the old refresh token from then on: a second refresh works only with the
      // rotated one. This time the token is past its expiry by termin's own record.
      h.clock.advance(61 * 60_000);
      const second = await h.startInstance();
      const connectionUuid = String((await bookings.connectionOf()).uuid);
      const gate = zoom.holdRefreshes();
      const read = (ctx: typeof second.ctx) => withAccessToken(ctx, connectionUuid, async (token) => token);
      const both = Promise.all([read(h.ctx), read(second.ctx)]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      gate.release();
      const [tokenA, tokenB] = await both;
      expect(tokenA).toBe(tokenB);
      expect(refreshes().slice(before)).toEqual([
        { grantType: 'refresh_token', ok: true },
        { grantType: 'refresh_token', ok: true },
      ]);
      expect((await bookings.connectionOf()).status).toBe('connected');
    });

    it('turns a revoked grant into a connection error the host hears of, books without a link, and makes the rooms after reconnecting', async () => {
      zoom.revokeAllGrants();
      zoom.expireAccessTokens();
      const first = await bookings.book();
      await h.runJobs();
      const failed = await bookings.connectionOf();
      expect(failed.status).toBe('error');
      expect(String(failed.lastError)).toMatch(/Zoom refused/);
      expect(h.webhookEvents('connection.error').map((e) => (e.data as { uuid: string }).uuid)).toEqual([failed.uuid]);
      expect(h.sent.filter((m) => m.to.email === h.acme.owner.email && /Zoom connection stopped working/.test(m.subject))).toHaveLength(1);
      expect(await bookings.placesReady()).toEqual({ [h.acme.owner.username]: ['offline'] });
      // The participant is not kept waiting for a room that cannot come now.
      const firstEmail = `guest${bookings.participant}@example.com`;
      expect(bookings.mailsTo(firstEmail)).toHaveLength(1);
      expect(bookings.mailsTo(firstEmail)[0]!.text).toMatch(/link .*follow/i);

      const next = await bookings.book();
      await h.runJobs();
      expect((await bookings.meeting(next)).location.url).toBeNull();
      expect(h.sent.filter((m) => m.to.email === h.acme.owner.email && /has no link yet: connect zoom/.test(m.subject))).toHaveLength(1);

      const { callback } = await h.connect(h.acme.owner.uuid, 'zoom', zoom);
      expect(callback.statusCode, callback.body).toBe(200);
      expect((await bookings.connectionOf()).status).toBe('connected');
      expect(await bookings.placesReady()).toEqual({ [h.acme.owner.username]: ['zoom', 'offline'] });
      await h.runJobs();
      for (const uuid of [first, next]) {
        const location = (await bookings.meeting(uuid)).location;
        expect(location.url, uuid).toMatch(/zoom\.us/);
      }
      // Each participant: the confirmation saying the link follows, then one update with it.
      for (const email of [firstEmail, `guest${bookings.participant}@example.com`]) {
        const mails = bookings.mailsTo(email);
        expect(mails).toHaveLength(2);
        expect(mails[1]!.text).toMatch(/zoom\.us/);
      }
    });

    it('shows an error page and stores nothing when the token endpoint answers garbage, HTML or a huge body', async () => {
      const connection = await bookings.connectionOf();
      for (const raw of [
        { status: 200, contentType: 'application/json', body: '{"access_token":' },
        { status: 200, contentType: 'text/html', body: '<html><body>Sign in</body></html>' },
        { status: 200, contentType: 'application/json', body: JSON.stringify({ access_token: 'x'.repeat(3_000_000), token_type: 'bearer' }) },
        { status: 502, contentType: 'text/html', body: '<h1>Bad gateway</h1>' },
      ]) {
        zoom.answerTokenEndpointWith(raw);
        const { callback } = await h.connect(h.acme.owner.uuid, 'zoom', zoom);
        expect(callback.statusCode, raw.body.slice(0, 40)).toBe(400);
        expect(callback.body).toContain('Not connected');
        expect(await bookings.connectionOf()).toEqual(connection);
      }
    });

    it('refuses another account’s connection, and revokes the grant on disconnect', async () => {
      const connection = await bookings.connectionOf();
      const stranger = (await createTestAccount(h.ctx)).apiKey;
      const foreign = await h.api('GET', `/api/v1/users/${h.acme.owner.uuid}/connections/${String(connection.uuid)}`, undefined, stranger);
      expect(foreign.statusCode).toBeGreaterThanOrEqual(403);
      expect(foreign.statusCode).toBeLessThanOrEqual(404);
      const removed = await h.api('DELETE', `/api/v1/users/${h.acme.owner.uuid}/connections/${String(connection.uuid)}`);
      expect(removed.statusCode).toBe(204);
      expectProblem(await h.api('GET', `/api/v1/users/${h.acme.owner.uuid}/connections/${String(connection.uuid)}`), 404, 'NOT_FOUND');
      // Zoom was asked to revoke the grant: its tokens work no more.
      expect(zoom.revocations).toHaveLength(1);
      expect(zoom.revocations[0]!.revoked).toBe(true);
    });

    it('never shows or logs a token', () => {
      expect(zoom.issuedTokens.length).toBeGreaterThan(3);
      const logs = h.logs.join('\n');
      for (const token of zoom.issuedTokens) {
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
      expect(logs.includes(zoom.clientSecret)).toBe(false);
    });
  });
}
