import type { ColumnNode, Kysely, RootOperationNode, ValueNode } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/context.js';
import type { Database } from '../../src/db/database.js';
import type { IntegrationProvider } from '../../src/domain/integrations.js';
import { newId } from '../../src/ids.js';
import { ConnectionRefusedError, ProviderError } from '../../src/integrations/ports.js';
import { createIntegrationRegistry } from '../../src/integrations/registry.js';
import { createVendorHttp } from '../../src/net/vendor-http.js';
import { ConnectionUnusableError, withAccessToken } from '../../src/scheduling/integrations/provider-access.js';
import type { OAuthProvider, TokenRefusal } from '../fakes/oauth-provider.js';
import { DIALECTS, createClock, createTestAccount, expectProblem } from '../helpers.js';
import { createRoomBookings, freeSlots, type Harness, type RoomBookings, PUBLIC_URL, startHarness } from './harness.js';

/**
 * The room-provider conformance suite: the life of one host's connection to a provider, from a
 * business's point of view, against the provider's stand-in in test/fakes/. The app configured,
 * the host connected through the whole OAuth round trip, each booking given a room of its own
 * from the outbox (never while booking) whose link reaches both e-mails and the invitation,
 * moved and deleted with the meeting; an outage, a lost answer, a late link, expired tokens
 * (two instances refreshing once between them), a revoked grant, a broken token endpoint,
 * another account and a disconnect: no lost booking, no second link, no token anywhere. Each
 * provider's test file describes its stand-in (a RoomProviderCase) and adds what only that
 * provider does after the step of the story it follows on from.
 */

/** A room as the stand-in holds it, in one shape for every provider. */
export interface StandInRoom<R> {
  id: string;
  title: string;
  start: number;
  end: number;
  /** What termin's meeting shows once it has this room. */
  location: { url: string | null; conferenceId: string | null; password: string | null };
  /** Deleted but kept (Google keeps a deleted event, `cancelled`, its id taken). */
  cancelled: boolean;
  /** The stand-in's own record. */
  raw: R;
}

export type ApiCall = OAuthProvider['apiCalls'][number];
export type RoomStandIn = OAuthProvider & {
  clientId: string;
  clientSecret: string;
  env: Record<string, string>;
  /** The next `count` API calls are refused as the provider documents it: the grant lacks a scope, or the request is one it never takes (400). */
  refuseNextApiCalls(count: number, why: 'scope' | 'invalid'): void;
};
export type RoomStep = 'configure' | 'callbacks' | 'connect' | 'team' | 'rooms' | 'move' | 'removed' | 'port' | 'outage' | 'lost' | 'late' | 'refresh' | 'revoked';

export interface RoomProviderCase<F extends RoomStandIn, R> {
  provider: IntegrationProvider;
  /** In messages and pages: "Zoom is connected", "Your Zoom connection stopped working". */
  label: string;
  /** The suite's name: "Google Meet rooms". */
  product: string;
  place: string;
  accountEmail: string;
  startStandIn(options: { now: () => number; accountEmail: string }): Promise<F>;
  /** The app's settings as the API shows them once configured (never its secret). */
  settings(fake: F): Record<string, string>;
  /** Where the host's browser is sent, and what it asks for besides the common OAuth and PKCE parameters. */
  authorize(fake: F): { endpoint: string; params: Record<string, string> };
  /** Sent back with the code besides `code` and `state` (Google's `iss`). */
  callbackParams?: Record<string, string>;
  /** A connection's one API call, `METHOD /path`: the account's e-mail read. */
  accountRead: string;
  link: RegExp;
  /** The meeting's location fields that the participant's confirmation shows. */
  mailed: readonly ('url' | 'conferenceId' | 'password')[];
  rooms(fake: F): StandInRoom<R>[];
  /** Where one room is moved and deleted. */
  roomPath(id: string): string;
  moveMethod: 'PATCH' | 'PUT';
  /** The title of the room an API call asks the provider to make; undefined for any other call. */
  createdTitle(call: ApiCall): string | undefined;
  /** The call that looks for the room of a lost answer. */
  lookup(room: StandInRoom<R>): (call: ApiCall) => boolean;
  /** What every room termin makes (or moves, or adopts) holds besides its title, times and link. */
  checkRoom(room: R, booked: { meetingUuid: string; participant: number }): void;
  /** The host deletes the room at the provider. */
  removeAtProvider(fake: F, id: string): void;
  /** A repeated create of one request answers the room made first (Google's event id, Graph's transactionId). */
  idempotentCreate: boolean;
  keepsDeletedRooms: boolean;
  /** A revocation endpoint, asked on disconnect. */
  revokes: boolean;
  /** The connection's error once the grant is refused. */
  grantRefused: RegExp;
  /** The final refusals the provider's token endpoint documents besides RFC 6749's `invalid_client` and `invalid_scope` (Microsoft's `interaction_required`, …). */
  tokenRefusals?: readonly TokenRefusal[];
  /** A scope the host may untick on the consent screen that termin cannot work without, and how the callback page names it. */
  requiredScope?: { scope: string; named: RegExp };
  /** Puts the stand-in's own controls back after each test. */
  reset?(fake: F): void;
  /** The provider's own tests, registered after the named step. */
  specific?: Partial<Record<RoomStep, (f: RoomFixture<F, R>) => void>>;
}

/** What the story's tests share, for a provider's own tests (to be read inside a test: beforeAll sets it). */
export interface RoomFixture<F extends RoomStandIn, R> {
  h: Harness;
  fake: F;
  bookings: RoomBookings;
  /** Live rooms titled for participant `n`: "Intro call: Guest n". */
  titled(n: number): StandInRoom<R>[];
  mailsOf(n: number): Harness['sent'];
  /** The account's app for this provider, as GET /account shows it. */
  integration(): Promise<{ provider: string; configured: boolean; settings: Record<string, string> } | undefined>;
}

const THIRTY_MINUTES = 30 * 60_000;
const unfold = (ics: string) => ics.replace(/\r\n[ \t]/g, '');
// Webex's token endpoint's own shape, the identity broker's OAuth error inside its message.
const WEBEX_SHAPED_ERROR = JSON.stringify({ message: "error = '(invalid_grant) Authorization code has been used.'", errors: [], trackingId: 'T' });

export function describeRoomProvider<F extends RoomStandIn, R>(spec: RoomProviderCase<F, R>): void {
  for (const dialect of DIALECTS) {
    // Not shuffled, by design: the tests are the life of one host's connection, in order (the app
    // configured, connected, rooms made, outages, tokens refreshed, the grant revoked and
    // reconnected, disconnected, then no token anywhere), each step on the connection, the
    // stand-in's state and the counts the step before left.
    describe(`${spec.product} rooms [${dialect}]`, { shuffle: false }, () => {
      let h: Harness;
      let fake: F;
      let bookings: RoomBookings;
      const title = (n: number) => `Intro call: Guest ${n}`;
      const f = {
        titled: (n: number) => spec.rooms(fake).filter((room) => !room.cancelled && room.title === title(n)),
        mailsOf: (n: number) => bookings.mailsTo(`guest${n}@example.com`),
        async integration() {
          const account = (await h.api('GET', '/api/v1/account')).json() as { integrations: { provider: string; configured: boolean; settings: Record<string, string> }[] };
          return account.integrations.find((i) => i.provider === spec.provider);
        },
      } as RoomFixture<F, R>;
      const specificAfter = (step: RoomStep) => spec.specific?.[step]?.(f);
      const owner = () => h.acme.owner;
      const connections = () => `/api/v1/users/${owner().uuid}/connections`;
      const room = (id: string) => spec.rooms(fake).find((made) => made.id === id);
      const creates = (roomTitle: string) => fake.apiCalls.filter((call) => spec.createdTitle(call) === roomTitle).length;
      const callsTo = (method: string, id: string) =>
        fake.apiCalls.filter((call) => call.method === method && (call.path === spec.roomPath(id) || call.path.startsWith(`${spec.roomPath(id)}?`)));
      const book = async () => ({ uuid: await bookings.book(), n: bookings.participant });
      const linkOf = async (uuid: string) => (await bookings.meeting(uuid)).location.url;
      const cancel = async (uuid: string) => expect((await h.api('POST', `/api/v1/meetings/${uuid}/cancel`, {})).statusCode).toBe(200);
      const hostMails = (which: (mail: Harness['sent'][number]) => boolean) => h.sent.filter((mail) => mail.to.email === owner().email && which(mail));
      const untilLinked = async (uuid: string, stepMs: number, rounds: number) => {
        for (let i = 0; i < rounds && (await linkOf(uuid)) === null; i += 1) {
          h.clock.advance(stepMs);
          await h.runJobs();
        }
      };
      const expectAuthorizeUrl = (authorizeUrl: string) => {
        const url = new URL(authorizeUrl);
        const { endpoint, params } = spec.authorize(fake);
        expect(url.origin + url.pathname).toBe(endpoint);
        const common = { response_type: 'code', client_id: fake.clientId, redirect_uri: `${PUBLIC_URL}/oauth/${spec.provider}/callback`, code_challenge_method: 'S256' };
        expect(Object.fromEntries(url.searchParams)).toMatchObject({ ...common, ...params });
        expect(url.searchParams.get('state')!.length).toBeGreaterThanOrEqual(32);
        expect(url.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
      };

      beforeAll(async () => {
        const clock = createClock('2027-01-04T06:00:00.000Z');
        fake = await spec.startStandIn({ now: clock.now, accountEmail: spec.accountEmail });
        h = await startHarness(dialect, clock, fake.env, [spec.place, 'offline']);
        const topic = await h.api('POST', '/api/v1/meeting-topics', { name: 'Intro call', durationMinutes: 30, places: [spec.place, 'offline'], bookingWindowDays: 365 });
        const topicUuid = (topic.json() as { uuid: string }).uuid;
        bookings = createRoomBookings(h, spec.place, topicUuid, await freeSlots(h.app, h.acme.owner.username, topicUuid, 40));
        Object.assign(f, { h, fake, bookings });
      }, 60_000);

      afterAll(async () => {
        await h?.close();
        await fake?.close();
      });

      afterEach(() => {
        // Every test leaves the provider reachable and answering.
        fake.failNextApiCalls(0, 500);
        fake.dropNextApiAnswers(0);
        fake.answerTokenEndpointWith(null);
        fake.refuseNextApiCalls(0, 'scope');
        spec.reset?.(fake);
      });

      it(`keeps the business’s ${spec.label} app with its secret write-only, and refuses a connection before it is set`, async () => {
        // Not connected, no static link: a meeting there would have no link yet.
        expect(await bookings.placesReady()).toEqual({ [owner().username]: ['offline'] });
        for (const provider of [spec.provider, 'skype']) {
          expect(expectProblem(await h.api('POST', connections(), { provider }), 400, 'VALIDATION_FAILED').errors?.[0]?.path, provider).toBe('/provider');
        }
        const missing = await h.api('PATCH', '/api/v1/account', { integrations: { [spec.provider]: { clientId: fake.clientId } } });
        expect(expectProblem(missing, 400, 'VALIDATION_FAILED').errors?.[0]?.path).toBe(`/integrations/${spec.provider}/clientSecret`);
        const saved = await h.api('PATCH', '/api/v1/account', { integrations: { [spec.provider]: { clientId: fake.clientId, clientSecret: fake.clientSecret } } });
        expect(saved.statusCode, saved.body).toBe(200);
        expect(await f.integration()).toEqual({ provider: spec.provider, configured: true, settings: spec.settings(fake) });
        expect(h.answers.some((body) => body.includes(fake.clientSecret))).toBe(false);
      });
      specificAfter('configure');

      it('refuses a callback with a missing, forged, reused or expired state, or the host’s refusal, with a page and nothing stored', async () => {
        const started = (await h.api('POST', connections(), { provider: spec.provider })).json() as { authorizeUrl: string; status: string };
        expect(started.status).toBe('pending');
        expectAuthorizeUrl(started.authorizeUrl);
        const back = new URL((await fetch(started.authorizeUrl, { redirect: 'manual' })).headers.get('location')!);
        const [code, state] = [back.searchParams.get('code')!, back.searchParams.get('state')!];
        const page = (query: string) => h.app.inject({ method: 'GET', url: `/oauth/${spec.provider}/callback?${query}` });
        for (const query of [`code=${code}`, `code=${code}&state=forged${state.slice(6)}`, `error=access_denied&state=${state}`]) {
          const refused = await page(query);
          expect(refused.statusCode, query).toBe(400);
          expect(refused.headers['content-type']).toMatch(/^text\/html/);
          expect(refused.body).toContain('Not connected');
        }
        // The host said no: that state is used up, so the code cannot be used with it either.
        expect((await page(`code=${code}&state=${state}`)).statusCode).toBe(400);
        expect(fake.tokenCalls).toHaveLength(0);
        expect((await bookings.connectionOf()).status).toBe('pending');

        // A state older than 15 minutes.
        const again = (await h.api('POST', connections(), { provider: spec.provider })).json() as { authorizeUrl: string };
        const late = new URL((await fetch(again.authorizeUrl, { redirect: 'manual' })).headers.get('location')!);
        h.clock.advance(16 * 60_000);
        const expired = await page(late.search.slice(1));
        expect(expired.statusCode).toBe(400);
        expect(expired.body).toContain('expired');
        expect(fake.tokenCalls).toHaveLength(0);
        // Another provider's callback with this state.
        expect((await h.app.inject({ method: 'GET', url: `/oauth/skype/callback?${late.search.slice(1)}` })).statusCode).toBe(404);
        expect((await bookings.connectionOf()).status).toBe('pending');
      });
      specificAfter('callbacks');

      it(`connects through the whole round trip: the code exchanged once with PKCE, the ${spec.label} account read, a reused callback refused`, async () => {
        const { started, callback, callbackUrl } = await h.connect(owner().uuid, spec.provider, fake);
        expectAuthorizeUrl(String(started.authorizeUrl));
        const returned = new URL(callbackUrl, PUBLIC_URL).searchParams;
        for (const [name, value] of Object.entries(spec.callbackParams ?? {})) expect(returned.get(name), name).toBe(value);
        expect(callback.statusCode, callback.body).toBe(200);
        expect(callback.body).toContain(`${spec.label} is connected`);
        expect(callback.body).toContain(spec.accountEmail);
        // The stand-in takes the code only with the app's credentials where the provider wants them, and the PKCE verifier.
        expect(fake.tokenCalls).toEqual([{ grantType: 'authorization_code', ok: true }]);
        expect(fake.apiCalls.map((call) => `${call.method} ${call.path}`)).toEqual([spec.accountRead]);
        const connection = await bookings.connectionOf();
        expect(connection).toMatchObject({ uuid: started.uuid, provider: spec.provider, status: 'connected', accountEmail: spec.accountEmail, lastError: null });
        expect((await h.api('GET', `${connections()}/${String(started.uuid)}`)).json()).toEqual(connection);
        expect(await bookings.placesReady()).toEqual({ [owner().username]: [spec.place, 'offline'] });
        // The same callback again (a browser's back button): the state is used up, the provider not asked again.
        expect((await h.app.inject({ method: 'GET', url: callbackUrl })).statusCode).toBe(400);
        expect(fake.tokenCalls).toHaveLength(1);
        expect((await bookings.connectionOf()).status).toBe('connected');
      });
      specificAfter('connect');

      it(`offers a team topic’s slots to the host whose ${spec.label} is connected first, whatever the alphabet says`, async () => {
        const team = h.acme.team.uuid;
        const bob = (await h.api('POST', `/api/v1/teams/${team}/users`, { firstName: 'Bob', lastName: 'Able', email: 'bob@acme.test' })).json() as { username: string };
        expect(bob.username < owner().username).toBe(true);
        const topic = (await h.api('POST', '/api/v1/meeting-topics', { name: 'Team call', durationMinutes: 30, places: [spec.place], team })).json() as { uuid: string };
        const view = await h.api('POST', '/api/v1/calculate-schedule', { meetingTopic: topic.uuid, team, timezone: 'UTC', offset: 7 }, null);
        const body = view.json() as { placesReady: Record<string, string[]>; days: { slots: { username: string }[] }[] };
        expect(body.placesReady).toEqual({ [owner().username]: [spec.place], [bob.username]: [] });
        // Both have the same hours and no meetings of this topic: without the preference, Bob (first by name) would take them all.
        expect([...new Set(body.days.flatMap((day) => day.slots.map((slot) => slot.username)))]).toEqual([owner().username]);
      });
      specificAfter('team');

      const required = spec.requiredScope;
      if (required !== undefined) {
        it(`leaves the connection not connected, and names the permission, when the host unticks it on ${spec.label}’s consent screen`, async () => {
          const team = (await h.api('POST', '/api/v1/teams', { name: 'Consent' })).json() as { uuid: string };
          const carol = (await h.api('POST', `/api/v1/teams/${team.uuid}/users`, { firstName: 'Carol', lastName: 'Careful', email: 'carol@acme.test' })).json() as { uuid: string };
          fake.withholdScopes([required.scope]);
          try {
            const { callback } = await h.connect(carol.uuid, spec.provider, fake);
            // The code was good; what it granted is not enough.
            expect(fake.tokenCalls.at(-1)).toEqual({ grantType: 'authorization_code', ok: true });
            expect(callback.statusCode).toBe(400);
            expect(callback.body).toContain('Not connected');
            expect(callback.body).toMatch(required.named);
          } finally {
            fake.withholdScopes([]);
          }
          const listed = (await h.api('GET', `/api/v1/users/${carol.uuid}/connections`)).json() as { connections: Record<string, unknown>[] };
          expect(listed.connections).toMatchObject([{ provider: spec.provider, status: 'pending' }]);
        });
      }

      it('gives each booking a room of its own after the booking, with its link in both confirmations and the invitation', async () => {
        const callsBefore = fake.apiCalls.length;
        const booked = [await book(), await book()];
        // Nothing is asked of the provider while booking.
        expect(fake.apiCalls.length).toBe(callsBefore);
        expect(await linkOf(booked[0]!.uuid)).toBeNull();
        await h.runJobs();
        const locations: Record<string, unknown>[] = [];
        for (const { uuid, n } of booked) {
          const location = (await bookings.meeting(uuid)).location;
          const made = f.titled(n);
          expect(made).toHaveLength(1);
          expect(location).toMatchObject({ place: spec.place, ...made[0]!.location });
          expect(location.url).toMatch(spec.link);
          expect(made[0]!.end - made[0]!.start).toBe(THIRTY_MINUTES);
          spec.checkRoom(made[0]!.raw, { meetingUuid: uuid, participant: n });
          locations.push(location);
          // Subscribers hear that the meeting has its link.
          expect(h.webhookEvents('meeting.located').filter((e) => (e.data as { uuid: string }).uuid === uuid)).toHaveLength(1);
        }
        const [first, second] = locations as [Record<string, unknown>, Record<string, unknown>];
        expect(first.url).not.toBe(second.url);
        const guest = f.mailsOf(booked[0]!.n);
        expect(guest).toHaveLength(1);
        for (const field of spec.mailed) expect(guest[0]!.text, field).toContain(String(first[field]));
        expect(unfold(guest[0]!.ics.content)).toContain(`URL;VALUE=URI:${String(first.url)}`);
        expect(unfold(guest[0]!.ics.content)).toMatch(new RegExp(`LOCATION:.*${spec.link.source}`));
        expect(hostMails((mail) => mail.text.includes(String(first.url)))).toHaveLength(1);
        // Running the jobs again makes nothing new.
        const made = spec.rooms(fake).length;
        await h.runJobs();
        expect(spec.rooms(fake).length).toBe(made);
      });
      specificAfter('rooms');

      it(`moves the room with one ${spec.moveMethod} on a reschedule and deletes it with one DELETE on a cancel`, async () => {
        const { uuid, n } = await book();
        await h.runJobs();
        const link = await linkOf(uuid);
        const [made] = f.titled(n);
        const newStart = bookings.nextSlot();
        const moved = await h.api('POST', `/api/v1/meetings/${uuid}/reschedule`, { start: newStart });
        expect(moved.statusCode, moved.body).toBe(200);
        await h.runJobs();
        expect(callsTo(spec.moveMethod, made!.id)).toHaveLength(1);
        expect(room(made!.id)).toMatchObject({ start: Date.parse(newStart), end: Date.parse(newStart) + THIRTY_MINUTES });
        spec.checkRoom(room(made!.id)!.raw, { meetingUuid: uuid, participant: n });
        // The participant keeps the same link.
        expect(await linkOf(uuid)).toBe(link);

        await cancel(uuid);
        await h.runJobs();
        await h.runJobs();
        expect(callsTo('DELETE', made!.id)).toHaveLength(1);
        if (spec.keepsDeletedRooms) expect(room(made!.id)?.cancelled).toBe(true);
        else expect(room(made!.id)).toBeUndefined();
      });
      specificAfter('move');

      it(`takes a room the host already deleted in ${spec.label} as gone when the booking is cancelled`, async () => {
        const { uuid, n } = await book();
        await h.runJobs();
        const [made] = f.titled(n);
        spec.removeAtProvider(fake, made!.id);
        const logsBefore = h.logs.length;
        await cancel(uuid);
        await h.runJobs();
        expect(callsTo('DELETE', made!.id)).toHaveLength(1);
        expect(h.logs.slice(logsBefore).filter((line) => line.includes('an outbox job failed') && line.includes('conference-room'))).toEqual([]);
      });
      specificAfter('removed');

      const repeated = spec.idempotentCreate ? 'answers a repeated create of one room with the room made first, ' : '';
      it(`${repeated}finds the room it made by the request, and deletes it twice without an error`, async () => {
        const rooms = h.ctx.integrations.rooms[spec.provider];
        const start = Date.parse(bookings.nextSlot());
        const attendee = { name: 'Twice Asked', email: 'twice@example.com' };
        const request = { meetingUuid: newId(), requestId: newId(), title: 'Intro call: Twice Asked', start, end: start + THIRTY_MINUTES, timezone: 'Europe/Warsaw', attendee };
        const connectionUuid = String((await bookings.connectionOf()).uuid);
        const asked = <T>(call: (accessToken: string) => Promise<T>) => withAccessToken(h.ctx, connectionUuid, call);
        const first = await asked((token) => rooms.createRoom(token, request));
        expect(first.joinUrl).toMatch(spec.link);
        if (spec.idempotentCreate) {
          expect(await asked((token) => rooms.createRoom(token, request))).toEqual(first);
          expect(creates(request.title)).toBe(2);
        }
        expect(spec.rooms(fake).filter((made) => !made.cancelled && made.title === request.title)).toHaveLength(1);
        expect(await asked((token) => rooms.findRoom(token, request))).toEqual(first);
        await asked((token) => rooms.deleteRoom(token, first.roomId));
        // Already gone is no error, and a deleted room is no room to adopt.
        await asked((token) => rooms.deleteRoom(token, first.roomId));
        expect(await asked((token) => rooms.findRoom(token, request))).toBeNull();
      });

      it(`tells ${spec.label}'s refusals for good from those that pass: a missing scope is the connection's, a 400 to a create or a move final, 429 and 503 retried as late as ${spec.label} asks`, async () => {
        const connectionUuid = String((await bookings.connectionOf()).uuid);
        const token = await withAccessToken(h.ctx, connectionUuid, async (accessToken) => accessToken);
        const start = Date.parse(bookings.nextSlot());
        const attendee = { name: 'Often Refused', email: 'refused@example.com' };
        const request = { meetingUuid: newId(), requestId: newId(), title: 'Intro call: Often Refused', start, end: start + THIRTY_MINUTES, timezone: 'UTC', attendee };
        const failureOf = (call: Promise<unknown>) =>
          call.then(
            () => null,
            (error: unknown) => error,
          );
        const rooms = h.ctx.integrations.rooms[spec.provider];

        fake.refuseNextApiCalls(1, 'scope');
        const scope = await failureOf(rooms.createRoom(token, request));
        expect(scope).toBeInstanceOf(ConnectionRefusedError);
        expect(scope).toMatchObject({ retryable: false, message: expect.stringMatching(new RegExp(`^${spec.label} create .*: the connection lacks a permission termin needs`)) });

        for (const [what, call] of [
          ['create', () => rooms.createRoom(token, request)],
          ['move', () => rooms.moveRoom(token, 'a-room-id', request)],
        ] as const) {
          fake.refuseNextApiCalls(1, 'invalid');
          const refused = await failureOf(call());
          expect(refused, what).toBeInstanceOf(ProviderError);
          expect(refused, what).not.toBeInstanceOf(ConnectionRefusedError);
          expect(refused, what).toMatchObject({ retryable: false, status: 400 });
        }
        expect(spec.rooms(fake).filter((made) => made.title === request.title)).toHaveLength(0);

        // Throttled (Zoom's daily create limit, Graph's throttling) or unavailable, with Retry-After: the wait reaches the caller.
        const replies = [
          { status: 429, retryAfter: '120' },
          { status: 503, retryAfter: '30' },
        ];
        const throttling: typeof fetch = async (input, init) => {
          const reply = replies.shift();
          return reply === undefined
            ? fetch(input, init)
            : new Response(JSON.stringify({ message: 'Too many requests' }), {
                status: reply.status,
                headers: { 'content-type': 'application/json', 'retry-after': reply.retryAfter },
              });
        };
        const throttled = createIntegrationRegistry(h.database.config.integrations, createVendorHttp({ now: h.clock.now, fetch: throttling }), h.clock.now).rooms[spec.provider];
        expect(await failureOf(throttled.createRoom(token, request))).toMatchObject({ retryable: true, status: 429, retryAfterMs: 120_000 });
        expect(await failureOf(throttled.moveRoom(token, 'a-room-id', request))).toMatchObject({ retryable: true, status: 503, retryAfterMs: 30_000 });
        expect((await bookings.connectionOf()).status).toBe('connected');
      });
      specificAfter('port');

      it(`makes the room later when ${spec.label} fails for a while, and the participant gets one confirmation with one link`, async () => {
        fake.failNextApiCalls(3, 503);
        const { uuid, n } = await book();
        await h.runJobs();
        expect(await linkOf(uuid)).toBeNull();
        // The confirmation waits for the room (up to 10 minutes).
        expect(f.mailsOf(n)).toHaveLength(0);
        await untilLinked(uuid, 60_000, 6);
        const link = await linkOf(uuid);
        expect(link).toMatch(spec.link);
        expect(f.mailsOf(n)).toHaveLength(1);
        expect(f.mailsOf(n)[0]!.text).toContain(String(link));
        expect(f.titled(n)).toHaveLength(1);
      });
      specificAfter('outage');

      it(`adopts the room ${spec.label} made when its answer was lost, instead of making a second, and the participant gets one link`, async () => {
        const callsBefore = fake.apiCalls.length;
        fake.dropNextApiAnswers(1);
        const { uuid, n } = await book();
        await h.runJobs();
        // The provider made the room; termin never heard of it.
        expect(f.titled(n)).toHaveLength(1);
        expect(await linkOf(uuid)).toBeNull();
        await untilLinked(uuid, 60_000, 6);
        const made = f.titled(n);
        expect(made).toHaveLength(1);
        expect(creates(title(n))).toBe(1);
        expect(fake.apiCalls.slice(callsBefore).some(spec.lookup(made[0]!))).toBe(true);
        spec.checkRoom(made[0]!.raw, { meetingUuid: uuid, participant: n });
        expect((await bookings.meeting(uuid)).location).toMatchObject(made[0]!.location);
        expect(f.mailsOf(n)).toHaveLength(1);
        expect(f.mailsOf(n)[0]!.text).toContain(String(made[0]!.location.url));
        // What was adopted is the room itself: a cancel removes it at the provider.
        await cancel(uuid);
        await h.runJobs();
        expect(f.titled(n)).toHaveLength(0);
      });
      specificAfter('lost');

      it('sends the confirmation after 10 minutes without the link, then one update with it, same UID, next SEQUENCE', async () => {
        fake.failNextApiCalls(1_000, 500);
        const { uuid, n } = await book();
        await h.runJobs();
        h.clock.advance(10 * 60_000 + 1_000);
        await h.runJobs();
        expect(f.mailsOf(n)).toHaveLength(1);
        expect(f.mailsOf(n)[0]!.text).toMatch(/link .*follow/i);
        fake.failNextApiCalls(0, 500);
        await untilLinked(uuid, 5 * 60_000, 8);
        const link = await linkOf(uuid);
        expect(link).toMatch(spec.link);
        const [first, update] = f.mailsOf(n).map((mail) => ({ text: mail.text, ics: mail.ics.content }));
        expect(f.mailsOf(n)).toHaveLength(2);
        expect(update!.text).toContain(String(link));
        expect(/UID:(.+)\r\n/.exec(update!.ics)?.[1]).toBe(/UID:(.+)\r\n/.exec(first!.ics)?.[1]);
        const sequence = (ics: string) => Number(/SEQUENCE:(\d+)/.exec(ics)?.[1] ?? 0);
        expect(sequence(update!.ics)).toBe(sequence(first!.ics) + 1);
        expect(f.titled(n)).toHaveLength(1);
      });
      specificAfter('late');

      it('refreshes an expired access token once, keeps the refresh token to use next, and two instances refresh it once between them', async () => {
        const refreshes = () => fake.tokenCalls.filter((call) => call.grantType === 'refresh_token');
        const refreshed = (count: number) => Array.from({ length: count }, () => ({ grantType: 'refresh_token', ok: true }));
        const before = refreshes().length;
        // The provider refuses the access token (HTTP 401). The second refresh works only with
        // the refresh token the first one left: the rotated one (Zoom, Microsoft), or the one
        // given at first, which the provider does not rotate (Google) or sends again (Webex).
        for (const round of [1, 2]) {
          fake.expireAccessTokens();
          const { uuid } = await book();
          await h.runJobs();
          expect(await linkOf(uuid), `round ${round}`).toMatch(spec.link);
          expect(refreshes().slice(before)).toEqual(refreshed(round));
        }

        // Now the token is past its expiry by termin's own record, and two instances want it at once.
        h.clock.advance(61 * 60_000);
        const second = await h.startInstance();
        const connectionUuid = String((await bookings.connectionOf()).uuid);
        const read = (ctx: Parameters<typeof withAccessToken>[0]) => withAccessToken(ctx, connectionUuid, async (token) => token);
        const gate = fake.holdRefreshes();
        try {
          const first = read(h.ctx);
          first.catch(() => undefined);
          // This instance's refresh has reached the token endpoint, its claim on the connection held …
          await expect.poll(() => gate.waiting).toBe(1);
          const watched = watchRefreshClaims(second.ctx);
          const other = read(watched.ctx);
          other.catch(() => undefined);
          // … and the other instance has found the refresh claimed, and waits for its result.
          await expect.poll(() => watched.refused()).toBeGreaterThan(0);
          gate.release();
          const [tokenA, tokenB] = await Promise.all([first, other]);
          expect(tokenA).toBe(tokenB);
          expect(fake.issuedTokens).toContain(tokenA);
        } finally {
          gate.release();
        }
        expect(refreshes().slice(before)).toEqual(refreshed(3));
        expect((await bookings.connectionOf()).status).toBe('connected');
      });

      it('refreshes once when the other refresh ends between its read of the tokens and its claim, and keeps the connection', async () => {
        const refreshes = () => fake.tokenCalls.filter((call) => call.grantType === 'refresh_token');
        const before = refreshes().length;
        h.clock.advance(61 * 60_000);
        const connectionUuid = String((await bookings.connectionOf()).uuid);
        const read = (ctx: Parameters<typeof withAccessToken>[0]) => withAccessToken(ctx, connectionUuid, async (token) => token);
        const gate = fake.holdRefreshes();
        const stalled = stallConnectionRead(h.ctx);
        try {
          const first = read(h.ctx);
          first.catch(() => undefined);
          // The first call holds the claim, its refresh at the token endpoint …
          await expect.poll(() => gate.waiting).toBe(1);
          const late = read(stalled.ctx);
          late.catch(() => undefined);
          // … the late one has read the tokens (expired, the refresh claimed) and stalls before acting on them …
          await expect.poll(() => stalled.holding()).toBe(true);
          gate.release();
          // … the first stores the new tokens and lets its claim go; only then does the late one go on, on what it read.
          const token = await first;
          stalled.release();
          expect(await late).toBe(token);
        } finally {
          gate.release();
          stalled.release();
        }
        // Refreshing again with the refresh token it read would have been refused where it rotates (Zoom, Microsoft).
        expect(refreshes().slice(before)).toEqual([{ grantType: 'refresh_token', ok: true }]);
        expect(await bookings.connectionOf()).toMatchObject({ status: 'connected', lastError: null });
      });
      specificAfter('refresh');

      it('turns a revoked grant into a connection error the host hears of, books without a link, and makes the rooms after reconnecting', async () => {
        fake.revokeAllGrants();
        fake.expireAccessTokens();
        const first = await book();
        await h.runJobs();
        const failed = await bookings.connectionOf();
        expect(failed.status).toBe('error');
        expect(String(failed.lastError)).toMatch(spec.grantRefused);
        expect(h.webhookEvents('connection.error').map((e) => (e.data as { uuid: string }).uuid)).toEqual([failed.uuid]);
        expect(hostMails((mail) => mail.subject.includes(`${spec.label} connection stopped working`))).toHaveLength(1);
        expect(await bookings.placesReady()).toEqual({ [owner().username]: ['offline'] });
        expect(await bookings.meeting(first.uuid)).toMatchObject({ status: 'confirmed', location: { url: null } });
        // The participant is not kept waiting for a room that cannot come now.
        expect(f.mailsOf(first.n)).toHaveLength(1);
        expect(f.mailsOf(first.n)[0]!.text).toMatch(/link .*follow/i);

        const next = await book();
        await h.runJobs();
        expect(await linkOf(next.uuid)).toBeNull();
        expect(hostMails((mail) => mail.subject.includes(`has no link yet: connect ${spec.provider}`))).toHaveLength(1);

        const { callback } = await h.connect(owner().uuid, spec.provider, fake);
        expect(callback.statusCode, callback.body).toBe(200);
        expect((await bookings.connectionOf()).status).toBe('connected');
        expect(await bookings.placesReady()).toEqual({ [owner().username]: [spec.place, 'offline'] });
        await h.runJobs();
        // Each participant: the confirmation saying the link follows, then one update with it.
        for (const { uuid, n } of [first, next]) {
          expect(f.titled(n)).toHaveLength(1);
          expect(await linkOf(uuid), uuid).toBe(f.titled(n)[0]!.location.url);
          expect(f.mailsOf(n)).toHaveLength(2);
          expect(f.mailsOf(n)[1]!.text).toContain(String(await linkOf(uuid)));
        }
      });

      it(`turns a grant without a scope termin needs into a connection error the host hears of, once, and makes the room after reconnecting`, async () => {
        const errorsBefore = h.webhookEvents('connection.error').length;
        const noticesBefore = hostMails((mail) => mail.subject.includes(`${spec.label} connection stopped working`)).length;
        fake.refuseNextApiCalls(1, 'scope');
        const { uuid, n } = await book();
        await h.runJobs();
        const failed = await bookings.connectionOf();
        expect(failed).toMatchObject({ status: 'error', lastError: expect.stringMatching(/lacks a permission termin needs.*Connect it again/) });
        expect(
          h
            .webhookEvents('connection.error')
            .slice(errorsBefore)
            .map((e) => (e.data as { uuid: string }).uuid),
        ).toEqual([failed.uuid]);
        expect(hostMails((mail) => mail.subject.includes(`${spec.label} connection stopped working`))).toHaveLength(noticesBefore + 1);
        expect(await bookings.meeting(uuid)).toMatchObject({ status: 'confirmed', location: { url: null } });
        expect(f.mailsOf(n)).toHaveLength(1);
        expect(f.mailsOf(n)[0]!.text).toMatch(/link .*follow/i);

        const { callback } = await h.connect(owner().uuid, spec.provider, fake);
        expect(callback.statusCode, callback.body).toBe(200);
        await h.runJobs();
        expect(f.titled(n)).toHaveLength(1);
        expect(await linkOf(uuid)).toBe(f.titled(n)[0]!.location.url);
        expect(f.mailsOf(n)).toHaveLength(2);
      });
      specificAfter('revoked');

      const refusals: readonly TokenRefusal[] = ['invalid_client', 'invalid_scope', ...(spec.tokenRefusals ?? [])];
      it(`turns a refresh refused for good (${refusals.join(', ')}) into a connection error saying what to do, told once, and rides out a 429`, async () => {
        const connectionUuid = String((await bookings.connectionOf()).uuid);
        // A call the provider answers 401: termin refreshes the token, and the refresh is what is answered.
        const use = () => withAccessToken(h.ctx, connectionUuid, (token) => h.ctx.integrations.oauth[spec.provider].fetchAccountEmail(token));
        const stoppedMails = () => hostMails((mail) => mail.subject.includes(`${spec.label} connection stopped working`)).length;
        const errorEvents = () => h.webhookEvents('connection.error').length;

        // A rate limit is no refusal: the connection stays, and the provider's wait comes with the error.
        fake.expireAccessTokens();
        fake.throttleNextTokenCalls(1, 120);
        const throttled = await use().catch((error: unknown) => error);
        expect(throttled).toBeInstanceOf(ProviderError);
        expect(throttled).toMatchObject({ retryable: true, status: 429, retryAfterMs: 120_000 });
        expect(await bookings.connectionOf()).toMatchObject({ status: 'connected', lastError: null });
        expect(await use()).toBe(spec.accountEmail);

        const whatToDo: Record<TokenRefusal, RegExp> = {
          invalid_client: /an admin must enter the app's client id and secret again/i,
          invalid_scope: /an admin must check the permissions/i,
          interaction_required: /sign in again/i,
          consent_required: /consent/i,
        };
        for (const refusal of refusals) {
          const before = { mails: stoppedMails(), events: errorEvents() };
          fake.expireAccessTokens();
          fake.refuseNextTokenCalls(1, refusal);
          await expect(use(), refusal).rejects.toBeInstanceOf(ConnectionUnusableError);
          // Asked again, it is not asked of the provider again, nor told again.
          await expect(use(), refusal).rejects.toBeInstanceOf(ConnectionUnusableError);
          await h.runJobs();
          const failed = await bookings.connectionOf();
          expect(failed.status, refusal).toBe('error');
          expect(String(failed.lastError), refusal).toMatch(whatToDo[refusal]);
          expect(String(failed.lastError), refusal).toContain(refusal);
          expect({ mails: stoppedMails(), events: errorEvents() }, refusal).toEqual({ mails: before.mails + 1, events: before.events + 1 });
          expect(h.webhookEvents('connection.error').at(-1)?.data, refusal).toMatchObject({ uuid: connectionUuid, status: 'error' });

          const { callback } = await h.connect(owner().uuid, spec.provider, fake);
          expect(callback.statusCode, callback.body).toBe(200);
        }
        expect(await use()).toBe(spec.accountEmail);
      });

      it('shows an error page and stores nothing when the token endpoint answers garbage, HTML, a huge body or an error of an unknown shape', async () => {
        const connection = await bookings.connectionOf();
        for (const raw of [
          { status: 200, contentType: 'application/json', body: '{"access_token":' },
          { status: 200, contentType: 'text/html', body: '<html><body>Sign in</body></html>' },
          { status: 200, contentType: 'application/json', body: JSON.stringify({ access_token: 'x'.repeat(3_000_000), token_type: 'Bearer' }) },
          { status: 502, contentType: 'text/html', body: '<h1>Bad gateway</h1>' },
          { status: 400, contentType: 'text/html', body: '<html>Bad request</html>' },
          { status: 400, contentType: 'application/json', body: WEBEX_SHAPED_ERROR },
        ]) {
          fake.answerTokenEndpointWith(raw);
          const { callback } = await h.connect(owner().uuid, spec.provider, fake);
          expect(callback.statusCode, raw.body.slice(0, 40)).toBe(400);
          expect(callback.body).toContain('Not connected');
          expect(await bookings.connectionOf()).toEqual(connection);
        }
      });

      const revocation = spec.revokes ? `revokes the grant at ${spec.label}` : `calls no revocation endpoint, ${spec.label} having none`;
      it(`refuses another account’s connection with 404, and on disconnect forgets the tokens and ${revocation}`, async () => {
        const connection = await bookings.connectionOf();
        const path = `${connections()}/${String(connection.uuid)}`;
        const stranger = (await createTestAccount(h.ctx)).apiKey;
        // To another account it does not exist: 404, as for no connection at all.
        expectProblem(await h.api('GET', path, undefined, stranger), 404, 'NOT_FOUND');
        expectProblem(await h.api('DELETE', path, undefined, stranger), 404, 'NOT_FOUND');
        expect(await bookings.connectionOf()).toEqual(connection);

        const calls = { token: fake.tokenCalls.length, api: fake.apiCalls.length };
        expect((await h.api('DELETE', path)).statusCode).toBe(204);
        expectProblem(await h.api('GET', path), 404, 'NOT_FOUND');
        // Revoked, its tokens work no more.
        expect(fake.revocations).toEqual(spec.revokes ? [{ revoked: true }] : []);
        expect({ token: fake.tokenCalls.length, api: fake.apiCalls.length }).toEqual(calls);
      });

      it('never shows or logs a token or the app’s secret', () => {
        expect(fake.issuedTokens.length).toBeGreaterThan(4);
        const logs = h.logs.join('\n');
        for (const secret of [...fake.issuedTokens, fake.clientSecret]) {
          expect(logs.includes(secret), 'in the logs').toBe(false);
          expect(
            h.answers.some((body) => body.includes(secret)),
            'in an answer',
          ).toBe(false);
          expect(
            h.sent.some((m) => m.text.includes(secret) || m.html.includes(secret)),
            'in an e-mail',
          ).toBe(false);
        }
      });
    });
  }
}

/**
 * `ctx` with a database whose next read of a connection's row answers only once released: the
 * caller has read the row as it was, and stalls (a slow instance, a pause) before acting on it.
 * The read itself is done (no connection of the pool held: SQLite has only one), its answer kept back.
 */
function stallConnectionRead<C extends AppContext>(ctx: C): { ctx: C; holding(): boolean; release(): void } {
  let armed = true;
  let holding = false;
  let release = (): void => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  type Method = (...args: unknown[]) => unknown;
  // A query builder whose executeTakeFirst, at the end of its chain, keeps its answer back.
  const stalling = <T extends object>(builder: T): T =>
    new Proxy(builder, {
      get(target, name) {
        const value: unknown = Reflect.get(target, name, target);
        if (typeof value !== 'function') return value;
        if (name === 'executeTakeFirst') {
          return async (...args: unknown[]) => {
            const row = await (value as Method).apply(target, args);
            if (armed) {
              armed = false;
              holding = true;
              await released;
            }
            return row;
          };
        }
        return (...args: unknown[]) => {
          const next = (value as Method).apply(target, args);
          return typeof next === 'object' && next !== null && 'executeTakeFirst' in next ? stalling(next) : next;
        };
      },
    });
  const db = new Proxy(ctx.db, {
    get(target, name) {
      const value: unknown = Reflect.get(target, name, target);
      if (name === 'selectFrom') return (table: string) => (table === 'connections' ? stalling(target.selectFrom('connections')) : target.selectFrom(table as 'connections'));
      return typeof value === 'function' ? (value as Method).bind(target) : value;
    },
  });
  return { ctx: { ...ctx, db }, holding: () => holding, release };
}

/**
 * `ctx` with a database that counts the refresh claims it was refused, the connection being
 * leased to another instance's refresh (this one then waits for that result): a claim is the
 * one update that sets a lease (claimTokenRefresh, src/db/repositories/connections.ts).
 */
function watchRefreshClaims<C extends AppContext>(ctx: C): { ctx: C; refused(): number } {
  let refused = 0;
  const claims = new Set<string>();
  const setsLease = (node: RootOperationNode) =>
    node.kind === 'UpdateQueryNode' &&
    (node.updates ?? []).some(
      ({ column, value }) => (column as ColumnNode).column?.name === 'refresh_lease_until' && value.kind === 'ValueNode' && (value as ValueNode).value !== null,
    );
  const db: Kysely<Database> = ctx.db.withPlugin({
    transformQuery: ({ node, queryId }) => {
      if (setsLease(node)) claims.add(queryId.queryId);
      return node;
    },
    transformResult: async ({ result, queryId }) => {
      if (claims.delete(queryId.queryId) && result.numAffectedRows === 0n) refused += 1;
      return result;
    },
  });
  return { ctx: { ...ctx, db }, refused: () => refused };
}
