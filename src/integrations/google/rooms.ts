import type { ProviderEndpoints } from '../../config.js';
import type { VendorHttp } from '../../net/vendor-http.js';
import { createProviderClient, optionalString, type ProviderClient } from '../http.js';
import type { ConferenceRoom, IntegrationAdapter, RoomRequest } from '../ports.js';
import { ProviderError } from '../ports.js';

/**
 * Google Meet through the Google Calendar API v3 (developers.google.com/calendar/api): a
 * meeting's room is an event in the host's primary calendar with a Meet conference
 * (`events.insert` with `conferenceDataVersion=1` and `conferenceData.createRequest`), which
 * is also the host's calendar copy; moved with `events.patch`, removed with `events.delete`,
 * always with `sendUpdates=none` (termin sends its own invitation).
 *
 * No lost answer makes a second room: the event's `id` is chosen by termin from the room's
 * request id (recorded before the call), so a retry's insert is refused as a duplicate (409)
 * and the event made the first time is read instead; the conference's `requestId` is that id
 * too. Google may answer the insert before the conference exists (`createRequest.status`
 * `pending`, no `hangoutLink`): the event is read again a few times, then the job is retried.
 *
 * OAuth: the app authenticates in the form body; Google keeps the refresh token it gave
 * (a refresh answers none: the stored one stays); `access_type=offline` and `prompt=consent`
 * make it give one at every connection. Tokens are revoked at `/revoke` beside the token
 * endpoint (`https://oauth2.googleapis.com/revoke` for the default `GOOGLE_TOKEN_URL`).
 */
export function createGoogleAdapter(urls: ProviderEndpoints, http: VendorHttp, options: { pendingPollMs?: readonly number[] } = {}): IntegrationAdapter {
  const api = createGoogleClient(http, urls.api);
  const label = 'Google';
  const events = '/calendar/v3/calendars/primary/events';
  const eventPath = (id: string, query = '') => `${events}/${encodeURIComponent(id)}${query}`;
  // Google answers a pending conference within seconds: read the event again this often before the outbox retries.
  const pendingPollMs = options.pendingPollMs ?? [250, 750, 1_500, 2_500];
  const times = (request: RoomRequest) => ({
    start: { dateTime: new Date(request.start).toISOString(), timeZone: request.timezone },
    end: { dateTime: new Date(request.end).toISOString(), timeZone: request.timezone },
  });
  const scopes = ['openid', 'email', 'https://www.googleapis.com/auth/calendar.events'];

  const readEvent = async (accessToken: string, id: string): Promise<unknown> => {
    const answer = await api.call('read an event', { method: 'GET', path: eventPath(id), accessToken }, [200, 404, 410]);
    return answer.status === 200 ? answer.body : null;
  };
  /** The event's room, reading the event again while Google is still making its conference. */
  const roomOfEvent = async (accessToken: string, id: string, event: unknown): Promise<ConferenceRoom> => {
    let current = event;
    for (const wait of [0, ...pendingPollMs]) {
      if (wait > 0) {
        await new Promise((resolve) => setTimeout(resolve, wait));
        current = await readEvent(accessToken, id);
        if (current === null) throw new ProviderError('Google read an event: the event disappeared while its Meet conference was being made', true);
      }
      const room = meetRoomOf(id, current);
      if (room !== null) return room;
    }
    throw new ProviderError('Google create a Meet conference: still pending; trying again later', true);
  };

  return {
    provider: 'google',
    label,
    scopes,
    authorizationServer: () => ({
      authorizeUrl: urls.authorize,
      tokenUrl: urls.token,
      revokeUrl: urls.token.replace(/\/token$/, '/revoke'),
      issuer: 'https://accounts.google.com',
      scopes,
      clientAuthentication: 'post',
      authorizeParams: { access_type: 'offline', prompt: 'consent' },
    }),
    async fetchAccountEmail(accessToken) {
      const answer = await api.call('read the user', { method: 'GET', path: '/oauth2/v3/userinfo', accessToken }, [200]);
      return optionalString(answer.body, 'email');
    },
    rooms: {
      async createRoom(accessToken, request) {
        const id = googleEventIdOf(request.requestId);
        const answer = await api.call(
          'create an event',
          {
            method: 'POST',
            path: `${events}?conferenceDataVersion=1&sendUpdates=none`,
            accessToken,
            json: {
              id,
              summary: request.title.slice(0, 500),
              description: `Booked with termin for ${request.attendee.name}.`,
              ...times(request),
              attendees: [{ email: request.attendee.email, displayName: request.attendee.name }],
              conferenceData: { createRequest: { requestId: id, conferenceSolutionKey: { type: 'hangoutsMeet' } } },
              // Marks termin's own events, so reading the host's busy time can tell them apart.
              extendedProperties: { private: { termin: request.meetingUuid } },
              reminders: { useDefault: true },
            },
          },
          [200, 409],
        );
        // 409 "duplicate": an earlier attempt made this event and its answer was lost; that one is the room.
        const event = answer.status === 409 ? await readEvent(accessToken, id) : answer.body;
        if (event === null) throw new ProviderError('Google create an event: refused as a duplicate, yet the event cannot be read', true);
        return roomOfEvent(accessToken, id, event);
      },
      async findRoom(accessToken, request) {
        const id = googleEventIdOf(request.requestId);
        const event = await readEvent(accessToken, id);
        if (event === null || optionalString(event, 'status') === 'cancelled') return null;
        return roomOfEvent(accessToken, id, event);
      },
      async moveRoom(accessToken, roomId, request) {
        await api.call('move an event', { method: 'PATCH', path: eventPath(roomId, '?sendUpdates=none'), accessToken, json: times(request) }, [200]);
      },
      async deleteRoom(accessToken, roomId) {
        // 410 "deleted": already gone, as 404.
        await api.call('delete an event', { method: 'DELETE', path: eventPath(roomId, '?sendUpdates=none'), accessToken }, [200, 204, 404, 410]);
      },
    },
  };
}

/** Google's reasons for a 403 that mean "slow down", not "not allowed" (developers.google.com/calendar/api/guides/errors). */
const GOOGLE_RATE_LIMIT_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'quotaExceeded']);

/**
 * Calls to a Google API, where a 403 is read before it is judged: Google answers its rate
 * limits with 403 `rateLimitExceeded` (retried later, like a 429), and a refusal
 * (`forbiddenForNonOrganizer`, `insufficientPermissions`, …) with the same status (final).
 */
export function createGoogleClient(http: VendorHttp, baseUrl: string): ProviderClient {
  const api = createProviderClient(http, 'Google', baseUrl);
  return {
    label: api.label,
    async call(operation, request, ok) {
      const answer = await api.call(operation, request, ok.includes(403) ? ok : [...ok, 403]);
      if (answer.status !== 403 || ok.includes(403)) return answer;
      const error = objectOf(objectOf(answer.body)?.error);
      const reasons = (Array.isArray(error?.errors) ? error.errors : []).map((entry) => optionalString(entry, 'reason')).filter((reason) => reason !== null);
      const limited = reasons.some((reason) => GOOGLE_RATE_LIMIT_REASONS.has(reason));
      throw new ProviderError(`Google ${operation}: HTTP 403${reasons.length > 0 ? ` ${reasons.join(', ').slice(0, 100)}` : ''}`, limited, 403);
    },
  };
}

/**
 * The event id termin gives a room's event: Google takes 5–1024 characters of base32hex
 * (`0-9`, `a-v`), and a request id (a UUID, lowercase hex) is already that without its dashes:
 * `googleEventIdOf('0190f3a2-7c1e-7b3d-9a4f-1c2d3e4f5a6b')` → `termin0190f3a27c1e7b3d9a4f1c2d3e4f5a6b`.
 */
export function googleEventIdOf(requestId: string): string {
  const id = `termin${requestId.toLowerCase().replace(/[^0-9a-v]/g, '')}`;
  if (id.length < 5 + 'termin'.length) throw new ProviderError('Google create an event: the request id gives no event id', false);
  return id.slice(0, 1024);
}

/** The Meet room of an event, or null while its conference is still pending; a ProviderError when Google could not make one. */
function meetRoomOf(eventId: string, event: unknown): ConferenceRoom | null {
  const conference = objectOf(objectOf(event)?.conferenceData);
  const status = optionalString(objectOf(objectOf(conference?.createRequest)?.status), 'statusCode');
  if (status === 'failure') throw new ProviderError('Google create a Meet conference: Google could not make it (is Meet enabled for this account?)', false);
  const entryPoints = Array.isArray(conference?.entryPoints) ? conference.entryPoints : [];
  const video = entryPoints.find((entry) => optionalString(entry, 'entryPointType') === 'video');
  const joinUrl = optionalString(event, 'hangoutLink') ?? optionalString(video, 'uri');
  if (joinUrl === null) {
    if (status === 'pending' || conference?.createRequest !== undefined) return null;
    throw new ProviderError('Google create an event: the event has no Meet conference', false);
  }
  if (!joinUrl.startsWith('https://')) throw new ProviderError('Google create an event: the Meet link is not an https link', false);
  return { roomId: eventId, joinUrl, conferenceId: optionalString(conference, 'conferenceId'), password: optionalString(video, 'password') ?? optionalString(video, 'passcode') };
}

function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
