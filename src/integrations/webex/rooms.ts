import type { ProviderEndpoints } from '../../config.js';
import type { VendorHttp } from '../../net/vendor-http.js';
import { createProviderClient, optionalString, requireString } from '../http.js';
import type { ConferenceRoom, IntegrationAdapter, RoomRequest } from '../ports.js';
import { ProviderError } from '../ports.js';

/**
 * Webex through its Meetings REST API (developer.webex.com, "Meetings"): a scheduled meeting
 * per termin meeting (`POST /v1/meetings`), moved with `PUT /v1/meetings/{meetingId}` and
 * removed with `DELETE /v1/meetings/{meetingId}`. OAuth: the app authenticates at the token
 * endpoint with `client_id`/`client_secret` in the form body, PKCE (S256) as "Login with
 * Webex" documents it; access tokens last 14 days and refresh tokens 90, the refresh token
 * comes back with every refresh (kept, whichever it is), and Webex offers no revocation
 * endpoint. Webex takes no idempotency key: the request id goes into the meeting's agenda,
 * and an attempt whose answer was lost is found among the host's meetings around its time.
 */
export function createWebexAdapter(urls: ProviderEndpoints, http: VendorHttp): IntegrationAdapter {
  const label = 'Webex';
  const api = createProviderClient(http, label, urls.api);
  const body = (request: RoomRequest) => ({
    // Webex's limits: a title of 128 characters, an agenda of 1300.
    title: request.title.slice(0, 128),
    agenda: agendaOf(request).slice(-1300),
    start: webexTime(request.start),
    end: webexTime(request.end),
    timezone: request.timezone,
    enabledAutoRecordMeeting: false,
    allowAnyUserToBeCoHost: false,
    // termin sends the invitation itself; Webex's own e-mail to the host would be a second one.
    sendEmail: false,
  });
  const roomOf = (operation: string, answer: unknown): ConferenceRoom => {
    const joinUrl = requireString(label, operation, answer, 'webLink');
    if (!joinUrl.startsWith('https://') && !joinUrl.startsWith('http://')) throw new ProviderError(`Webex ${operation}: the webLink is not a link`, false);
    return {
      roomId: requireString(label, operation, answer, 'id'),
      joinUrl,
      conferenceId: optionalString(answer, 'meetingNumber'),
      password: optionalString(answer, 'password'),
    };
  };
  const readMeeting = async (accessToken: string, id: string) =>
    (await api.call('read a meeting', { method: 'GET', path: `/v1/meetings/${encodeURIComponent(id)}`, accessToken }, [200])).body;
  const scopes = ['spark:people_read', 'meeting:schedules_read', 'meeting:schedules_write'];
  return {
    provider: 'webex',
    label,
    scopes,
    authorizationServer: () => ({
      authorizeUrl: urls.authorize,
      tokenUrl: urls.token,
      revokeUrl: null,
      scopes,
      clientAuthentication: 'post',
      tokenErrorOf: webexTokenError,
    }),
    async fetchAccountEmail(accessToken) {
      const answer = await api.call('read the person', { method: 'GET', path: '/v1/people/me', accessToken }, [200]);
      const emails = (answer.body as { emails?: unknown } | undefined)?.emails;
      return Array.isArray(emails) && typeof emails[0] === 'string' && emails[0] !== '' ? emails[0] : null;
    },
    rooms: {
      async createRoom(accessToken, request) {
        const answer = await api.call('create a meeting', { method: 'POST', path: '/v1/meetings', accessToken, json: body(request) }, [200, 201]);
        return roomOf('create a meeting', answer.body);
      },
      async findRoom(accessToken, request) {
        // The lost attempt made the meeting at the request's time (a day either side covers a move meanwhile on the same day).
        const query = new URLSearchParams({
          meetingType: 'scheduledMeeting',
          from: webexTime(request.start - DAY_MS),
          to: webexTime(request.end + DAY_MS),
          max: '100',
        });
        const answer = await api.call('list meetings', { method: 'GET', path: `/v1/meetings?${query}`, accessToken }, [200]);
        const items = (answer.body as { items?: unknown[] } | undefined)?.items;
        const found = Array.isArray(items) ? items.find((item) => optionalString(item, 'agenda')?.includes(request.requestId)) : undefined;
        if (found === undefined) return null;
        // A scheduled meeting is an occurrence of its series: the series is what termin moves and deletes.
        const id = optionalString(found, 'meetingSeriesId') ?? optionalString(found, 'id');
        if (id === null) return null;
        return roomOf('read a meeting', await readMeeting(accessToken, id));
      },
      async moveRoom(accessToken, roomId, request) {
        // PUT replaces the meeting: what Webex holds (its password, the host's own settings) is sent back with the new times.
        const current = await readMeeting(accessToken, roomId);
        const kept = Object.fromEntries(KEPT_ON_MOVE.flatMap((field) => (isRecord(current) && current[field] !== undefined ? [[field, current[field]]] : [])));
        const password = optionalString(current, 'password');
        const { agenda, ...times } = body(request);
        const json = { ...kept, ...times, agenda: optionalString(current, 'agenda') ?? agenda, ...(password === null ? {} : { password }) };
        await api.call('move a meeting', { method: 'PUT', path: `/v1/meetings/${encodeURIComponent(roomId)}`, accessToken, json }, [200]);
      },
      async deleteRoom(accessToken, roomId) {
        await api.call('delete a meeting', { method: 'DELETE', path: `/v1/meetings/${encodeURIComponent(roomId)}?sendEmail=false`, accessToken }, [204, 404]);
      },
    },
  };
}

const DAY_MS = 24 * 60 * 60_000;

/** The meeting's settings a host may have changed in Webex, which a PUT without them would reset. */
const KEPT_ON_MOVE = [
  'enabledJoinBeforeHost',
  'joinBeforeHostMinutes',
  'enableConnectAudioBeforeHost',
  'excludePassword',
  'publicMeeting',
  'reminderTime',
  'allowFirstUserToBeCoHost',
  'allowAuthenticatedDevices',
  'enableAutomaticLock',
  'automaticLockMinutes',
] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** `2027-03-29T07:00:00Z`: ISO 8601 as Webex's examples write it (no milliseconds). */
function webexTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

function agendaOf(request: RoomRequest): string {
  return `Booked with termin for ${request.attendee.name}. (termin ${request.requestId})`;
}

/**
 * Webex's token endpoint answers errors in its API's shape, `{ message, errors: [{ description }],
 * trackingId }`, the identity broker's OAuth error inside the text (`… error = '(invalid_grant)
 * Invalid refresh token.'`). That error, as RFC 6749 names it, or null for an answer that is
 * already standard or names none (then it is read as an outage):
 * `webexTokenError(400, { message: "… '(invalid_grant) Invalid refresh token.'" })` → `{ error: 'invalid_grant', … }`.
 */
export function webexTokenError(status: number, body: unknown): { error: string; error_description?: string } | null {
  if (!isRecord(body) || typeof body.error === 'string') return null;
  const texts = [body.message, ...(Array.isArray(body.errors) ? body.errors.map((e) => (isRecord(e) ? e.description : undefined)) : [])].filter(
    (text): text is string => typeof text === 'string',
  );
  const text = texts.join(' ');
  const named = /\b(invalid_grant|invalid_client|invalid_request|unauthorized_client|access_denied|invalid_scope|unsupported_grant_type)\b/.exec(text)?.[1];
  const error = named ?? (status === 401 ? 'invalid_client' : null);
  if (error === null) return null;
  return { error, error_description: text.replace(/\s+/g, ' ').slice(0, 200) };
}
