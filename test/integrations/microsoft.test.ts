import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { withAccessToken } from '../../src/scheduling/provider-access.js';
import { type FakeMicrosoft, startFakeMicrosoft } from '../fakes/microsoft.js';
import { DIALECTS, createClock, expectProblem } from '../helpers.js';
import { createRoomBookings, freeSlots, type Harness, type RoomBookings, PUBLIC_URL, startHarness } from './harness.js';

/**
 * Microsoft Teams from a business's point of view, against the stand-in in
 * test/fakes/microsoft.ts: the app configured with its tenant, a host connected through the
 * whole OAuth round trip under that tenant, each booking at `teamsForBusiness` given an
 * Outlook event with a Teams meeting of its own from the outbox, whose link reaches both
 * e-mails and the invitation, moved and deleted with the meeting; a lost answer, a slow Teams
 * link, an expired token and a revoked grant, without a lost booking or a second link.
 */
for (const dialect of DIALECTS) {
  // Not shuffled, by design, as zoom.test.ts: the tests are the life of one host's connection
  // in order (app configured, connected, used, broken, reconnected, disconnected), each step
  // on the connection, the stand-in's state and the counts the step before left.
  describe(`Microsoft Teams rooms [${dialect}]`, { shuffle: false }, () => {
    let h: Harness;
    let ms: FakeMicrosoft;
    let topicUuid: string;
    let bookings: RoomBookings;

    const eventsOf = (n: number) => [...ms.events.values()].filter((event) => event.subject === `Intro call: Guest ${n}`);
    const untilLinked = async (uuid: string, stepMs: number, rounds: number) => {
      for (let i = 0; i < rounds && (await bookings.meeting(uuid)).location.url === null; i += 1) {
        h.clock.advance(stepMs);
        await h.runJobs();
      }
    };

    beforeAll(async () => {
      const clock = createClock('2027-01-04T06:00:00.000Z');
      ms = await startFakeMicrosoft({ now: clock.now, accountEmail: 'adele@contoso.onmicrosoft.com' });
      h = await startHarness(dialect, clock, ms.env, ['teamsForBusiness', 'offline']);
      const topic = await h.api('POST', '/api/v1/meeting-topics', { name: 'Intro call', durationMinutes: 30, places: ['teamsForBusiness', 'offline'], bookingWindowDays: 365 });
      topicUuid = (topic.json() as { uuid: string }).uuid;
      bookings = createRoomBookings(h, 'teamsForBusiness', topicUuid, await freeSlots(h.app, h.acme.owner.username, topicUuid, 40));
    }, 60_000);

    afterAll(async () => {
      await h?.close();
      await ms?.close();
    });

    afterEach(() => {
      ms.failNextApiCalls(0, 503);
      ms.answerTokenEndpointWith(null);
    });

    it('keeps the business’s Microsoft app with its tenant (default common), refusing a tenant that is not one at its path', async () => {
      for (const tenant of ['contoso/../evil', 'not a tenant', 'https://login.microsoftonline.com', 'a?b=c']) {
        const refused = await h.api('PATCH', '/api/v1/account', { integrations: { microsoft: { clientId: ms.clientId, clientSecret: ms.clientSecret, tenant } } });
        expect(
          expectProblem(refused, 400, 'VALIDATION_FAILED').errors?.map((e) => e.path),
          tenant,
        ).toEqual(['/integrations/microsoft/tenant']);
      }
      const settingsOf = async () =>
        ((await h.api('GET', '/api/v1/account')).json() as { integrations: { provider: string; configured: boolean; settings: Record<string, string> }[] }).integrations.find(
          (i) => i.provider === 'microsoft',
        );
      // Nothing was stored by the refusals.
      expect(await settingsOf()).toBeUndefined();
      const saved = await h.api('PATCH', '/api/v1/account', { integrations: { microsoft: { clientId: ms.clientId, clientSecret: ms.clientSecret } } });
      expect(saved.statusCode, saved.body).toBe(200);
      expect(await settingsOf()).toEqual({ provider: 'microsoft', configured: true, settings: { clientId: ms.clientId, tenant: 'common' } });
      for (const tenant of [ms.tenantId, 'organizations', ms.tenantDomain]) {
        // The secret left out keeps the stored one.
        const changed = await h.api('PATCH', '/api/v1/account', { integrations: { microsoft: { clientId: ms.clientId, tenant } } });
        expect(changed.statusCode, `${tenant}: ${changed.body}`).toBe(200);
        expect((await settingsOf())?.settings.tenant).toBe(tenant);
      }
      expect(h.answers.some((body) => body.includes(ms.clientSecret))).toBe(false);
    });

    it('connects through the whole round trip under the account’s tenant: PKCE, the secret in the body, the Graph user read', async () => {
      const { started, callback } = await h.connect(h.acme.owner.uuid, 'microsoft', ms);
      const authorize = new URL(String(started.authorizeUrl));
      expect(authorize.pathname).toBe(`/${ms.tenantDomain}/oauth2/v2.0/authorize`);
      expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
        response_type: 'code',
        client_id: ms.clientId,
        redirect_uri: `${PUBLIC_URL}/oauth/microsoft/callback`,
        code_challenge_method: 'S256',
      });
      expect(authorize.searchParams.get('scope')!.split(' ')).toEqual(expect.arrayContaining(['offline_access', 'User.Read', 'Calendars.ReadWrite']));
      expect(callback.statusCode, callback.body).toBe(200);
      expect(callback.body).toContain('Microsoft is connected');
      expect(callback.body).toContain('adele@contoso.onmicrosoft.com');
      // The browser went to the tenant's authorize endpoint, termin to the same tenant's token endpoint.
      expect(ms.tenantsCalled).toEqual([ms.tenantDomain, ms.tenantDomain]);
      expect(ms.tokenCalls).toEqual([{ grantType: 'authorization_code', ok: true }]);
      expect(await bookings.connectionOf()).toMatchObject({
        uuid: started.uuid,
        provider: 'microsoft',
        status: 'connected',
        accountEmail: 'adele@contoso.onmicrosoft.com',
        lastError: null,
      });
    });

    it('shows an error page and keeps the working connection when the secret given is the Secret ID, not its value', async () => {
      const connection = await bookings.connectionOf();
      const wrong = await h.api('PATCH', '/api/v1/account', { integrations: { microsoft: { clientId: ms.clientId, clientSecret: randomSecretId(), tenant: ms.tenantDomain } } });
      expect(wrong.statusCode, wrong.body).toBe(200);
      const { callback } = await h.connect(h.acme.owner.uuid, 'microsoft', ms);
      expect(callback.statusCode).toBe(400);
      expect(callback.body).toContain('Not connected');
      expect(callback.body).toContain('AADSTS7000215');
      expect(ms.tokenCalls.at(-1)).toEqual({ grantType: 'authorization_code', ok: false });
      expect(await bookings.connectionOf()).toEqual(connection);
      const right = await h.api('PATCH', '/api/v1/account', { integrations: { microsoft: { clientId: ms.clientId, clientSecret: ms.clientSecret, tenant: ms.tenantDomain } } });
      expect(right.statusCode, right.body).toBe(200);
    });

    it('gives each booking its own Teams meeting after the booking, with its link in both confirmations and the invitation', async () => {
      const callsBefore = ms.apiCalls.length;
      const [a, b] = [await bookings.book(), await bookings.book()];
      expect(ms.apiCalls.length).toBe(callsBefore);
      expect((await bookings.meeting(a)).location.url).toBeNull();
      await h.runJobs();
      const locations = [await bookings.meeting(a), await bookings.meeting(b)].map((m) => m.location);
      expect(locations[0]!.url).not.toBe(locations[1]!.url);
      for (const [i, location] of locations.entries()) {
        const [event] = eventsOf(bookings.participant - 1 + i);
        expect(location).toMatchObject({ place: 'teamsForBusiness', url: event!.onlineMeeting!.joinUrl });
        expect(event).toMatchObject({ isOnlineMeeting: true, onlineMeetingProvider: 'teamsForBusiness' });
        expect(Date.parse(`${event!.end.dateTime}Z`) - Date.parse(`${event!.start.dateTime}Z`)).toBe(30 * 60_000);
        expect(event!.attendees).toEqual([
          expect.objectContaining({ emailAddress: { address: `guest${bookings.participant - 1 + i}@example.com`, name: `Guest ${bookings.participant - 1 + i}` } }),
        ]);
        // The request id is both Graph's idempotency key and the property an orphan is found by.
        expect(event!.transactionId).toBeTruthy();
        expect(event!.singleValueExtendedProperties.map((p) => `termin-${p.value}`)).toEqual([event!.transactionId]);
      }
      const guest = bookings.mailsTo(`guest${bookings.participant - 1}@example.com`);
      expect(guest).toHaveLength(1);
      expect(guest[0]!.text).toContain(String(locations[0]!.url));
      const ics = guest[0]!.ics.content.replace(/\r\n[ \t]/g, '');
      expect(ics).toContain(`URL;VALUE=URI:${String(locations[0]!.url)}`);
      expect(ics).toMatch(/LOCATION:.*teams\.microsoft\.com/);
      expect(h.sent.filter((m) => m.to.email === h.acme.owner.email && m.text.includes(String(locations[0]!.url)))).toHaveLength(1);
      const made = ms.events.size;
      await h.runJobs();
      expect(ms.events.size).toBe(made);
    });

    it('moves the event once on a reschedule and deletes it once on a cancel', async () => {
      const uuid = await bookings.book();
      await h.runJobs();
      const [event] = eventsOf(bookings.participant);
      const link = (await bookings.meeting(uuid)).location.url;
      const newStart = bookings.nextSlot();
      const moved = await h.api('POST', `/api/v1/meetings/${uuid}/reschedule`, { start: newStart });
      expect(moved.statusCode, moved.body).toBe(200);
      await h.runJobs();
      const path = `/v1.0/me/events/${encodeURIComponent(event!.id)}`;
      expect(ms.apiCalls.filter((c) => c.method === 'PATCH' && c.path === path)).toHaveLength(1);
      expect(`${ms.events.get(event!.id)!.start.dateTime.slice(0, 19)}.000Z`).toBe(newStart);
      expect((await bookings.meeting(uuid)).location.url).toBe(link);

      const cancelled = await h.api('POST', `/api/v1/meetings/${uuid}/cancel`, {});
      expect(cancelled.statusCode, cancelled.body).toBe(200);
      await h.runJobs();
      await h.runJobs();
      expect(ms.apiCalls.filter((c) => c.method === 'DELETE' && c.path === path)).toHaveLength(1);
      expect(ms.events.has(event!.id)).toBe(false);
    });

    it('adopts the event Graph made when its answer was lost, and sends the participant one link', async () => {
      ms.dropNextApiAnswers(1);
      const uuid = await bookings.book();
      await h.runJobs();
      expect(eventsOf(bookings.participant)).toHaveLength(1);
      expect((await bookings.meeting(uuid)).location.url).toBeNull();
      await untilLinked(uuid, 60_000, 6);
      const made = eventsOf(bookings.participant);
      expect(made).toHaveLength(1);
      expect((await bookings.meeting(uuid)).location.url).toBe(made[0]!.onlineMeeting!.joinUrl);
      const mails = bookings.mailsTo(`guest${bookings.participant}@example.com`);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.text).toContain(made[0]!.onlineMeeting!.joinUrl);
    });

    it('answers a repeated create with the same transactionId with the event already made', async () => {
      const connectionUuid = String((await bookings.connectionOf()).uuid);
      const request = {
        meetingUuid: 'not-a-meeting',
        requestId: 'req-repeat-1',
        title: 'Repeat check',
        start: Date.parse('2027-06-01T09:00:00Z'),
        end: Date.parse('2027-06-01T09:30:00Z'),
        timezone: 'UTC',
        attendee: { name: 'Rita', email: 'rita@example.com' },
      };
      const rooms = h.ctx.integrations.microsoft.rooms;
      const first = await withAccessToken(h.ctx, connectionUuid, (token) => rooms.createRoom(token, request));
      const second = await withAccessToken(h.ctx, connectionUuid, (token) => rooms.createRoom(token, request));
      expect(second).toEqual(first);
      expect([...ms.events.values()].filter((event) => event.subject === 'Repeat check')).toHaveLength(1);
      expect(await withAccessToken(h.ctx, connectionUuid, (token) => rooms.findRoom(token, request))).toEqual(first);
      await withAccessToken(h.ctx, connectionUuid, (token) => rooms.deleteRoom(token, first.roomId));
      // Already gone is not an error.
      await withAccessToken(h.ctx, connectionUuid, (token) => rooms.deleteRoom(token, first.roomId));
      expect(await withAccessToken(h.ctx, connectionUuid, (token) => rooms.findRoom(token, request))).toBeNull();
    });

    it('says plainly when the host’s account makes events without Teams, instead of waiting for a link that cannot come', async () => {
      const connectionUuid = String((await bookings.connectionOf()).uuid);
      const request = {
        meetingUuid: 'not-a-meeting',
        requestId: 'req-no-teams',
        title: 'No Teams here',
        start: Date.parse('2027-06-02T09:00:00Z'),
        end: Date.parse('2027-06-02T09:30:00Z'),
        timezone: 'UTC',
        attendee: { name: 'Rita', email: 'rita@example.com' },
      };
      ms.setTeamsAvailable(false);
      try {
        await expect(withAccessToken(h.ctx, connectionUuid, (token) => h.ctx.integrations.microsoft.rooms.createRoom(token, request))).rejects.toThrow(/cannot make them/);
      } finally {
        ms.setTeamsAvailable(true);
      }
    });

    it('waits for a Teams link Graph attaches only after the event is made', async () => {
      ms.delayJoinUrls(1);
      const uuid = await bookings.book();
      await h.runJobs();
      const [event] = eventsOf(bookings.participant);
      expect((await bookings.meeting(uuid)).location.url).toBe(event!.onlineMeeting!.joinUrl);
      expect(bookings.mailsTo(`guest${bookings.participant}@example.com`)).toHaveLength(1);
    });

    it('refreshes an expired access token once, naming the scopes, and keeps the rotated refresh token', async () => {
      const refreshes = () => ms.tokenCalls.filter((c) => c.grantType === 'refresh_token');
      const before = refreshes().length;
      for (const round of [1, 2]) {
        ms.expireAccessTokens();
        const uuid = await bookings.book();
        await h.runJobs();
        expect((await bookings.meeting(uuid)).location.url, `round ${round}`).toMatch(/teams\.microsoft\.com/);
        // The second refresh works only with the refresh token the first one returned.
        expect(refreshes().slice(before)).toEqual(Array.from({ length: round }, () => ({ grantType: 'refresh_token', ok: true })));
      }
      expect(ms.scopesAsked.at(-1)!.split(' ')).toContain('Calendars.ReadWrite');
      expect(ms.tenantsCalled.at(-1)).toBe(ms.tenantDomain);
      expect((await bookings.connectionOf()).status).toBe('connected');
    });

    it('turns a revoked grant into a connection error the host hears of, books without a link, and makes the event after reconnecting', async () => {
      ms.revokeAllGrants();
      ms.expireAccessTokens();
      const first = await bookings.book();
      await h.runJobs();
      const failed = await bookings.connectionOf();
      expect(failed.status).toBe('error');
      expect(String(failed.lastError)).toMatch(/AADSTS50173/);
      expect(h.webhookEvents('connection.error').map((e) => (e.data as { uuid: string }).uuid)).toEqual([failed.uuid]);
      expect(h.sent.filter((m) => m.to.email === h.acme.owner.email && /Microsoft connection stopped working/.test(m.subject))).toHaveLength(1);
      const email = `guest${bookings.participant}@example.com`;
      expect(bookings.mailsTo(email)).toHaveLength(1);
      expect(bookings.mailsTo(email)[0]!.text).toMatch(/link .*follow/i);

      const { callback } = await h.connect(h.acme.owner.uuid, 'microsoft', ms);
      expect(callback.statusCode, callback.body).toBe(200);
      await h.runJobs();
      const location = (await bookings.meeting(first)).location;
      expect(location.url).toBe(eventsOf(bookings.participant)[0]!.onlineMeeting!.joinUrl);
      expect(eventsOf(bookings.participant)).toHaveLength(1);
      const mails = bookings.mailsTo(email);
      expect(mails).toHaveLength(2);
      expect(mails[1]!.text).toContain(String(location.url));
    });

    it('forgets the tokens on disconnect without calling Microsoft, which has no revocation endpoint', async () => {
      const connection = await bookings.connectionOf();
      const tokenCalls = ms.tokenCalls.length;
      const removed = await h.api('DELETE', `/api/v1/users/${h.acme.owner.uuid}/connections/${String(connection.uuid)}`);
      expect(removed.statusCode).toBe(204);
      expectProblem(await h.api('GET', `/api/v1/users/${h.acme.owner.uuid}/connections/${String(connection.uuid)}`), 404, 'NOT_FOUND');
      expect(ms.tokenCalls.length).toBe(tokenCalls);
    });

    it('never shows or logs a token', () => {
      expect(ms.issuedTokens.length).toBeGreaterThan(4);
      const logs = h.logs.join('\n');
      for (const token of ms.issuedTokens) {
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
      expect(logs.includes(ms.clientSecret)).toBe(false);
    });
  });
}

/** What an admin pastes by mistake: the secret's id (a GUID) from the Entra portal's list, instead of its value. */
function randomSecretId(): string {
  return crypto.randomUUID();
}
