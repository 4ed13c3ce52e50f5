import { randomBytes } from 'node:crypto';
import { type ApiReply, type ApiRequest, type OAuthProvider, startOAuthProvider } from './oauth-provider.js';

/**
 * Zoom played locally from its public docs (developers.zoom.us/docs/api, "OAuth for user
 * apps"): `/oauth/authorize`, `/oauth/token` (client authentication by HTTP Basic over the raw
 * `client_id:client_secret`, not form-urlencoded first; a new refresh token on every refresh,
 * the old one refused), `/oauth/revoke`, and the REST API v2 parts termin uses: `GET
 * /v2/users/me`, `POST`/`GET /v2/users/me/meetings`, `GET`/`PATCH`/`DELETE
 * /v2/meetings/{meetingId}`. Errors as Zoom sends them: `{ code, message }` (124 invalid
 * token, 300 bad request, 3001 no such meeting).
 *
 * List meetings as its reference describes it: `type` (`scheduled`, the default: every meeting
 * not expired; `upcoming`; `live`; `previous_meetings`), `from`/`to` dates (yyyy-mm-dd, read in
 * `timezone`, UTC by default), `page_size` (30 by default, at most 300) and
 * `next_page_token` (given while more results remain, "expiration period for this token is
 * 15 minutes"), earliest first; a listed meeting's `agenda` "gets truncated to 250
 * characters when you list all of a user's meetings", and it shows no passcode.
 *
 * Delete a meeting e-mails the host and alternative hosts about the cancellation unless asked
 * not to: `schedule_for_reminder` ("true: Notify host and alternative host about the meeting
 * cancellation via email", the default); the stand-in keeps those e-mails in `hostEmails`.
 */

/**
 * Refusals Zoom documents, for `refuseNextApiCalls`: `scope`, code 4711 ("Invalid access token,
 * does not contain scopes:[…]", the grant lacks a scope the call needs; sent with HTTP 400
 * here, as Zoom's own examples do not say which status carries it); `invalid`, 400 code 300
 * (a request Zoom will not take, whenever it is sent).
 */
export type ZoomRefusal = 'scope' | 'invalid';

export interface ZoomMeeting {
  id: number;
  uuid: string;
  topic: string;
  type: number;
  start_time: string;
  duration: number;
  timezone: string;
  agenda: string;
  join_url: string;
  password: string;
  grant: number;
}

export interface FakeZoom extends OAuthProvider {
  clientId: string;
  clientSecret: string;
  /** Meetings that exist now, by id. */
  meetings: Map<number, ZoomMeeting>;
  /** The next `count` API calls are refused as Zoom refuses them for `why`. */
  refuseNextApiCalls(count: number, why: ZoomRefusal): void;
  /** The e-mails Zoom sent the host about its meetings (a cancellation, unless the DELETE said `schedule_for_reminder=false`). */
  hostEmails: { meetingId: number; subject: string }[];
  /** termin's settings pointing at this stand-in. */
  env: Record<string, string>;
}

export async function startFakeZoom(options: { now: () => number; accountEmail?: string; accessTokenSeconds?: number }): Promise<FakeZoom> {
  // As Zoom's Marketplace shows them, with the `_` and `-` that RFC 6749 §2.3.1 would encode.
  const clientId = 'xQ9_kZ2-Lm4ZoomApp_Id';
  const clientSecret = 'Zs_8kLq-2vNf7T_secret-Value';
  const meetings = new Map<number, ZoomMeeting>();
  const hostEmails: FakeZoom['hostEmails'] = [];
  let refusals: { count: number; why: ZoomRefusal } = { count: 0, why: 'scope' };
  let nextId = 81_234_567_890;
  const notFound: ApiReply = { status: 404, body: { code: 3001, message: 'Meeting does not exist.' } };
  const bad = (message: string): ApiReply => ({ status: 400, body: { code: 300, message } });
  const shown = (meeting: ZoomMeeting) => {
    const { password: _password, grant: _grant, ...rest } = meeting;
    return rest;
  };
  const listed = (meeting: ZoomMeeting) => ({ ...shown(meeting), agenda: meeting.agenda.slice(0, 250) });
  /** Page tokens handed out: the listing they continue (its query without the token), where, and until when. */
  const pageTokens = new Map<string, { query: string; offset: number; expiresAt: number }>();
  const listMeetings = (request: ApiRequest): ApiReply => {
    const q = new URLSearchParams(request.query);
    const token = q.get('next_page_token');
    q.delete('next_page_token');
    let offset = 0;
    if (token !== null && token !== '') {
      const page = pageTokens.get(token);
      if (!page || page.expiresAt < options.now() || page.query !== q.toString()) return bad('Invalid next_page_token.');
      offset = page.offset;
    }
    const type = q.get('type') ?? 'scheduled';
    if (!['scheduled', 'live', 'upcoming', 'upcoming_meetings', 'previous_meetings'].includes(type)) return bad('Invalid field: type.');
    const size = Math.min(Math.max(Number(q.get('page_size') ?? 30) || 30, 1), 300);
    const zone = q.get('timezone') ?? 'UTC';
    const dateIn = (at: number) => new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
    for (const name of ['from', 'to']) {
      const value = q.get(name);
      if (value !== null && !/^\d{4}-\d{2}-\d{2}$/.test(value)) return bad(`Invalid field: ${name}.`);
    }
    const now = options.now();
    const inType = (start: number, end: number) =>
      type === 'upcoming' || type === 'upcoming_meetings' ? end > now : type === 'live' ? start <= now && end > now : type === 'previous_meetings' ? end <= now : true;
    const mine = [...meetings.values()]
      .filter((meeting) => meeting.grant === request.grant.id)
      .filter((meeting) => {
        const start = Date.parse(meeting.start_time);
        const day = dateIn(start);
        return inType(start, start + meeting.duration * 60_000) && (q.get('from') === null || day >= q.get('from')!) && (q.get('to') === null || day <= q.get('to')!);
      })
      .sort((a, b) => Date.parse(a.start_time) - Date.parse(b.start_time) || a.id - b.id);
    let next = '';
    if (offset + size < mine.length) {
      next = randomBytes(12).toString('base64url');
      pageTokens.set(next, { query: q.toString(), offset: offset + size, expiresAt: now + 15 * 60_000 });
    }
    return { status: 200, body: { page_size: size, total_records: mine.length, next_page_token: next, meetings: mine.slice(offset, offset + size).map(listed) } };
  };

  const api = (request: ApiRequest): ApiReply => {
    if (refusals.count > 0) {
      refusals = { ...refusals, count: refusals.count - 1 };
      return refusals.why === 'scope'
        ? { status: 400, body: { code: 4711, message: 'Invalid access token, does not contain scopes:[meeting:write:meeting, meeting:update:meeting].' } }
        : bad('Invalid field.');
    }
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (request.method === 'GET' && request.path === '/v2/users/me') {
      return { status: 200, body: { id: `user-${request.grant.id}`, email: request.grant.accountEmail, first_name: 'Hanna', last_name: 'Host', type: 2 } };
    }
    if (request.method === 'POST' && request.path === '/v2/users/me/meetings') {
      if (typeof body.topic !== 'string' || body.type !== 2 || typeof body.start_time !== 'string' || typeof body.duration !== 'number') {
        return bad('Invalid field: topic, type 2, start_time and duration are required for a scheduled meeting.');
      }
      if (Number.isNaN(Date.parse(body.start_time))) return bad('Invalid field: start_time.');
      nextId += 1;
      const meeting: ZoomMeeting = {
        id: nextId,
        uuid: `uuid-${nextId}`,
        topic: body.topic,
        type: 2,
        start_time: body.start_time,
        duration: body.duration,
        timezone: typeof body.timezone === 'string' ? body.timezone : 'UTC',
        agenda: typeof body.agenda === 'string' ? body.agenda : '',
        join_url: `https://us02web.zoom.us/j/${nextId}?pwd=p${nextId}`,
        password: `pw${nextId % 100_000}`,
        grant: request.grant.id,
      };
      meetings.set(meeting.id, meeting);
      return { status: 201, body: { ...shown(meeting), password: meeting.password, host_id: `user-${request.grant.id}` } };
    }
    if (request.method === 'GET' && request.path === '/v2/users/me/meetings') return listMeetings(request);
    const match = /^\/v2\/meetings\/(\d+)$/.exec(request.path);
    if (match) {
      const meeting = meetings.get(Number(match[1]));
      if (!meeting || meeting.grant !== request.grant.id) return notFound;
      if (request.method === 'GET') return { status: 200, body: { ...shown(meeting), password: meeting.password } };
      if (request.method === 'DELETE') {
        for (const flag of ['schedule_for_reminder', 'cancel_meeting_reminder']) {
          const value = request.query.get(flag);
          if (value !== null && value !== 'true' && value !== 'false') return bad(`Invalid field: ${flag}.`);
        }
        meetings.delete(meeting.id);
        if (request.query.get('schedule_for_reminder') !== 'false') hostEmails.push({ meetingId: meeting.id, subject: `Meeting canceled: ${meeting.topic}` });
        return { status: 204 };
      }
      if (request.method === 'PATCH') {
        if (body.start_time !== undefined && (typeof body.start_time !== 'string' || Number.isNaN(Date.parse(body.start_time)))) return bad('Invalid field: start_time.');
        if (typeof body.start_time === 'string') meeting.start_time = body.start_time;
        if (typeof body.duration === 'number') meeting.duration = body.duration;
        if (typeof body.timezone === 'string') meeting.timezone = body.timezone;
        if (typeof body.topic === 'string') meeting.topic = body.topic;
        return { status: 204 };
      }
    }
    return { status: 404, body: { code: 404, message: 'Not found' } };
  };

  const provider = await startOAuthProvider(
    {
      clientId,
      clientSecret,
      clientAuthentication: 'basic-raw',
      rotateRefreshTokens: true,
      // "OAuth for user apps": a refresh token expires after 90 days (each refresh gives a new one).
      refreshTokenIdleDays: 90,
      accessTokenSeconds: options.accessTokenSeconds ?? 3600,
      accountEmail: options.accountEmail ?? 'host@zoom.example',
      now: options.now,
    },
    { authorize: '/oauth/authorize', token: '/oauth/token', revoke: '/oauth/revoke' },
    api,
  );
  return Object.assign(provider, {
    clientId,
    clientSecret,
    meetings,
    hostEmails,
    refuseNextApiCalls(count: number, why: ZoomRefusal) {
      refusals = { count, why };
    },
    env: { ZOOM_AUTHORIZE_URL: `${provider.baseUrl}/oauth/authorize`, ZOOM_TOKEN_URL: `${provider.baseUrl}/oauth/token`, ZOOM_API_URL: provider.baseUrl },
  });
}
