import { randomBytes } from 'node:crypto';
import { type ApiReply, type ApiRequest, type OAuthProvider, startOAuthProvider } from './oauth-provider.js';

/**
 * Google played locally from its public docs: the OAuth 2.0 web-server flow
 * (developers.google.com/identity/protocols/oauth2/web-server) at `/o/oauth2/v2/auth` and
 * `/token` (client authentication in the form body; PKCE; a refresh token only with
 * `access_type=offline`, and never a new one on refresh; `iss` sent back with the code; an
 * `id_token` in every token answer; `scope` naming only what the host left ticked on the
 * consent screen, "granular consent"; `{ error, error_description }` on refusal), `/revoke`,
 * the OpenID userinfo endpoint `/oauth2/v3/userinfo`, and the Calendar API v3 parts termin
 * uses (developers.google.com/calendar/api/v3/reference/events): insert with a client-chosen
 * `id` (base32hex, 5–1024 characters; an id used before, even by a deleted event, is refused
 * with 409 `duplicate`; "the iCalUID and the id are not identical and only one of them should
 * be supplied at event creation time": both are refused with 400, and an event made with an
 * `id` gets an `iCalUID` of Google's own) and `conferenceData.createRequest` honoured only with
 * `conferenceDataVersion=1`, the Meet conference `pending` at first and made on a later read;
 * get (a deleted event reads as `status: cancelled` with its id and nothing more: "deleted events
 * are only guaranteed to have the id field populated"), patch, delete (410 once deleted), and
 * list (`singleEvents`, `timeMin`/`timeMax`, pages by `nextPageToken`; the last page carries a
 * `nextSyncToken`, and a list with `syncToken` gives every event changed since that token,
 * deleted ones as `cancelled`, refuses `timeMin`/`timeMax`/`showDeleted=false` beside it with
 * 400 and an expired token with 410 `fullSyncRequired`, as
 * developers.google.com/calendar/api/guides/sync describes). Errors in Google's
 * JSON shape `{ error: { code, message, errors: [{ domain, reason, message }], status } }`;
 * the Calendar API's "Handle API errors" guide names the refusals `refuseNextApiCalls` gives:
 * 403 `rateLimitExceeded` and `userRateLimitExceeded` (slow down, then try again), 403
 * `forbiddenForNonOrganizer` (this call is not allowed); `scope` is Google's answer to a token
 * without the scope a call needs (403 `insufficientPermissions`, "Request had insufficient
 * authentication scopes.", with an `ErrorInfo` detail `ACCESS_TOKEN_SCOPE_INSUFFICIENT`) and
 * `invalid` a 400 `badRequest`. A conference Google could not make reads
 * `createRequest.status.statusCode: failure` (`failNextConferences`).
 */

/** A refusal Google documents, for `refuseNextApiCalls`. */
export type GoogleRefusal = 'rateLimitExceeded' | 'userRateLimitExceeded' | 'forbiddenForNonOrganizer' | 'scope' | 'invalid';

export interface GoogleEvent {
  id: string;
  status: 'confirmed' | 'tentative' | 'cancelled';
  summary: string;
  description?: string;
  location?: string;
  iCalUID?: string;
  /** A timed event's `dateTime`, or an all-day event's `date` (the end date exclusive). */
  start: { dateTime: string; timeZone?: string } | { date: string };
  end: { dateTime: string; timeZone?: string } | { date: string };
  attendees: { email: string; displayName?: string; self?: boolean; responseStatus?: string }[];
  transparency?: 'opaque' | 'transparent';
  extendedProperties?: { private?: Record<string, string> };
  /** The conference asked for, and how many more reads still find it pending. */
  conference: { requestId: string; pendingReads: number; ready: boolean; meetCode: string; failed?: boolean } | null;
  grant: number;
  sequence: number;
}

export interface FakeGoogle extends OAuthProvider {
  clientId: string;
  clientSecret: string;
  /** Events by id, deleted ones kept as `cancelled` (Google keeps their ids taken). */
  events: Map<string, GoogleEvent>;
  /** How many reads of a new event still find its conference pending (the insert's answer always does). */
  setPendingReads(count: number): void;
  /** The next `count` API calls are refused as Google refuses them for `why`. */
  refuseNextApiCalls(count: number, why: GoogleRefusal): void;
  /** The conferences of the next `count` events made fail (Meet is not enabled for the account, say). */
  failNextConferences(count: number): void;
  /** Adds an event to the calendar of the grant that connected `count`-th (1 = first), as the host would in Google Calendar. */
  addEvent(event: Omit<GoogleEvent, 'grant' | 'sequence' | 'conference' | 'attendees' | 'status'> & Partial<Pick<GoogleEvent, 'status' | 'grant' | 'attendees'>>): GoogleEvent;
  env: Record<string, string>;
  /** Each `events.list` page answered: whether it was asked with a sync token, and the ids of the events it gave. */
  listAnswers: { syncToken: boolean; ids: string[] }[];
  /** Forgets every sync token issued (as Google does after a while): the next incremental list gets 410. */
  expireSyncTokens(): void;
}

const ISSUER = 'https://accounts.google.com';

function googleError(code: number, status: string, reason: string, message: string): ApiReply {
  return { status: code, body: { error: { code, message, errors: [{ domain: 'global', reason, message }], status } } };
}

export async function startFakeGoogle(options: { now: () => number; accountEmail?: string; accessTokenSeconds?: number }): Promise<FakeGoogle> {
  const clientId = '1234567890-termin.apps.googleusercontent.com';
  const clientSecret = 'GOCSPX-fake-google-client-secret';
  const events = new Map<string, GoogleEvent>();
  let pendingReads = 1;
  let refusals: { count: number; why: GoogleRefusal } = { count: 0, why: 'rateLimitExceeded' };
  let failingConferences = 0;
  const refusalOf = (why: GoogleRefusal): ApiReply => {
    if (why === 'scope') {
      return {
        status: 403,
        body: {
          error: {
            code: 403,
            message: 'Request had insufficient authentication scopes.',
            errors: [{ message: 'Insufficient Permission', domain: 'global', reason: 'insufficientPermissions' }],
            status: 'PERMISSION_DENIED',
            details: [
              {
                '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
                reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
                domain: 'googleapis.com',
                metadata: { service: 'calendar-json.googleapis.com', method: 'calendar.v3.Events.Insert' },
              },
            ],
          },
        },
      };
    }
    if (why === 'invalid') return googleError(400, 'INVALID_ARGUMENT', 'badRequest', 'Bad Request');
    if (why === 'forbiddenForNonOrganizer') return googleError(403, 'PERMISSION_DENIED', why, 'Shared properties can only be changed by the organizer of the event.');
    const message = why === 'rateLimitExceeded' ? 'Rate Limit Exceeded' : 'User Rate Limit Exceeded';
    return { status: 403, body: { error: { errors: [{ domain: 'usageLimits', reason: why, message }], code: 403, message } } };
  };
  let meetCodes = 0;
  const notFound = googleError(404, 'NOT_FOUND', 'notFound', 'Not Found');
  const bad = (message: string) => googleError(400, 'INVALID_ARGUMENT', 'invalid', message);

  const meetLink = (code: string) => `https://meet.google.com/${code}`;
  const resource = (event: GoogleEvent, read: boolean): Record<string, unknown> => {
    const { conference, grant: _grant, ...rest } = event;
    const body: Record<string, unknown> = { kind: 'calendar#event', etag: `"${event.sequence}"`, ...rest, htmlLink: `https://www.google.com/calendar/event?eid=${event.id}` };
    if (conference === null) return body;
    if (read && !conference.ready) {
      if (conference.pendingReads > 0) conference.pendingReads -= 1;
      else conference.ready = true;
    }
    const ready = conference.ready;
    if (conference.failed) {
      body.conferenceData = { createRequest: { requestId: conference.requestId, conferenceSolutionKey: { type: 'hangoutsMeet' }, status: { statusCode: 'failure' } } };
      return body;
    }
    body.conferenceData = ready
      ? {
          createRequest: { requestId: conference.requestId, conferenceSolutionKey: { type: 'hangoutsMeet' }, status: { statusCode: 'success' } },
          entryPoints: [{ entryPointType: 'video', uri: meetLink(conference.meetCode), label: `meet.google.com/${conference.meetCode}` }],
          conferenceSolution: { key: { type: 'hangoutsMeet' }, name: 'Google Meet' },
          conferenceId: conference.meetCode,
        }
      : { createRequest: { requestId: conference.requestId, conferenceSolutionKey: { type: 'hangoutsMeet' }, status: { statusCode: 'pending' } } };
    if (ready) body.hangoutLink = meetLink(conference.meetCode);
    return body;
  };
  // All-day dates compared as UTC days: the stand-in's calendar is in UTC.
  const instant = (time: GoogleEvent['start']) => Date.parse('dateTime' in time ? time.dateTime : `${time.date}T00:00:00Z`);
  const validTime = (value: unknown): value is { dateTime: string; timeZone?: string } =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { dateTime?: unknown }).dateTime === 'string' &&
    !Number.isNaN(Date.parse((value as { dateTime: string }).dateTime));

  /** Sync tokens issued: each the events of its grant as they were (their fingerprints, deleted ones included). */
  const syncTokens = new Map<string, { grant: number; snapshot: Map<string, string> }>();
  const listAnswers: FakeGoogle['listAnswers'] = [];
  const timeOf = (time: GoogleEvent['start']) => ('dateTime' in time ? `${time.dateTime} ${time.timeZone ?? ''}` : time.date);
  // Every field a resource shows, as one string: a JSON of each event per token took a third
  // of a second for a calendar of 25 000, in the test's own process. (Tests change an event by
  // setting its fields, or its start and end as new objects.)
  const fingerprintOf = (event: GoogleEvent) =>
    [
      event.status,
      event.summary,
      event.description,
      event.location,
      event.iCalUID,
      event.transparency,
      event.sequence,
      event.conference?.ready,
      timeOf(event.start),
      timeOf(event.end),
      event.attendees.length === 0 ? '' : JSON.stringify(event.attendees),
      event.extendedProperties === undefined ? '' : JSON.stringify(event.extendedProperties),
    ].join('\u0000');
  const snapshotOf = (grant: number) => new Map([...events.values()].filter((event) => event.grant === grant).map((event) => [event.id, fingerprintOf(event)]));
  // Only the page's own events are turned into resources: a calendar of 25 000 events is listed in 10 pages.
  const page = <T>(request: ApiRequest, all: readonly T[], syncToken: boolean, toItem: (item: T) => Record<string, unknown>): ApiReply => {
    const q = request.query;
    const size = Math.min(2500, Number(q.get('maxResults') ?? 250));
    const from = Number(q.get('pageToken') ?? 0);
    const items = all.slice(from, from + size).map(toItem);
    listAnswers.push({ syncToken, ids: items.map((item) => String(item.id)) });
    const body: Record<string, unknown> = { kind: 'calendar#events', summary: request.grant.accountEmail, timeZone: 'UTC', items };
    if (from + size < all.length) body.nextPageToken = String(from + size);
    else {
      const token = `CPDAlvWDx70CEPDAlvWDx70CGA${randomBytes(6).toString('base64url')}=`;
      syncTokens.set(token, { grant: request.grant.id, snapshot: snapshotOf(request.grant.id) });
      body.nextSyncToken = token;
    }
    return { status: 200, body };
  };
  const listChanges = (request: ApiRequest, token: string): ApiReply => {
    const q = request.query;
    for (const refused of ['timeMin', 'timeMax', 'orderBy', 'q', 'updatedMin', 'iCalUID', 'privateExtendedProperty']) {
      if (q.has(refused)) return bad(`Sync token is not compatible with the ${refused} parameter.`);
    }
    if (q.get('showDeleted') === 'false') return bad('Sync token cannot be used with showDeleted=false.');
    const since = syncTokens.get(token);
    if (!since || since.grant !== request.grant.id) return googleError(410, 'GONE', 'fullSyncRequired', 'Sync token is no longer valid, a full sync is required.');
    const now = snapshotOf(request.grant.id);
    const changed = [...now].filter(([id, fingerprint]) => since.snapshot.get(id) !== fingerprint).map(([id]) => resource(events.get(id)!, false));
    // Gone from the calendar altogether: still reported, as deleted.
    const gone = [...since.snapshot.keys()].filter((id) => !now.has(id)).map((id) => ({ kind: 'calendar#event', id, status: 'cancelled' }));
    return page(request, [...changed, ...gone], true, (item) => item);
  };

  let listing: { key: string; events: GoogleEvent[] } | null = null;
  const listEvents = (request: ApiRequest): ApiReply => {
    const q = request.query;
    const syncToken = q.get('syncToken');
    if (syncToken !== null) return listChanges(request, syncToken);
    if (q.get('singleEvents') !== 'true' && q.get('orderBy') === 'startTime') return bad('The requested ordering is not available for the particular query.');
    const timeMin = q.get('timeMin') === null ? -Infinity : Date.parse(q.get('timeMin')!);
    const timeMax = q.get('timeMax') === null ? Infinity : Date.parse(q.get('timeMax')!);
    if (Number.isNaN(timeMin) || Number.isNaN(timeMax)) return bad('Bad Request');
    const showDeleted = q.get('showDeleted') === 'true';
    // A listing is found and sorted at its first page; the next pages read on from there.
    const key = `${request.grant.id} ${timeMin} ${timeMax} ${showDeleted}`;
    if (q.get('pageToken') === null || listing?.key !== key) {
      const mine = [...events.values()]
        .filter((event) => event.grant === request.grant.id && (showDeleted || event.status !== 'cancelled'))
        .map((event) => ({ event, start: instant(event.start) }))
        .filter(({ event, start }) => instant(event.end) > timeMin && start < timeMax)
        .sort((a, b) => a.start - b.start)
        .map(({ event }) => event);
      listing = { key, events: mine };
    }
    return page(request, listing.events, false, (event) => resource(event, false));
  };

  const api = (request: ApiRequest): ApiReply => {
    if (refusals.count > 0) {
      refusals = { ...refusals, count: refusals.count - 1 };
      return refusalOf(refusals.why);
    }
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (request.method === 'GET' && request.path === '/oauth2/v3/userinfo') {
      return {
        status: 200,
        body: { sub: `1${String(request.grant.id).padStart(20, '0')}`, email: request.grant.accountEmail, email_verified: true, picture: 'https://lh3.googleusercontent.com/a/x' },
      };
    }
    const base = '/calendar/v3/calendars/primary/events';
    if (request.path === base && request.method === 'GET') return listEvents(request);
    if (request.path === base && request.method === 'POST') {
      const id = typeof body.id === 'string' ? body.id : `auto${events.size + 1}`;
      if (!/^[a-v0-9]{5,1024}$/.test(id)) return bad('Invalid resource id value.');
      if (typeof body.id === 'string' && body.iCalUID !== undefined) return bad('Only one of id and iCalUID may be supplied.');
      if (events.has(id)) return googleError(409, 'ALREADY_EXISTS', 'duplicate', 'The requested identifier already exists.');
      if (!validTime(body.start)) return bad('Missing start time.');
      if (!validTime(body.end)) return bad('Missing end time.');
      if (Date.parse(body.end.dateTime) < Date.parse(body.start.dateTime)) return bad('The specified time range is empty.');
      const createRequest = (body.conferenceData as { createRequest?: { requestId?: unknown; conferenceSolutionKey?: { type?: unknown } } } | undefined)?.createRequest;
      // Without conferenceDataVersion=1 Google ignores conferenceData.
      const wantsMeet = request.query.get('conferenceDataVersion') === '1' && createRequest !== undefined;
      if (wantsMeet && (typeof createRequest.requestId !== 'string' || createRequest.conferenceSolutionKey?.type !== 'hangoutsMeet')) return bad('Invalid conference type value.');
      meetCodes += 1;
      const code = `abc-${String(meetCodes)
        .padStart(4, '0')
        .replace(/\d/g, (d) => 'mnopqrstuv'[Number(d)]!)}-xyz`;
      const event: GoogleEvent = {
        id,
        status: 'confirmed',
        summary: typeof body.summary === 'string' ? body.summary : '',
        ...(typeof body.description === 'string' ? { description: body.description } : {}),
        start: body.start,
        end: body.end,
        attendees: Array.isArray(body.attendees) ? (body.attendees as { email: string; displayName?: string }[]) : [],
        ...(body.extendedProperties ? { extendedProperties: body.extendedProperties as GoogleEvent['extendedProperties'] } : {}),
        ...(body.transparency === 'transparent' ? { transparency: 'transparent' as const } : {}),
        ...(typeof body.location === 'string' ? { location: body.location } : {}),
        iCalUID: typeof body.iCalUID === 'string' ? body.iCalUID : `${id}@google.com`,
        ...(body.status === 'tentative' ? { status: 'tentative' as const } : {}),
        conference: wantsMeet ? { requestId: String(createRequest.requestId), pendingReads, ready: false, meetCode: code, failed: failingConferences > 0 } : null,
        grant: request.grant.id,
        sequence: 0,
      };
      if (wantsMeet && failingConferences > 0) failingConferences -= 1;
      events.set(id, event);
      return { status: 200, body: resource(event, false) };
    }
    const match = /^\/calendar\/v3\/calendars\/primary\/events\/([^/]+)$/.exec(request.path);
    if (match) {
      const event = events.get(decodeURIComponent(match[1]!));
      if (!event || event.grant !== request.grant.id) return notFound;
      if (request.method === 'GET') {
        if (event.status === 'cancelled') return { status: 200, body: { kind: 'calendar#event', etag: `"${event.sequence}"`, id: event.id, status: 'cancelled' } };
        return { status: 200, body: resource(event, true) };
      }
      if (request.method === 'DELETE') {
        if (event.status === 'cancelled') return googleError(410, 'GONE', 'deleted', 'Resource has been deleted');
        event.status = 'cancelled';
        event.sequence += 1;
        return { status: 204 };
      }
      if (request.method === 'PUT') {
        // events.update replaces the event; updating a deleted one restores it.
        if (!validTime(body.start) || !validTime(body.end)) return bad('Missing start or end time.');
        event.start = body.start;
        event.end = body.end;
        event.summary = typeof body.summary === 'string' ? body.summary : '';
        if (typeof body.description === 'string') event.description = body.description;
        else delete event.description;
        if (typeof body.location === 'string') event.location = body.location;
        event.status = body.status === 'tentative' || body.status === 'cancelled' ? body.status : 'confirmed';
        if (body.extendedProperties) event.extendedProperties = body.extendedProperties as GoogleEvent['extendedProperties'];
        event.sequence += 1;
        return { status: 200, body: resource(event, false) };
      }
      if (request.method === 'PATCH') {
        if (event.status === 'cancelled') return notFound;
        if (body.start !== undefined && !validTime(body.start)) return bad('Invalid start time.');
        if (body.end !== undefined && !validTime(body.end)) return bad('Invalid end time.');
        if (validTime(body.start)) event.start = body.start;
        if (validTime(body.end)) event.end = body.end;
        if (typeof body.summary === 'string') event.summary = body.summary;
        event.sequence += 1;
        return { status: 200, body: resource(event, false) };
      }
    }
    return notFound;
  };

  const provider = await startOAuthProvider(
    {
      clientId,
      clientSecret,
      clientAuthentication: 'post',
      rotateRefreshTokens: false,
      accessTokenSeconds: options.accessTokenSeconds ?? 3599,
      accountEmail: options.accountEmail ?? 'host@gmail.example',
      now: options.now,
      tokenType: 'Bearer',
      issuer: ISSUER,
      idToken: true,
      // Google's docs: an ID token's iss is `accounts.google.com` or `https://accounts.google.com`; the bare form here.
      idTokenIssuer: 'accounts.google.com',
      refreshTokenOnlyOffline: true,
      // The scopes the host left ticked on the consent screen (granular consent), `email` under its full name.
      answerScope: (granted) => granted.map((scope) => (scope === 'email' ? 'https://www.googleapis.com/auth/userinfo.email' : scope)).join(' '),
      invalidGrantDescription: 'Token has been expired or revoked.',
      // "Refresh token expiration": one not used for six months stops working.
      refreshTokenIdleDays: 183,
      unauthorizedBody: {
        error: {
          code: 401,
          message: 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
          errors: [{ message: 'Invalid Credentials', domain: 'global', reason: 'authError', location: 'Authorization', locationType: 'header' }],
          status: 'UNAUTHENTICATED',
        },
      },
      failureBody: (status) =>
        // Google answers its rate limits with 403 (or 429) `rateLimitExceeded`.
        status === 429 || status === 403
          ? { error: { code: status, message: 'Rate Limit Exceeded', errors: [{ domain: 'usageLimits', reason: 'rateLimitExceeded', message: 'Rate Limit Exceeded' }] } }
          : { error: { code: status, message: 'Backend Error', errors: [{ domain: 'global', reason: 'backendError', message: 'Backend Error' }] } },
    },
    { authorize: '/o/oauth2/v2/auth', token: '/token', revoke: '/revoke' },
    api,
  );
  return Object.assign(provider, {
    clientId,
    clientSecret,
    events,
    refuseNextApiCalls(count: number, why: GoogleRefusal) {
      refusals = { count, why };
    },
    failNextConferences(count: number) {
      failingConferences = count;
    },
    setPendingReads(count: number) {
      pendingReads = count;
    },
    addEvent(input: Parameters<FakeGoogle['addEvent']>[0]) {
      const event: GoogleEvent = { status: 'confirmed', grant: 1, attendees: [], ...input, conference: null, sequence: 0 };
      events.set(event.id, event);
      return event;
    },
    listAnswers,
    expireSyncTokens() {
      syncTokens.clear();
    },
    env: { GOOGLE_AUTHORIZE_URL: `${provider.baseUrl}/o/oauth2/v2/auth`, GOOGLE_TOKEN_URL: `${provider.baseUrl}/token`, GOOGLE_API_URL: provider.baseUrl },
  });
}
