import { type ApiReply, type ApiRequest, type OAuthProvider, startOAuthProvider } from './oauth-provider.js';

/**
 * Zoom played locally from its public docs (developers.zoom.us/docs/api, "OAuth for user
 * apps"): `/oauth/authorize`, `/oauth/token` (client authentication by HTTP Basic over the raw
 * `client_id:client_secret`, not form-urlencoded first; a new refresh token on every refresh,
 * the old one refused), `/oauth/revoke`, and the REST API v2 parts termin uses: `GET
 * /v2/users/me`, `POST`/`GET /v2/users/me/meetings`, `GET`/`PATCH`/`DELETE
 * /v2/meetings/{meetingId}`. Errors as Zoom sends them: `{ code, message }` (124 invalid
 * token, 300 bad request, 3001 no such meeting).
 */

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
  /** termin's settings pointing at this stand-in. */
  env: Record<string, string>;
}

export async function startFakeZoom(options: { now: () => number; accountEmail?: string; accessTokenSeconds?: number }): Promise<FakeZoom> {
  // As Zoom's Marketplace shows them, with the `_` and `-` that RFC 6749 §2.3.1 would encode.
  const clientId = 'xQ9_kZ2-Lm4ZoomApp_Id';
  const clientSecret = 'Zs_8kLq-2vNf7T_secret-Value';
  const meetings = new Map<number, ZoomMeeting>();
  let nextId = 81_234_567_890;
  const notFound: ApiReply = { status: 404, body: { code: 3001, message: 'Meeting does not exist.' } };
  const bad = (message: string): ApiReply => ({ status: 400, body: { code: 300, message } });
  const listed = (meeting: ZoomMeeting) => {
    const { password: _password, grant: _grant, ...rest } = meeting;
    return rest;
  };

  const api = (request: ApiRequest): ApiReply => {
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
      return { status: 201, body: { ...listed(meeting), password: meeting.password, host_id: `user-${request.grant.id}` } };
    }
    if (request.method === 'GET' && request.path === '/v2/users/me/meetings') {
      const mine = [...meetings.values()].filter((meeting) => meeting.grant === request.grant.id);
      return { status: 200, body: { page_size: 300, total_records: mine.length, next_page_token: '', meetings: mine.map(listed) } };
    }
    const match = /^\/v2\/meetings\/(\d+)$/.exec(request.path);
    if (match) {
      const meeting = meetings.get(Number(match[1]));
      if (!meeting || meeting.grant !== request.grant.id) return notFound;
      if (request.method === 'GET') return { status: 200, body: { ...listed(meeting), password: meeting.password } };
      if (request.method === 'DELETE') {
        meetings.delete(meeting.id);
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
    env: { ZOOM_AUTHORIZE_URL: `${provider.baseUrl}/oauth/authorize`, ZOOM_TOKEN_URL: `${provider.baseUrl}/oauth/token`, ZOOM_API_URL: provider.baseUrl },
  });
}
