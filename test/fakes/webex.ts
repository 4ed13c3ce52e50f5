import { randomBytes, randomUUID } from 'node:crypto';
import { type ApiReply, type ApiRequest, type OAuthProvider, startOAuthProvider } from './oauth-provider.js';

/**
 * Webex played locally from its public docs (developer.webex.com: "Integrations and
 * Authorization", "Login with Webex" for PKCE, the Meetings and People API references):
 * `/v1/authorize`, `/v1/access_token` (the app's `client_id`/`client_secret` in the form body;
 * access tokens of 14 days, refresh tokens of 90 that every refresh answer carries again,
 * `refresh_token_expires_in`), no revocation endpoint, and the parts of the REST API termin
 * uses: `GET /v1/people/me`, `POST`/`GET /v1/meetings`, `GET`/`PATCH`/`PUT`/`DELETE
 * /v1/meetings/{meetingId}`. A listed `scheduledMeeting` is an occurrence of its series, with
 * an id of its own and `meetingSeriesId`. A meeting's `start` is never before the current time
 * and it lasts 10 minutes to 23 hours 59 minutes. A meeting made with `integrationTags` (at
 * most 3 "external keys" of the integration, 64 characters each) is found by listing with
 * `integrationTag`. "Patch a Meeting" changes only the fields it is given; PUT ("Update a
 * Meeting", marked for deprecation) replaces the meeting: `title`, `password`, `start` and
 * `end` are required, and a setting left out goes back to its default. A deleted meeting
 * answers 410 Gone. Errors as Webex sends them: `{ message, errors: [{ description }],
 * trackingId }`, the token endpoint's with the identity broker's OAuth error inside the message.
 */

/**
 * Refusals Webex documents, for `refuseNextApiCalls`: `scope`, 403 "… the access token is
 * missing required scopes …"; `invalid`, 400 (a request Webex will not take, whenever it is sent).
 */
export type WebexRefusal = 'scope' | 'invalid';

export interface WebexMeeting {
  id: string;
  meetingNumber: string;
  title: string;
  agenda: string;
  password: string;
  meetingType: 'meetingSeries';
  state: 'active';
  timezone: string;
  start: string;
  end: string;
  hostEmail: string;
  webLink: string;
  sipAddress: string;
  enabledAutoRecordMeeting: boolean;
  allowAnyUserToBeCoHost: boolean;
  enabledJoinBeforeHost: boolean;
  joinBeforeHostMinutes: number;
  reminderTime: number;
  integrationTags: string[];
  grant: number;
}

export interface FakeWebex extends OAuthProvider {
  clientId: string;
  clientSecret: string;
  /** Meetings (series) that exist now, by id. */
  meetings: Map<string, WebexMeeting>;
  /** The next `count` API calls are refused as Webex refuses them for `why`. */
  refuseNextApiCalls(count: number, why: WebexRefusal): void;
  /** Deletes a meeting as its host would in Webex: it answers 410 from then on. */
  deleteMeeting(id: string): void;
  /** termin's settings pointing at this stand-in. */
  env: Record<string, string>;
}

const ACCESS_TOKEN_SECONDS = 14 * 24 * 3600;
const MIN_DURATION_MS = 10 * 60_000;
const MAX_DURATION_MS = (23 * 60 + 59) * 60_000;
const REFRESH_TOKEN_SECONDS = 90 * 24 * 3600;

export function webexError(status: number, message: string): ApiReply {
  return { status, body: { message, errors: [{ description: message }], trackingId: `ROUTERGW_${randomUUID()}` } };
}

export async function startFakeWebex(options: { now: () => number; accountEmail?: string; accessTokenSeconds?: number }): Promise<FakeWebex> {
  const clientId = 'C0123456789abcdefwebexclient';
  const clientSecret = 'webex-client-secret-value-0123456789';
  const meetings = new Map<string, WebexMeeting>();
  const deleted = new Set<string>();
  let refusals: { count: number; why: WebexRefusal } = { count: 0, why: 'scope' };
  const deleteMeeting = (id: string) => {
    if (meetings.delete(id)) deleted.add(id);
  };
  let nextNumber = 2_650_000_000;
  const notFound = webexError(404, 'Meeting not found.');
  const defaults = { enabledAutoRecordMeeting: false, allowAnyUserToBeCoHost: false, enabledJoinBeforeHost: false, joinBeforeHostMinutes: 0, reminderTime: 10 };
  const shown = (meeting: WebexMeeting) => {
    const { grant: _grant, ...rest } = meeting;
    return rest;
  };
  // `20270104T090000Z`: the occurrence's part of a scheduled meeting's id.
  const occurrenceId = (meeting: WebexMeeting) => `${meeting.id}_${new Date(meeting.start).toISOString().replace(/[-:]|\.\d{3}/g, '')}`;
  const occurrence = (meeting: WebexMeeting) => ({ ...shown(meeting), id: occurrenceId(meeting), meetingSeriesId: meeting.id, meetingType: 'scheduledMeeting', state: 'ready' });
  const checkTimes = (body: Record<string, unknown>): ApiReply | null => {
    if (typeof body.start !== 'string' || Number.isNaN(Date.parse(body.start))) return webexError(400, 'start: invalid date-time format.');
    if (typeof body.end !== 'string' || Number.isNaN(Date.parse(body.end))) return webexError(400, 'end: invalid date-time format.');
    if (Date.parse(body.end) <= Date.parse(body.start)) return webexError(400, 'The end time must be later than the start time.');
    // The Meetings reference, `start`: it "cannot be before current date and time", and the
    // duration between start and end "cannot be shorter than 10 minutes or longer than 23 hours 59 minutes".
    if (Date.parse(body.start) < options.now()) return webexError(400, 'start: cannot be before current date and time.');
    const duration = Date.parse(body.end) - Date.parse(body.start);
    if (duration < MIN_DURATION_MS || duration > MAX_DURATION_MS) {
      return webexError(400, 'The duration of the meeting cannot be shorter than 10 minutes or longer than 23 hours 59 minutes.');
    }
    if (body.timezone !== undefined && (typeof body.timezone !== 'string' || !Intl.supportedValuesOf('timeZone').concat('UTC').includes(body.timezone))) {
      return webexError(400, 'timezone: invalid time zone.');
    }
    return null;
  };
  const flag = (body: Record<string, unknown>, name: keyof typeof defaults) => (body[name] === undefined ? defaults[name] : body[name]);

  const api = (request: ApiRequest): ApiReply => {
    if (refusals.count > 0) {
      refusals = { ...refusals, count: refusals.count - 1 };
      return refusals.why === 'scope'
        ? webexError(
            403,
            "The server understood the request, but refused to fulfill it because the access token is missing required scopes or the person doesn't have access to the requested resource.",
          )
        : webexError(400, 'The request could not be understood by the server due to malformed syntax.');
    }
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (request.method === 'GET' && request.path === '/v1/people/me') {
      return {
        status: 200,
        body: {
          id: `Y2lzY29zcGFyazovL3VzL1BFT1BMRS8${request.grant.id}`,
          emails: [request.grant.accountEmail],
          displayName: 'Hanna Host',
          firstName: 'Hanna',
          lastName: 'Host',
          orgId: 'Y2lzY29zcGFyazovL3VzL09SR0FOSVpBVElPTi9hY21l',
          type: 'person',
        },
      };
    }
    if (request.method === 'POST' && request.path === '/v1/meetings') {
      if (typeof body.title !== 'string' || body.title === '' || body.title.length > 128) return webexError(400, 'title: must be 1 to 128 characters.');
      if (typeof body.agenda === 'string' && body.agenda.length > 1300) return webexError(400, 'agenda: must be at most 1300 characters.');
      const wrong = checkTimes(body);
      if (wrong) return wrong;
      const tags = body.integrationTags ?? [];
      if (!Array.isArray(tags) || tags.length > 3 || tags.some((tag) => typeof tag !== 'string' || tag.length > 64)) {
        return webexError(400, 'integrationTags: at most 3 tags of at most 64 characters.');
      }
      nextNumber += 1;
      const id = randomBytes(16).toString('hex');
      const meeting: WebexMeeting = {
        id,
        meetingNumber: String(nextNumber),
        title: body.title,
        agenda: typeof body.agenda === 'string' ? body.agenda : '',
        password: typeof body.password === 'string' ? body.password : `Pw${randomBytes(4).toString('hex')}`,
        meetingType: 'meetingSeries',
        state: 'active',
        timezone: typeof body.timezone === 'string' ? body.timezone : 'UTC',
        start: new Date(String(body.start)).toISOString(),
        end: new Date(String(body.end)).toISOString(),
        hostEmail: request.grant.accountEmail,
        webLink: `https://acme.webex.com/acme/j.php?MTID=m${id}`,
        sipAddress: `${nextNumber}@acme.webex.com`,
        enabledAutoRecordMeeting: flag(body, 'enabledAutoRecordMeeting') as boolean,
        allowAnyUserToBeCoHost: flag(body, 'allowAnyUserToBeCoHost') as boolean,
        enabledJoinBeforeHost: flag(body, 'enabledJoinBeforeHost') as boolean,
        joinBeforeHostMinutes: flag(body, 'joinBeforeHostMinutes') as number,
        reminderTime: flag(body, 'reminderTime') as number,
        integrationTags: tags as string[],
        grant: request.grant.id,
      };
      meetings.set(id, meeting);
      return { status: 200, body: shown(meeting) };
    }
    if (request.method === 'GET' && request.path === '/v1/meetings') {
      // Without from/to Webex lists from now to a week ahead; `to` is exclusive.
      const from = request.query.has('from') ? Date.parse(request.query.get('from')!) : options.now();
      const to = request.query.has('to') ? Date.parse(request.query.get('to')!) : from + 7 * 24 * 3600_000;
      if (Number.isNaN(from) || Number.isNaN(to)) return webexError(400, 'from/to: invalid date-time format.');
      const max = Math.min(Number(request.query.get('max') ?? 10), 100);
      const scheduled = request.query.get('meetingType') === 'scheduledMeeting';
      const tag = request.query.get('integrationTag');
      const mine = [...meetings.values()].filter(
        (m) => m.grant === request.grant.id && Date.parse(m.start) >= from && Date.parse(m.start) < to && (tag === null || m.integrationTags.includes(tag)),
      );
      return { status: 200, body: { items: mine.slice(0, max).map((m) => (scheduled ? occurrence(m) : shown(m))) } };
    }
    const match = /^\/v1\/meetings\/([0-9a-f]{32})(_\d{8}T\d{6}Z)?$/.exec(request.path);
    if (match && deleted.has(match[1]!)) return webexError(410, 'Meeting has been deleted.');
    if (match) {
      const meeting = meetings.get(match[1]!);
      if (!meeting || meeting.grant !== request.grant.id) return notFound;
      if (request.method === 'GET') return { status: 200, body: match[2] ? occurrence(meeting) : shown(meeting) };
      if (match[2]) return webexError(400, 'Only a meeting series can be changed here.');
      if (request.method === 'DELETE') {
        deleteMeeting(meeting.id);
        return { status: 204 };
      }
      if (request.method === 'PATCH') {
        // Only what is given changes; the times are checked as they will be.
        const next = { start: body.start ?? meeting.start, end: body.end ?? meeting.end, timezone: body.timezone };
        const wrong = checkTimes(next);
        if (wrong) return wrong;
        for (const field of ['title', 'agenda', 'password'] as const) {
          if (body[field] !== undefined && typeof body[field] !== 'string') return webexError(400, `${field}: must be a string.`);
        }
        Object.assign(meeting, {
          ...(typeof body.title === 'string' ? { title: body.title } : {}),
          ...(typeof body.agenda === 'string' ? { agenda: body.agenda } : {}),
          ...(typeof body.password === 'string' ? { password: body.password } : {}),
          start: new Date(String(next.start)).toISOString(),
          end: new Date(String(next.end)).toISOString(),
          ...(typeof body.timezone === 'string' ? { timezone: body.timezone } : {}),
          ...Object.fromEntries(Object.keys(defaults).flatMap((name) => (body[name] === undefined ? [] : [[name, body[name]]]))),
        });
        return { status: 200, body: shown(meeting) };
      }
      if (request.method === 'PUT') {
        for (const field of ['title', 'password', 'start', 'end']) {
          if (typeof body[field] !== 'string' || body[field] === '') return webexError(400, `${field}: is required.`);
        }
        const wrong = checkTimes(body);
        if (wrong) return wrong;
        Object.assign(meeting, {
          title: body.title,
          password: body.password,
          agenda: typeof body.agenda === 'string' ? body.agenda : '',
          start: new Date(String(body.start)).toISOString(),
          end: new Date(String(body.end)).toISOString(),
          timezone: typeof body.timezone === 'string' ? body.timezone : meeting.timezone,
          enabledAutoRecordMeeting: flag(body, 'enabledAutoRecordMeeting'),
          allowAnyUserToBeCoHost: flag(body, 'allowAnyUserToBeCoHost'),
          enabledJoinBeforeHost: flag(body, 'enabledJoinBeforeHost'),
          joinBeforeHostMinutes: flag(body, 'joinBeforeHostMinutes'),
          reminderTime: flag(body, 'reminderTime'),
          // "An empty or null integrationTags will delete all existing integration tags for the meeting implicitly."
          integrationTags: Array.isArray(body.integrationTags) ? body.integrationTags : [],
        });
        return { status: 200, body: shown(meeting) };
      }
    }
    return webexError(404, 'The requested resource could not be found.');
  };

  const provider = await startOAuthProvider(
    {
      clientId,
      clientSecret,
      clientAuthentication: 'post',
      rotateRefreshTokens: false,
      repeatRefreshToken: true,
      tokenFields: { token_type: 'Bearer', refresh_token_expires_in: REFRESH_TOKEN_SECONDS },
      // Webex's token answer names no scope.
      answerScope: null,
      // Refresh tokens last 90 days (`refresh_token_expires_in`), from their last use.
      refreshTokenIdleDays: REFRESH_TOKEN_SECONDS / 86_400,
      accessTokenSeconds: options.accessTokenSeconds ?? ACCESS_TOKEN_SECONDS,
      accountEmail: options.accountEmail ?? 'host@acme.webex.example',
      now: options.now,
      errorBody: (status, message, oauthError) =>
        oauthError === undefined
          ? webexError(status, message).body
          : webexError(
              status,
              `POST failed: HTTP/1.1 ${status} (url = https://idbroker.webex.com/idb/oauth2/v1/access_token, request/response TrackingId = ROUTER_${randomUUID()}, error = '(${oauthError}) ${message}')`,
            ).body,
    },
    // Webex documents no revocation endpoint: nothing of termin's should ever call this path.
    { authorize: '/v1/authorize', token: '/v1/access_token', revoke: '/v1/no-such-revocation-endpoint' },
    api,
  );
  return Object.assign(provider, {
    clientId,
    clientSecret,
    meetings,
    deleteMeeting,
    refuseNextApiCalls(count: number, why: WebexRefusal) {
      refusals = { count, why };
    },
    env: { WEBEX_AUTHORIZE_URL: `${provider.baseUrl}/v1/authorize`, WEBEX_TOKEN_URL: `${provider.baseUrl}/v1/access_token`, WEBEX_API_URL: provider.baseUrl },
  });
}
