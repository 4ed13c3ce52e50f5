import { createHash, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthProvider, TokenCall, TokenRefusal } from './oauth-provider.js';

/**
 * Microsoft played locally from its public docs: the identity platform's v2.0 endpoints
 * (learn.microsoft.com/entra/identity-platform/v2-oauth2-auth-code-flow) with the tenant in
 * the path, `/{tenant}/oauth2/v2.0/authorize` and `/{tenant}/oauth2/v2.0/token` (client secret
 * in the form body, PKCE S256, a refresh must name its `scope`, a new refresh token on every
 * refresh; errors as `{ error, error_description: "AADSTS…", error_codes, trace_id, … }`), and
 * the Microsoft Graph v1.0 parts termin uses: `GET /v1.0/me`, `POST /v1.0/me/events` (an
 * event with `isOnlineMeeting` gets a Teams `onlineMeeting.joinUrl`), `GET /v1.0/me/events`
 * filtered by a single-value extended property, `GET`/`PATCH`/`DELETE /v1.0/me/events/{id}`
 * (both reads answering only the properties `$select` names, and `id`), and
 * `calendarView/delta` (learn.microsoft.com/graph/delta-query-events): a first round over
 * `startDateTime`/`endDateTime`, paged by `Prefer: odata.maxpagesize` and `@odata.nextLink`
 * (`$skiptoken`), ending in an `@odata.deltaLink` (`$deltatoken`) that gives what changed in
 * that window since, a deleted event as `{ id, "@removed": { reason: "deleted" } }`; no
 * `$expand`/`$select`/`$top` (refused, as Graph does not support them there), and 410
 * `syncStateNotFound` for a delta token it no longer knows. Graph
 * errors as `{ error: { code, message } }` (401 InvalidAuthenticationToken, 404
 * ErrorItemNotFound). It is not a separate implementation of the OAuth parts of
 * oauth-provider.ts by whim: the tenant path, the error bodies and the refresh's `scope` are
 * what differ at Microsoft.
 *
 * Stricter than Microsoft on purpose: a rotated refresh token is refused from then on
 * (Microsoft keeps the old one valid a while, but documents that the new one replaces it), so
 * a client that keeps the old one is caught here rather than in production months later.
 *
 * `transactionId` no further than Graph documents it: "a custom identifier specified by a
 * client app for the server to avoid redundant POST operations in case of client retries to
 * create the same event", "only returned in a response payload if an app has set it". Graph
 * names no window and no rule for a request that differs, so here a POST repeating the same
 * request with the same `transactionId` within TRANSACTION_RETRY_MS answers 201 with the event
 * made first (as Graph is reported to), and any other POST, a changed one, a later one or one
 * after that event was deleted, makes an event of its own: a client cannot lean on it to find
 * a lost answer's event.
 */

/** How long a repeated create is taken as the client's retry: Graph names no window, so a short one. */
const TRANSACTION_RETRY_MS = 5 * 60_000;

/**
 * Refusals Graph documents, for `refuseNextApiCalls`: `scope`, 403 `Forbidden` "Missing scope
 * permissions on the request. API requires one of '…'" (the grant lacks a scope); `denied`, 403
 * `ErrorAccessDenied` "Access is denied. Check credentials and try again." (naming no scope);
 * `invalid`, 400 `ErrorInvalidRequest` (a request Graph will not take, whenever it is sent).
 */
export type GraphRefusal = 'scope' | 'denied' | 'invalid';

export interface GraphEvent {
  id: string;
  subject: string;
  start: { dateTime: string; timeZone: string };
  end: { dateTime: string; timeZone: string };
  attendees: unknown[];
  isOnlineMeeting: boolean;
  onlineMeetingProvider: string;
  onlineMeeting: { joinUrl: string; conferenceId: string | null } | null;
  transactionId: string | null;
  singleValueExtendedProperties: { id: string; value: string }[];
  /** The mailbox it is in. */
  mailbox: string;
  /** The calendar it is in (`primary`: the mailbox's default calendar). */
  calendarId?: string;
  /** Outlook's availability (`free`, `tentative`, `busy`, `oof`, `workingElsewhere`, `unknown`); `busy` when not set. */
  showAs?: string;
  isCancelled?: boolean;
  isAllDay?: boolean;
  responseStatus?: { response: string; time: string };
  body?: { contentType: string; content: string };
  location?: { displayName: string };
}

export interface FakeMicrosoft extends OAuthProvider {
  clientId: string;
  clientSecret: string;
  /** The tenant the app is registered in, by its domain; `common` and `organizations` reach it too. */
  tenantDomain: string;
  tenantId: string;
  /** The tenant named in the path of each authorize and token request, in order. */
  tenantsCalled: string[];
  /** The scopes of each authorization request and refresh. */
  scopesAsked: string[];
  /** Events that exist now, by id. */
  events: Map<string, GraphEvent>;
  /** The next `count` events get their Teams link only when read again (Teams is slow to attach it). */
  delayJoinUrls(count: number): void;
  /** The next `count` API calls are refused as Graph refuses them for `why`. */
  refuseNextApiCalls(count: number, why: GraphRefusal): void;
  /** Whether the mailbox may have Teams meetings; without (a personal account, no licence) Graph makes plain events. */
  setTeamsAvailable(available: boolean): void;
  /** The next `count` API calls (to `method` only, when given) are carried out, but their answers are lost. */
  dropNextApiAnswers(count: number, method?: string): void;
  /** Adds a calendar besides `primary` to the mailbox, under this id. */
  addCalendar(id: string): void;
  /** Adds an event as the host would in Outlook (times as instants; an all-day event's start and end as dates, the end exclusive). */
  addEvent(
    event: { id: string; subject: string; start: string; end: string } & Partial<
      Pick<GraphEvent, 'calendarId' | 'showAs' | 'isCancelled' | 'isAllDay' | 'responseStatus' | 'singleValueExtendedProperties' | 'transactionId'>
    >,
  ): GraphEvent;
  env: Record<string, string>;
  /** Each delta page answered: whether it followed a delta link (changes only), and the ids it gave. */
  deltaAnswers: { incremental: boolean; ids: string[] }[];
  /** Forgets every delta token issued (Graph's token cache is bounded): the next delta read gets 410. */
  expireDeltaTokens(): void;
}

/** A refresh token unused this long is refused: Microsoft's refresh tokens last 90 days of inactivity (each refresh issues a new one). */
const REFRESH_TOKEN_INACTIVE_MS = 90 * 86_400_000;

interface Grant {
  id: number;
  mailbox: string;
  revoked: boolean;
  /** Scopes asked for that the consent did not grant (an admin's consent for fewer permissions). */
  withheld: string[];
}

/**
 * The token endpoint's final refusals as the identity platform documents them ("Error codes for
 * token endpoint errors" in v2-oauth2-auth-code-flow, and the AADSTS reference): `interaction_required`
 * for multi-factor authentication or a conditional access policy (AADSTS50076), `consent_required`
 * (AADSTS65001), `invalid_client` for an app secret that expired (AADSTS7000222), `invalid_scope` (AADSTS70011).
 */
const AAD_REFUSALS: Readonly<Record<TokenRefusal, { status: number; code: number; message: (clientId: string) => string }>> = {
  interaction_required: {
    status: 400,
    code: 50076,
    message: () =>
      "Due to a configuration change made by your administrator, or because you moved to a new location, you must use multi-factor authentication to access '00000003-0000-0000-c000-000000000000'.",
  },
  consent_required: {
    status: 400,
    code: 65001,
    message: (clientId) =>
      `The user or administrator has not consented to use the application with ID '${clientId}' named 'termin'. Send an interactive authorization request for this user and resource.`,
  },
  invalid_client: {
    status: 401,
    code: 7000222,
    message: (clientId) => `The provided client secret keys for app '${clientId}' are expired. Visit the Azure portal to create new keys for your app.`,
  },
  invalid_scope: { status: 400, code: 70011, message: () => "The provided value for the input parameter 'scope' is not valid." },
};

export async function startFakeMicrosoft(options: { now: () => number; accountEmail?: string; accessTokenSeconds?: number }): Promise<FakeMicrosoft> {
  const clientId = randomUUID();
  const clientSecret = 'Xq8Q~microsoft.client-secret_value';
  const tenantDomain = 'contoso.onmicrosoft.com';
  const tenantId = '72f988bf-86f1-41af-91ab-2d7cd011db47';
  const mailbox = options.accountEmail ?? 'adele@contoso.onmicrosoft.com';
  const accessTokenSeconds = options.accessTokenSeconds ?? 3599;
  const codes = new Map<string, { redirectUri: string; challenge: string; grant: Grant; tenant: string; scope: string }>();
  const accessTokens = new Map<string, { grant: Grant; expiresAt: number }>();
  /** Each refresh token's grant and when it was issued: one unused for 90 days is refused ("Refresh token lifetime", AADSTS700082). */
  const refreshTokens = new Map<string, { grant: Grant; issuedAt: number }>();
  const grants: Grant[] = [];
  const events = new Map<string, GraphEvent>();
  const tokenCalls: TokenCall[] = [];
  const apiCalls: OAuthProvider['apiCalls'] = [];
  const issuedTokens: string[] = [];
  const tenantsCalled: string[] = [];
  const scopesAsked: string[] = [];
  let failures = { count: 0, status: 503 };
  let refusals: { count: number; why: GraphRefusal } = { count: 0, why: 'scope' };
  let drops = 0;
  /** Only answers to this method are dropped, when set. */
  let dropMethod: string | undefined;
  let slowJoinUrls = 0;
  let teamsAvailable = true;
  const pendingJoinUrls = new Map<string, GraphEvent['onlineMeeting']>();
  /** Each create with a transactionId: the request as sent, when, and the event it made. */
  const transactions = new Map<string, { request: string; at: number; eventId: string }>();
  const calendars = new Set(['primary']);
  let held: Promise<void> | null = null;
  let waiting = 0;
  let tokenOverride: { status: number; contentType: string; body: string } | null = null;
  let tokenRefusals: { count: number; error: TokenRefusal } = { count: 0, error: 'invalid_client' };
  let tokenThrottle = { count: 0, retryAfterSeconds: 0 };
  let withheldScopes: readonly string[] = [];

  const secretOf = (prefix: string, bytes: number) => {
    const value = `${prefix}${randomBytes(bytes).toString('base64url')}`;
    issuedTokens.push(value);
    return value;
  };
  const knownTenant = (tenant: string) => ['common', 'organizations', tenantDomain, tenantId].includes(tenant.toLowerCase());

  /** An AADSTS error as the token endpoint sends it. */
  const aadError = (res: http.ServerResponse, status: number, error: string, code: number, message: string) => {
    const traceId = randomUUID();
    const correlationId = randomUUID();
    const timestamp = new Date(options.now()).toISOString().replace('T', ' ').slice(0, 19);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store, no-cache' }).end(
      JSON.stringify({
        error,
        error_description: `AADSTS${code}: ${message} Trace ID: ${traceId} Correlation ID: ${correlationId} Timestamp: ${timestamp}Z`,
        error_codes: [code],
        timestamp: `${timestamp}Z`,
        trace_id: traceId,
        correlation_id: correlationId,
        error_uri: `https://login.microsoftonline.com/error?code=${code}`,
      }),
    );
  };
  const graphError = (status: number, code: string, message: string) => ({
    status,
    body: { error: { code, message, innerError: { date: new Date(options.now()).toISOString(), 'request-id': randomUUID(), 'client-request-id': randomUUID() } } },
  });

  const issue = (grant: Grant, scope: string, tenant: string) => {
    const access = secretOf('eyJ0eXAiOiJKV1QiLCJub25jZSI6', 48);
    accessTokens.set(access, { grant, expiresAt: options.now() + accessTokenSeconds * 1000 });
    const refresh = secretOf('0.AXkA', 64);
    refreshTokens.set(refresh, { grant, issuedAt: options.now() });
    // The scopes consented to, without offline_access and the OpenID ones, which the answer does not list.
    const granted = scope.split(' ').filter((s) => s !== 'offline_access' && s !== 'openid' && s !== 'email' && !grant.withheld.some((w) => w.toLowerCase() === s.toLowerCase()));
    const body: Record<string, unknown> = {
      token_type: 'Bearer',
      scope: granted.join(' '),
      expires_in: accessTokenSeconds,
      ext_expires_in: accessTokenSeconds,
      access_token: access,
    };
    if (scope.split(' ').includes('offline_access')) body.refresh_token = refresh;
    // With `openid`, an ID token whose issuer is the user's own tenant, whatever tenant the request named.
    if (scope.split(' ').includes('openid')) {
      const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const now = Math.floor(options.now() / 1000);
      body.id_token = `${part({ typ: 'JWT', alg: 'RS256', kid: 'fake' })}.${part({ aud: clientId, iss: `https://login.microsoftonline.com/${tenantId}/v2.0`, iat: now, nbf: now, exp: now + 3600, sub: `sub-${grant.id}`, tid: tenantId, ver: '2.0', email: grant.mailbox, requested: tenant })}.c2lnbmF0dXJl`;
    }
    return body;
  };

  const eventOut = (event: GraphEvent, expanded: readonly string[] = [], select: string | null = null) => {
    const { mailbox: _mailbox, singleValueExtendedProperties: properties, calendarId: _calendarId, transactionId, ...rest } = event;
    const shown = properties.filter((property) => expanded.includes(property.id));
    const whole: Record<string, unknown> = {
      '@odata.etag': 'W/"DwAAABYAAAA="',
      showAs: 'busy',
      isCancelled: false,
      isAllDay: false,
      iCalUId: `040000008200E00074C5B7101A82E008${createHash('sha256').update(event.id).digest('hex').slice(0, 40).toUpperCase()}`,
      ...rest,
      ...(transactionId === null ? {} : { transactionId }),
      ...(shown.length > 0 ? { singleValueExtendedProperties: shown } : {}),
      webLink: `https://outlook.office365.com/owa/?itemid=${encodeURIComponent(event.id)}`,
    };
    if (select === null) return whole;
    // `$select`: the properties named, and the id and etag Graph always gives.
    const wanted = new Set(['@odata.etag', 'id', 'singleValueExtendedProperties', ...select.split(',').map((name) => name.trim())]);
    return Object.fromEntries(Object.entries(whole).filter(([name]) => wanted.has(name)));
  };
  /** `/v1.0/me/events` or `/v1.0/me/calendars/{id}/events` (and `calendarView`): the calendar and the collection; null for any other path. */
  const collectionOf = (pathname: string): { calendarId: string; collection: 'events' | 'calendarView' } | null => {
    const match = /^\/v1\.0\/me(?:\/calendars\/([^/]+))?\/(events|calendarView)$/.exec(pathname);
    return match ? { calendarId: match[1] === undefined ? 'primary' : decodeURIComponent(match[1]), collection: match[2] as 'events' | 'calendarView' } : null;
  };
  /** A UTC Graph dateTime as epoch ms (the fake keeps every event in UTC). */
  const instantOf = (time: { dateTime: string }) => Date.parse(`${time.dateTime.slice(0, 19)}Z`);
  /**
   * calendarView as Graph pages it: occurrences overlapping [startDateTime, endDateTime) by
   * start, `$top` a page (at most 1000, default 10), then `@odata.nextLink` with `$skip`;
   * extended properties only those named in `$expand=singleValueExtendedProperties($filter=id eq '…' or id eq '…')`.
   */
  const calendarView = (url: URL, calendarId: string, grant: Grant): { status: number; body?: unknown } => {
    const from = Date.parse(url.searchParams.get('startDateTime') ?? '');
    const to = Date.parse(url.searchParams.get('endDateTime') ?? '');
    if (Number.isNaN(from) || Number.isNaN(to))
      return graphError(400, 'ErrorInvalidParameter', "This request requires a time window specified by the query string parameters 'startDateTime' and 'endDateTime'.");
    const top = Math.min(Number(url.searchParams.get('$top') ?? 10) || 10, 1000);
    const skip = Number(url.searchParams.get('$skip') ?? 0) || 0;
    const expand = url.searchParams.get('$expand') ?? '';
    const expanded = [...expand.matchAll(/id eq '([^']+)'/g)].map((match) => match[1]!);
    const inView = [...events.values()]
      .filter((event) => event.mailbox === grant.mailbox && (event.calendarId ?? 'primary') === calendarId)
      .filter((event) => instantOf(event.end) > from && instantOf(event.start) < to)
      .sort((a, b) => instantOf(a.start) - instantOf(b.start) || a.id.localeCompare(b.id));
    const page = inView.slice(skip, skip + top);
    const body: Record<string, unknown> = {
      '@odata.context': "https://graph.microsoft.com/v1.0/$metadata#users('me')/calendarView",
      value: page.map((event) => eventOut(event, expanded)),
    };
    if (skip + top < inView.length) {
      const next = new URL(url.pathname + url.search, 'https://graph.microsoft.com');
      next.searchParams.set('$skip', String(skip + top));
      body['@odata.nextLink'] = next.href;
    }
    return { status: 200, body };
  };
  /** Delta tokens issued: the window and calendar of their round, and its events as they were then (JSON by id). */
  const deltaTokens = new Map<string, { mailbox: string; calendarId: string; from: number; to: number; snapshot: Map<string, string> }>();
  /** Rounds being paged: their items, and the token their last page hands out. */
  const deltaRounds = new Map<string, { items: unknown[]; size: number; token: string; incremental: boolean }>();
  const deltaAnswers: FakeMicrosoft['deltaAnswers'] = [];
  const deltaPage = (pathname: string, roundId: string, offset: number): { status: number; body?: unknown } => {
    const round = deltaRounds.get(roundId);
    if (!round) return graphError(410, 'syncStateNotFound', 'The sync state generation is not found. The delta token is expired and data must be synchronized again.');
    const items = round.items.slice(offset, offset + round.size);
    deltaAnswers.push({ incremental: round.incremental, ids: items.map((item) => String((item as { id: string }).id)) });
    const body: Record<string, unknown> = { '@odata.context': 'https://graph.microsoft.com/v1.0/$metadata#Collection(event)', value: items };
    if (offset + round.size < round.items.length) body['@odata.nextLink'] = `https://graph.microsoft.com${pathname}?$skiptoken=${roundId}.${offset + round.size}`;
    else {
      deltaRounds.delete(roundId);
      body['@odata.deltaLink'] = `https://graph.microsoft.com${pathname}?$deltatoken=${round.token}`;
    }
    return { status: 200, body };
  };
  const calendarViewDelta = (url: URL, calendarId: string, grant: Grant, prefer: string): { status: number; body?: unknown } => {
    const q = url.searchParams;
    for (const refused of ['$expand', '$select', '$top', '$filter', '$orderby']) {
      if (q.has(refused))
        return graphError(400, 'ErrorInvalidUrlQuery', `The following parameters are not supported with change tracking over the 'CalendarView' resource: '${refused}'.`);
    }
    const skip = q.get('$skiptoken');
    if (skip !== null) {
      const [roundId, offset] = skip.split('.');
      return deltaPage(url.pathname, roundId ?? '', Number(offset) || 0);
    }
    const size = Math.min(Number(/odata\.maxpagesize=(\d+)/.exec(prefer)?.[1] ?? 10) || 10, 1000);
    const inWindow = (from: number, to: number) =>
      new Map(
        [...events.values()]
          .filter((event) => event.mailbox === grant.mailbox && (event.calendarId ?? 'primary') === calendarId)
          .filter((event) => instantOf(event.end) > from && instantOf(event.start) < to)
          .sort((a, b) => instantOf(a.start) - instantOf(b.start) || a.id.localeCompare(b.id))
          .map((event) => [event.id, JSON.stringify(eventOut(event))]),
      );
    const deltaToken = q.get('$deltatoken');
    let window: { from: number; to: number };
    let items: unknown[];
    if (deltaToken !== null) {
      const since = deltaTokens.get(deltaToken);
      if (!since || since.mailbox !== grant.mailbox || since.calendarId !== calendarId)
        return graphError(410, 'syncStateNotFound', 'The sync state generation is not found. The delta token is expired and data must be synchronized again.');
      window = since;
      const now = inWindow(since.from, since.to);
      items = [
        ...[...now].filter(([id, json]) => since.snapshot.get(id) !== json).map(([, json]) => JSON.parse(json) as unknown),
        ...[...since.snapshot.keys()].filter((id) => !now.has(id)).map((id) => ({ '@odata.type': '#microsoft.graph.event', id, '@removed': { reason: 'deleted' } })),
      ];
    } else {
      window = { from: Date.parse(q.get('startDateTime') ?? ''), to: Date.parse(q.get('endDateTime') ?? '') };
      if (Number.isNaN(window.from) || Number.isNaN(window.to))
        return graphError(400, 'ErrorInvalidParameter', "This request requires a time window specified by the query string parameters 'startDateTime' and 'endDateTime'.");
      items = [...inWindow(window.from, window.to).values()].map((json) => JSON.parse(json) as unknown);
    }
    const token = randomBytes(18).toString('base64url');
    deltaTokens.set(token, { mailbox: grant.mailbox, calendarId, ...window, snapshot: inWindow(window.from, window.to) });
    const roundId = randomBytes(9).toString('base64url');
    deltaRounds.set(roundId, { items, size, token, incremental: deltaToken !== null });
    return deltaPage(url.pathname, roundId, 0);
  };
  const validTimes = (value: unknown) => {
    const time = value as { dateTime?: unknown; timeZone?: unknown } | undefined;
    return typeof time?.dateTime === 'string' && typeof time.timeZone === 'string' && !Number.isNaN(Date.parse(`${time.dateTime}Z`));
  };

  const graph = (method: string, url: URL, body: Record<string, unknown>, grant: Grant, prefer: string): { status: number; body?: unknown } => {
    const delta = /^\/v1\.0\/me(?:\/calendars\/([^/]+))?\/calendarView\/delta$/.exec(url.pathname);
    if (delta && method === 'GET') {
      const calendarId = delta[1] === undefined ? 'primary' : decodeURIComponent(delta[1]);
      if (!calendars.has(calendarId)) return graphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
      return calendarViewDelta(url, calendarId, grant, prefer);
    }
    if (method === 'GET' && url.pathname === '/v1.0/me') {
      return {
        status: 200,
        body: {
          '@odata.context': 'https://graph.microsoft.com/v1.0/$metadata#users/$entity',
          id: `user-${grant.id}`,
          displayName: 'Adele Vance',
          mail: grant.mailbox,
          userPrincipalName: grant.mailbox,
        },
      };
    }
    const collection = collectionOf(url.pathname);
    if (collection && !calendars.has(collection.calendarId)) return graphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
    if (collection?.collection === 'calendarView' && method === 'GET') return calendarView(url, collection.calendarId, grant);
    if (collection?.collection === 'events' && method === 'POST') {
      if (typeof body.subject !== 'string' || !validTimes(body.start) || !validTimes(body.end))
        return graphError(400, 'ErrorInvalidRequest', 'Your request can\u2019t be completed. start and end are required.');
      const transaction = typeof body.transactionId === 'string' ? transactions.get(`${grant.mailbox} ${body.transactionId}`) : undefined;
      const earlier = transaction && events.get(transaction.eventId);
      if (transaction && earlier && transaction.request === JSON.stringify(body) && options.now() - transaction.at <= TRANSACTION_RETRY_MS) {
        return { status: 201, body: eventOut(earlier) };
      }
      const id = `AAMkAGI2TG93AAA${randomBytes(24).toString('base64url')}=`;
      if (typeof body.transactionId === 'string') transactions.set(`${grant.mailbox} ${body.transactionId}`, { request: JSON.stringify(body), at: options.now(), eventId: id });
      const online = teamsAvailable && body.isOnlineMeeting === true && body.onlineMeetingProvider === 'teamsForBusiness';
      const meeting = online
        ? {
            joinUrl: `https://teams.microsoft.com/l/meetup-join/19%3ameeting_${randomBytes(12).toString('hex')}%40thread.v2/0?context=%7b%22Tid%22%3a%22${tenantId}%22%7d`,
            conferenceId: null,
          }
        : null;
      const event: GraphEvent = {
        id,
        subject: body.subject,
        start: body.start as GraphEvent['start'],
        end: body.end as GraphEvent['end'],
        attendees: Array.isArray(body.attendees) ? body.attendees : [],
        isOnlineMeeting: online,
        onlineMeetingProvider: online ? 'teamsForBusiness' : 'unknown',
        onlineMeeting: meeting,
        transactionId: typeof body.transactionId === 'string' ? body.transactionId : null,
        singleValueExtendedProperties: Array.isArray(body.singleValueExtendedProperties) ? (body.singleValueExtendedProperties as GraphEvent['singleValueExtendedProperties']) : [],
        mailbox: grant.mailbox,
        calendarId: collection.calendarId,
        ...(typeof body.showAs === 'string' ? { showAs: body.showAs } : {}),
        ...(typeof body.body === 'object' && body.body !== null ? { body: body.body as GraphEvent['body'] } : {}),
        ...(typeof body.location === 'object' && body.location !== null ? { location: body.location as GraphEvent['location'] } : {}),
      };
      if (online && slowJoinUrls > 0) {
        slowJoinUrls -= 1;
        pendingJoinUrls.set(id, meeting);
        event.onlineMeeting = null;
      }
      events.set(id, event);
      return { status: 201, body: eventOut(event) };
    }
    if (collection?.collection === 'events' && method === 'GET') {
      const filter = url.searchParams.get('$filter');
      // `/me/events` is the default calendar's; `/me/calendars/{id}/events` that calendar's.
      const mine = [...events.values()].filter((event) => event.mailbox === grant.mailbox && (event.calendarId ?? 'primary') === collection.calendarId);
      const select = url.searchParams.get('$select');
      if (filter === null) return { status: 200, body: { value: mine.map((event) => eventOut(event, [], select)) } };
      const match = /^singleValueExtendedProperties\/any\(ep: ep\/id eq '([^']+)' and ep\/value eq '([^']*)'\)$/i.exec(filter);
      // Graph cannot filter events on transactionId, nor on anything termin does not ask for here.
      if (!match) return graphError(400, 'ErrorInvalidUrlQueryFilter', 'The query filter contains one or more invalid nodes.');
      const [, propertyId, value] = match;
      return {
        status: 200,
        body: {
          value: mine
            .filter((event) => event.singleValueExtendedProperties.some((p) => p.id === propertyId && p.value.toLowerCase() === value!.toLowerCase()))
            .map((event) => eventOut(event, [], select)),
        },
      };
    }
    const one = /^\/v1\.0\/me\/events\/([^/]+)$/.exec(url.pathname);
    if (one) {
      const event = events.get(decodeURIComponent(one[1]!));
      if (!event || event.mailbox !== grant.mailbox) return graphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
      if (method === 'GET') {
        const later = pendingJoinUrls.get(event.id);
        if (later !== undefined) {
          pendingJoinUrls.delete(event.id);
          event.onlineMeeting = later;
        }
        return { status: 200, body: eventOut(event, [], url.searchParams.get('$select')) };
      }
      if (method === 'DELETE') {
        events.delete(event.id);
        return { status: 204 };
      }
      if (method === 'PATCH') {
        if ((body.start !== undefined && !validTimes(body.start)) || (body.end !== undefined && !validTimes(body.end)))
          return graphError(400, 'ErrorInvalidRequest', 'Invalid start or end.');
        if (body.start !== undefined) event.start = body.start as GraphEvent['start'];
        if (body.end !== undefined) event.end = body.end as GraphEvent['end'];
        if (typeof body.subject === 'string') event.subject = body.subject;
        if (typeof body.showAs === 'string') event.showAs = body.showAs;
        if (typeof body.body === 'object' && body.body !== null) event.body = body.body as GraphEvent['body'];
        if (typeof body.location === 'object' && body.location !== null) event.location = body.location as GraphEvent['location'];
        return { status: 200, body: eventOut(event) };
      }
    }
    return graphError(400, 'BadRequest', `Resource not found for the segment '${url.pathname.split('/').pop()}'.`);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://localhost');
        const raw = Buffer.concat(chunks).toString('utf8');
        const oauthPath = /^\/([^/]+)\/oauth2\/v2\.0\/(authorize|token)$/.exec(url.pathname);
        if (oauthPath) {
          const tenant = decodeURIComponent(oauthPath[1]!);
          tenantsCalled.push(tenant);
          if (oauthPath[2] === 'authorize' && req.method === 'GET') {
            const q = url.searchParams;
            // Microsoft shows its own error page (no redirect) for an unknown tenant or app.
            if (!knownTenant(tenant)) return void res.writeHead(400, { 'content-type': 'text/html' }).end(`<html>AADSTS90002: Tenant '${tenant}' not found.</html>`);
            if (q.get('client_id') !== clientId)
              return void res.writeHead(400, { 'content-type': 'text/html' }).end('<html>AADSTS700016: Application not found in the directory.</html>');
            if (q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge') || !q.get('redirect_uri') || !q.get('scope')) {
              return void res.writeHead(400, { 'content-type': 'text/html' }).end('<html>AADSTS900144: The request body must contain a required parameter.</html>');
            }
            scopesAsked.push(q.get('scope')!);
            const grant: Grant = { id: grants.length + 1, mailbox, revoked: false, withheld: [...withheldScopes] };
            grants.push(grant);
            const code = `1.AXkA${randomBytes(32).toString('base64url')}`;
            codes.set(code, { redirectUri: q.get('redirect_uri')!, challenge: q.get('code_challenge')!, grant, tenant, scope: q.get('scope')! });
            const back = new URL(q.get('redirect_uri')!);
            back.searchParams.set('code', code);
            back.searchParams.set('state', q.get('state') ?? '');
            back.searchParams.set('session_state', randomUUID());
            return void res.writeHead(302, { location: back.href }).end();
          }
          if (oauthPath[2] === 'token' && req.method === 'POST') {
            const form = new URLSearchParams(raw);
            const grantType = form.get('grant_type') ?? '';
            const record = (ok: boolean) => tokenCalls.push({ grantType, ok });
            if (tokenOverride) {
              record(false);
              return void res.writeHead(tokenOverride.status, { 'content-type': tokenOverride.contentType }).end(tokenOverride.body);
            }
            if (tokenThrottle.count > 0) {
              tokenThrottle = { ...tokenThrottle, count: tokenThrottle.count - 1 };
              record(false);
              return void res
                .writeHead(429, { 'content-type': 'application/json; charset=utf-8', 'retry-after': String(tokenThrottle.retryAfterSeconds) })
                .end(JSON.stringify({ error: 'temporarily_unavailable', error_description: 'Too many requests. Try again after the time Retry-After names.' }));
            }
            if (tokenRefusals.count > 0) {
              tokenRefusals = { ...tokenRefusals, count: tokenRefusals.count - 1 };
              record(false);
              const refusal = AAD_REFUSALS[tokenRefusals.error];
              return aadError(res, refusal.status, tokenRefusals.error, refusal.code, refusal.message(clientId));
            }
            if (!knownTenant(tenant)) {
              record(false);
              return aadError(res, 400, 'invalid_request', 90002, `Tenant '${tenant}' not found.`);
            }
            if (form.get('client_id') !== clientId) {
              record(false);
              return aadError(res, 400, 'unauthorized_client', 700016, `Application with identifier '${form.get('client_id')}' was not found in the directory.`);
            }
            if (form.get('client_secret') !== clientSecret) {
              record(false);
              return aadError(
                res,
                401,
                'invalid_client',
                7000215,
                'Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID.',
              );
            }
            if (grantType === 'authorization_code') {
              const given = form.get('code') ?? '';
              const code = codes.get(given);
              codes.delete(given);
              if (!code || code.grant.revoked || code.tenant !== tenant) {
                record(false);
                return aadError(res, 400, 'invalid_grant', 70008, 'The provided authorization code or refresh token has expired due to inactivity.');
              }
              if (code.redirectUri !== form.get('redirect_uri')) {
                record(false);
                return aadError(res, 400, 'invalid_grant', 50148, 'The redirect_uri does not match the one of the authorization request.');
              }
              if (
                createHash('sha256')
                  .update(form.get('code_verifier') ?? '')
                  .digest('base64url') !== code.challenge
              ) {
                record(false);
                return aadError(res, 400, 'invalid_grant', 501481, 'The Code_Verifier does not match the code_challenge supplied in the authorization request.');
              }
              record(true);
              return void res
                .writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store, no-cache' })
                .end(JSON.stringify(issue(code.grant, code.scope, tenant)));
            }
            if (grantType === 'refresh_token') {
              if (held) {
                waiting += 1;
                await held;
                waiting -= 1;
              }
              const scope = form.get('scope');
              if (!scope) {
                record(false);
                return aadError(res, 400, 'invalid_request', 900144, "The request body must contain the following parameter: 'scope'.");
              }
              scopesAsked.push(scope);
              const given = form.get('refresh_token') ?? '';
              const known = refreshTokens.get(given);
              if (known && !known.grant.revoked && options.now() - known.issuedAt > REFRESH_TOKEN_INACTIVE_MS) {
                record(false);
                const issued = new Date(known.issuedAt).toISOString();
                return aadError(
                  res,
                  400,
                  'invalid_grant',
                  700082,
                  `The refresh token has expired due to inactivity. The token was issued on ${issued} and was inactive for 90.00:00:00.`,
                );
              }
              const grant = known?.grant;
              if (!grant || grant.revoked) {
                record(false);
                return aadError(res, 400, 'invalid_grant', 50173, 'The provided grant has expired due to it being revoked, a fresh auth token is needed.');
              }
              refreshTokens.delete(given);
              record(true);
              return void res
                .writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store, no-cache' })
                .end(JSON.stringify(issue(grant, scope, tenant)));
            }
            record(false);
            return aadError(res, 400, 'unsupported_grant_type', 70003, `The app requested an unsupported grant type '${grantType}'.`);
          }
        }
        let body: unknown;
        try {
          body = raw === '' ? undefined : JSON.parse(raw);
        } catch {
          body = raw;
        }
        apiCalls.push({ method: req.method ?? 'GET', path: url.pathname + url.search, body });
        const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
        const access = accessTokens.get(bearer);
        if (!access || access.grant.revoked || access.expiresAt <= options.now()) {
          const reply = graphError(401, 'InvalidAuthenticationToken', access ? 'Lifetime validation failed, the token is expired.' : 'IDX14100: JWT is not well formed.');
          return void res
            .writeHead(401, {
              'content-type': 'application/json',
              'www-authenticate': 'Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize"',
            })
            .end(JSON.stringify(reply.body));
        }
        if (failures.count > 0) {
          failures = { ...failures, count: failures.count - 1 };
          const reply = graphError(failures.status, 'ServiceNotAvailable', 'The service is temporarily unavailable.');
          return void res.writeHead(failures.status, { 'content-type': 'application/json', 'retry-after': '1' }).end(JSON.stringify(reply.body));
        }
        if (refusals.count > 0) {
          refusals = { ...refusals, count: refusals.count - 1 };
          const refusal =
            refusals.why === 'scope'
              ? graphError(403, 'Forbidden', "Missing scope permissions on the request. API requires one of 'Calendars.ReadWrite'. Scopes on the request 'User.Read'")
              : refusals.why === 'denied'
                ? graphError(403, 'ErrorAccessDenied', 'Access is denied. Check credentials and try again.')
                : graphError(400, 'ErrorInvalidRequest', 'Your request can\u2019t be completed.');
          return void res.writeHead(refusal.status, { 'content-type': 'application/json' }).end(JSON.stringify(refusal.body));
        }
        const reply = graph(
          req.method ?? 'GET',
          url,
          (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>,
          access.grant,
          String(req.headers.prefer ?? ''),
        );
        if (drops > 0 && (dropMethod === undefined || dropMethod === req.method)) {
          drops -= 1;
          res.socket?.destroy();
          return;
        }
        if (reply.body === undefined) res.writeHead(reply.status).end();
        else
          res
            .writeHead(reply.status, { 'content-type': 'application/json;odata.metadata=minimal;odata.streaming=true;IEEE754Compatible=false;charset=utf-8' })
            .end(JSON.stringify(reply.body));
      })().catch((error: unknown) => res.writeHead(500).end(String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    clientId,
    clientSecret,
    tenantDomain,
    tenantId,
    tenantsCalled,
    scopesAsked,
    events,
    tokenCalls,
    apiCalls,
    issuedTokens,
    // Microsoft offers no revocation endpoint: nothing ever arrives here.
    revocations: [],
    env: {
      MICROSOFT_AUTHORIZE_URL: `${baseUrl}/{tenant}/oauth2/v2.0/authorize`,
      MICROSOFT_TOKEN_URL: `${baseUrl}/{tenant}/oauth2/v2.0/token`,
      MICROSOFT_GRAPH_URL: baseUrl,
    },
    deltaAnswers,
    expireDeltaTokens() {
      deltaTokens.clear();
    },
    delayJoinUrls(count) {
      slowJoinUrls = count;
    },
    setTeamsAvailable(available) {
      teamsAvailable = available;
    },
    refuseNextApiCalls(count, why) {
      refusals = { count, why };
    },
    addCalendar(id) {
      calendars.add(id);
    },
    addEvent(added) {
      const time = (iso: string) => ({ dateTime: `${added.isAllDay ? `${iso.slice(0, 10)}T00:00:00` : new Date(iso).toISOString().slice(0, 19)}.0000000`, timeZone: 'UTC' });
      const event: GraphEvent = {
        attendees: [],
        isOnlineMeeting: false,
        onlineMeetingProvider: 'unknown',
        onlineMeeting: null,
        transactionId: null,
        singleValueExtendedProperties: [],
        mailbox,
        ...added,
        start: time(added.start),
        end: time(added.end),
      };
      events.set(event.id, event);
      return event;
    },
    answerTokenEndpointWith(raw) {
      tokenOverride = raw;
    },
    refuseNextTokenCalls(count, error) {
      tokenRefusals = { count, error };
    },
    throttleNextTokenCalls(count, retryAfterSeconds) {
      tokenThrottle = { count, retryAfterSeconds };
    },
    withholdScopes(scopes) {
      withheldScopes = [...scopes];
    },
    revokeAllGrants() {
      for (const grant of grants) grant.revoked = true;
    },
    expireAccessTokens() {
      for (const record of accessTokens.values()) record.expiresAt = 0;
    },
    failNextApiCalls(count, status) {
      failures = { count, status };
    },
    dropNextApiAnswers(count, method) {
      drops = count;
      dropMethod = method;
    },
    holdRefreshes() {
      let release = (): void => undefined;
      held = new Promise<void>((resolve) => {
        release = () => {
          held = null;
          resolve();
        };
      });
      return {
        get waiting() {
          return waiting;
        },
        release,
      };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
