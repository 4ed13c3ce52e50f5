import { expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { ConnectionRefusedError, ProviderError } from '../../src/integrations/ports.js';
import { withAccessToken } from '../../src/scheduling/integrations/provider-access.js';
import { type FakeMicrosoft, type GraphEvent, startFakeMicrosoft } from '../fakes/microsoft.js';
import { expectProblem } from '../helpers.js';
import { describeRoomProvider } from './room-conformance.js';

/**
 * Microsoft Teams through the room-provider conformance suite (room-conformance.ts), against
 * the stand-in in test/fakes/microsoft.ts: the app's tenant in the path of every authorize and
 * token request, the secret in the body, the scopes named again on refresh, a rotated refresh
 * token, no revocation endpoint; an Outlook event with a Teams meeting per booking, the
 * request id its `transactionId` (Graph's idempotency key) and an extended property (what a
 * lost answer's event is found by); a Teams link that may come late, or never.
 */
const utc = (time: GraphEvent['start']) => Date.parse(`${time.dateTime.slice(0, 19)}Z`);
/** A 30-minute room request from `start` (UTC), as the room job makes one. */
const roomRequest = (title: string, start: number, attendee: { name: string; email: string }, ids = { meetingUuid: newId(), requestId: newId() }) => ({
  ...ids,
  title,
  start,
  end: start + 30 * 60_000,
  timezone: 'UTC',
  attendee,
});

describeRoomProvider<FakeMicrosoft, GraphEvent>({
  provider: 'microsoft',
  label: 'Microsoft',
  product: 'Microsoft Teams',
  place: 'teamsForBusiness',
  accountEmail: 'adele@contoso.onmicrosoft.com',
  startStandIn: startFakeMicrosoft,
  settings: (ms) => ({ clientId: ms.clientId, tenant: 'common' }),
  // The tenant the 'configure' test below leaves.
  authorize: (ms) => ({ endpoint: `${ms.baseUrl}/${ms.tenantDomain}/oauth2/v2.0/authorize`, params: {} }),
  accountRead: 'GET /v1.0/me?$select=mail,userPrincipalName',
  link: /teams\.microsoft\.com/,
  mailed: ['url'],
  rooms: (ms) =>
    [...ms.events.values()].map((event) => ({
      id: event.id,
      title: event.subject,
      start: utc(event.start),
      end: utc(event.end),
      location: { url: event.onlineMeeting?.joinUrl ?? null, conferenceId: event.onlineMeeting?.conferenceId ?? null, password: null },
      cancelled: false,
      raw: event,
    })),
  roomPath: (id) => `/v1.0/me/events/${encodeURIComponent(id)}`,
  moveMethod: 'PATCH',
  createdTitle: (call) => (call.method === 'POST' && call.path === '/v1.0/me/events' ? (call.body as { subject: string }).subject : undefined),
  // Graph cannot filter on transactionId: the extended property is what is asked for.
  lookup: () => (call) => call.method === 'GET' && call.path.startsWith('/v1.0/me/events?$filter='),
  checkRoom(event, { participant }) {
    expect(event).toMatchObject({ isOnlineMeeting: true, onlineMeetingProvider: 'teamsForBusiness' });
    expect(event.attendees).toEqual([expect.objectContaining({ emailAddress: { address: `guest${participant}@example.com`, name: `Guest ${participant}` } })]);
    // The request id is both Graph's idempotency key and the property an orphan is found by.
    expect(event.transactionId).toBeTruthy();
    expect(event.singleValueExtendedProperties.map((p) => `termin-${p.value}`)).toEqual([event.transactionId]);
  },
  removeAtProvider: (ms, id) => ms.events.delete(id),
  idempotentCreate: true,
  keepsDeletedRooms: false,
  revokes: false,
  grantRefused: /AADSTS50173/,
  // Multi-factor authentication or conditional access, and consent, answered at the token endpoint too.
  tokenRefusals: ['interaction_required', 'consent_required'],
  requiredScope: { scope: 'Calendars.ReadWrite', named: /Calendars\.ReadWrite/ },
  reset(ms) {
    ms.delayJoinUrls(0);
    ms.setTeamsAvailable(true);
  },
  specific: {
    configure: (f) => {
      it('keeps the app’s tenant, refusing one that is not a tenant at its path, and the stored secret when it is left out', async () => {
        const { h, fake: ms } = f;
        const configured = await f.integration();
        for (const tenant of ['contoso/../evil', 'not a tenant', 'https://login.microsoftonline.com', 'a?b=c']) {
          const refused = await h.api('PATCH', '/api/v1/account', { integrations: { microsoft: { clientId: ms.clientId, clientSecret: ms.clientSecret, tenant } } });
          expect(
            expectProblem(refused, 400, 'VALIDATION_FAILED').errors?.map((e) => e.path),
            tenant,
          ).toEqual(['/integrations/microsoft/tenant']);
        }
        // Nothing was stored by the refusals.
        expect(await f.integration()).toEqual(configured);
        for (const tenant of [ms.tenantId, 'organizations', ms.tenantDomain]) {
          const changed = await h.api('PATCH', '/api/v1/account', { integrations: { microsoft: { clientId: ms.clientId, tenant } } });
          expect(changed.statusCode, `${tenant}: ${changed.body}`).toBe(200);
          expect((await f.integration())?.settings.tenant).toBe(tenant);
        }
        expect(h.answers.some((body) => body.includes(ms.clientSecret))).toBe(false);
      });
    },
    connect: (f) => {
      it('connects under the account’s tenant, asking for offline access, the user and the calendar', () => {
        const ms = f.fake;
        expect(ms.scopesAsked.at(-1)!.split(' ')).toEqual(expect.arrayContaining(['offline_access', 'User.Read', 'Calendars.ReadWrite']));
        // The browser went to the tenant's authorize endpoint, termin to the same tenant's token endpoint.
        expect(ms.tenantsCalled.slice(-2)).toEqual([ms.tenantDomain, ms.tenantDomain]);
        expect(new Set(ms.tenantsCalled)).toEqual(new Set([ms.tenantDomain]));
      });

      it('shows an error page and keeps the working connection when the secret given is the Secret ID, not its value', async () => {
        const { h, fake: ms, bookings } = f;
        const connection = await bookings.connectionOf();
        // What an admin pastes by mistake: the secret's id (a GUID) from the Entra portal's list.
        const secretId = crypto.randomUUID();
        const wrong = await h.api('PATCH', '/api/v1/account', { integrations: { microsoft: { clientId: ms.clientId, clientSecret: secretId, tenant: ms.tenantDomain } } });
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
    },
    port: (f) => {
      it('says plainly when the host’s account makes events without Teams, instead of waiting for a link that cannot come', async () => {
        const { h, fake: ms, bookings } = f;
        const connectionUuid = String((await bookings.connectionOf()).uuid);
        const request = roomRequest(
          'No Teams here',
          Date.parse('2027-06-02T09:00:00Z'),
          { name: 'Rita', email: 'rita@example.com' },
          { meetingUuid: 'not-a-meeting', requestId: 'req-no-teams' },
        );
        ms.setTeamsAvailable(false);
        const made = withAccessToken(h.ctx, connectionUuid, (token) => h.ctx.integrations.rooms.microsoft.createRoom(token, request));
        await expect(made).rejects.toThrow(/cannot make them/);
      });

      it('takes a 403 that names no scope (ErrorAccessDenied: a calendar the host may only read) as final for the call alone, not the connection', async () => {
        const { h, fake: ms, bookings } = f;
        const connectionUuid = String((await bookings.connectionOf()).uuid);
        const token = await withAccessToken(h.ctx, connectionUuid, async (accessToken) => accessToken);
        ms.refuseNextApiCalls(1, 'denied');
        const start = Date.parse('2027-06-03T09:00:00Z');
        const request = roomRequest('Denied', start, { name: 'Rita', email: 'rita@example.com' }, { meetingUuid: 'm', requestId: 'req-denied' });
        const denied = await h.ctx.integrations.rooms.microsoft.createRoom(token, request).then(
          () => null,
          (error: unknown) => error,
        );
        expect(denied).toBeInstanceOf(ProviderError);
        expect(denied).not.toBeInstanceOf(ConnectionRefusedError);
        expect(denied).toMatchObject({ retryable: false, status: 403 });
        expect((await bookings.connectionOf()).status).toBe('connected');
      });

      it('waits for a Teams link Graph attaches only after the event is made', async () => {
        const { h, fake: ms, bookings } = f;
        ms.delayJoinUrls(1);
        const uuid = await bookings.book();
        await h.runJobs();
        const [event] = f.titled(bookings.participant);
        expect((await bookings.meeting(uuid)).location.url).toBe(event!.raw.onlineMeeting!.joinUrl);
        expect(f.mailsOf(bookings.participant)).toHaveLength(1);
      });
    },
    lost: (f) => {
      it('says at once and for good that a lost answer’s event has no Teams meeting, asking Graph for isOnlineMeeting, rather than wait for a link that cannot come', async () => {
        const { h, fake: ms, bookings } = f;
        const connectionUuid = String((await bookings.connectionOf()).uuid);
        const rooms = h.ctx.integrations.rooms.microsoft;
        const start = Date.parse(bookings.nextSlot());
        const request = roomRequest('Intro call: No Teams', start, { name: 'No Teams', email: 'no-teams@example.com' });
        ms.setTeamsAvailable(false);
        ms.dropNextApiAnswers(1, 'POST');
        // Graph made a plain event (the mailbox cannot have Teams meetings), and the answer was lost.
        await expect(withAccessToken(h.ctx, connectionUuid, (token) => rooms.createRoom(token, request))).rejects.toMatchObject({ retryable: true });
        const made = [...ms.events.values()].filter((event) => event.subject === request.title);
        expect(made).toMatchObject([{ isOnlineMeeting: false, onlineMeeting: null }]);
        const callsBefore = ms.apiCalls.length;
        const lookup = withAccessToken(h.ctx, connectionUuid, (token) => rooms.findRoom(token, request));
        await expect(lookup).rejects.toBeInstanceOf(ProviderError);
        await expect(lookup).rejects.toMatchObject({ retryable: false, message: expect.stringMatching(/has no Teams meeting/) });
        const [find] = ms.apiCalls.slice(callsBefore).filter((call) => call.path.startsWith('/v1.0/me/events?'));
        expect(new URL(find!.path, 'http://x').searchParams.get('$select')!.split(',')).toContain('isOnlineMeeting');
        ms.events.delete(made[0]!.id);
      });

      it('answers a repeated create with the event made first, as Graph’s transactionId is for, and makes no second event', async () => {
        const { h, fake: ms, bookings } = f;
        const connectionUuid = String((await bookings.connectionOf()).uuid);
        const rooms = h.ctx.integrations.rooms.microsoft;
        const start = Date.parse(bookings.nextSlot());
        const request = roomRequest('Intro call: Asked Twice', start, { name: 'Asked Twice', email: 'twice@example.com' });
        const first = await withAccessToken(h.ctx, connectionUuid, (token) => rooms.createRoom(token, request));
        // The client's retry of the same POST: Graph avoids the redundant create.
        expect(await withAccessToken(h.ctx, connectionUuid, (token) => rooms.createRoom(token, request))).toEqual(first);
        const made = [...ms.events.values()].filter((event) => event.subject === request.title);
        expect(made.map((event) => event.transactionId)).toEqual([`termin-${request.requestId}`]);
        await withAccessToken(h.ctx, connectionUuid, (token) => rooms.deleteRoom(token, first.roomId));
      });
    },
    refresh: (f) => {
      it('names the scopes in a refresh, at the account’s tenant', () => {
        expect(f.fake.scopesAsked.at(-1)!.split(' ')).toContain('Calendars.ReadWrite');
        expect(f.fake.tenantsCalled.at(-1)).toBe(f.fake.tenantDomain);
      });
    },
  },
});
