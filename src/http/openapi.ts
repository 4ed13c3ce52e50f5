import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { API_KEY_SECURITY } from './schemas/common.js';

/**
 * What the OpenAPI document says beyond each route's own schema, decided in one place so
 * every route gets it, including routes added later:
 *
 * - an `operationId` derived from method and path (`listTeams`, `createTeamMember`,
 *   `scheduleMeetings`) unless the route sets `schema.operationId`; two routes deriving the
 *   same id stop the start-up with a message saying which (set one explicitly);
 * - declared tags with descriptions;
 * - response headers: `X-Request-Id` on every response, `Retry-After` on 429 and 503,
 *   `WWW-Authenticate` on 401, the
 *   rate-limit headers on API responses, `Location` on 201s of resources that have a URL,
 *   `Idempotent-Replayed` on the 2xx of operations that take an `Idempotency-Key`;
 * - problem responses as `application/problem+json`, whatever helper the route used;
 * - a request body marked optional when the route says `config: { bodyOptional: true }`
 *   (an absent body is then taken as `{}` before validation);
 * - an API key (either header) on every route of the authenticated scope that declares no
 *   security (`documentApiKeySecurity`), and `security: []` (public) on any other that declares none;
 * - 500 and 503 (with `Retry-After`) on every API operation: any of them may meet a fault or
 *   a database out of reach, or arrive while the instance shuts down;
 * - the request body of routes that read it raw (`config: { documentedBody }`);
 * - only the API under the prefix: pages, scripts and probes are hidden from the document.
 *
 * The same catalogue of routes answers two runtime questions: which methods a path allows
 * (405 with `Allow` instead of 404), and where a created resource lives (`Location`).
 */

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The body may be left out; it is then validated (and handled) as `{}`. */
    bodyOptional?: boolean;
    /**
     * Where a 201's resource lives, as a path template filled from the response body
     * (`{uuid}`, `{meetings.0.uuid}`) and the request's path parameters. Without it, a POST
     * to `/x` whose API also has a route `/x/:param` answers `Location: /x/{body.uuid}`.
     * `false`: no Location.
     */
    location?: string | false;
    /**
     * The OpenAPI `requestBody` of a route that reads its body raw (no `schema.body`, so
     * nothing validates it here): what the document shows senders, e.g. a gateway's notification.
     */
    documentedBody?: Record<string, unknown>;
  }
}

/** Every tag the document may use, with what it groups. Add a tag here when a route introduces one. */
export const TAGS: readonly { name: string; description: string }[] = [
  { name: 'Account', description: "The caller's account: enabled meeting places and payment gateways." },
  { name: 'API keys', description: "The caller's own API keys: create (shown once), list, revoke." },
  { name: 'Audit log', description: 'Who changed what in the account, newest first: read only, kept at least 400 days.' },
  { name: 'Availability', description: "A host's weekly hours and date overrides, in the host's own time zone." },
  { name: 'Booking page', description: 'Public booking pages (HTML) a participant books through without a key, and the script that embeds them.' },
  { name: 'Calendars', description: "External calendars whose busy time blocks a host's slots, and the host's private meetings feed." },
  {
    name: 'Connections',
    description:
      "A host's OAuth connections to Zoom, Google, Microsoft and Webex: each meeting at the provider's place gets its own room (its link is the meeting's location), made from the background after the meeting is confirmed. How to register each provider's app, its redirect URI and scopes: /docs/integrations.",
  },
  { name: 'Discount codes', description: 'Codes that lower the price of a paid booking.' },
  { name: 'Meeting topics', description: 'What can be booked: duration, slot grid, buffers, notice, places, prices and hosts.' },
  { name: 'Meetings', description: 'Booked meetings: list, read, cancel, reschedule.' },
  { name: 'Operations', description: 'Probes and metrics for load balancers and monitoring.' },
  { name: 'Pages', description: "Pages for a participant's browser: payment, return from the gateway, managing a booking." },
  {
    name: "Participants' data",
    description: "What the account keeps about a participant, and forgetting them: export, erasure (the account's `retention` erases old meetings' data by itself).",
  },
  { name: 'Payments', description: 'Payments of paid bookings and the notifications payment gateways send.' },
  { name: 'Scheduling', description: 'Free slots and bookings: the two calls a booking flow makes.' },
  { name: 'Teams', description: "Teams and their members, with admin rights and the plan's user limit." },
  { name: 'Webhooks', description: "Signed deliveries of events (Standard Webhooks) to the integrator's backend." },
];

const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

interface CatalogRoute {
  method: string;
  /** Fastify's pattern: `/api/v1/teams/:teamUuid/users`. */
  url: string;
  pattern: RegExp;
  location: string | false | undefined;
  bodyOptional: boolean;
}

export interface RouteCatalog {
  /** Methods some route answers at this concrete path (HEAD with GET), for `Allow`. */
  allowedMethods(path: string): string[];
  /**
   * The pattern of the route this concrete path matches (`/api/v1/teams/:teamUuid`), the
   * most literal one when several do, or null: what a 405 is labelled by in the metrics.
   */
  routeOf(path: string): string | null;
  /** The Location of a 201 from this route, or null. */
  locationOf(request: FastifyRequest, body: unknown): string | null;
  /** @fastify/swagger's `transformObject`: the document-wide rules above. */
  transformDocument(document: Record<string, unknown>): Record<string, unknown>;
}

export interface OpenApiOptions {
  /** `/api/v1`: operation ids leave it out; rate-limit headers are documented under it. */
  apiPrefix: string;
  /** Whether API responses carry the rate-limit headers. */
  rateLimited: boolean;
}

/**
 * Registers the hooks (call it before any route is registered) and returns the catalogue.
 * `registerOpenApiConventions(app, { apiPrefix: '/api/v1', rateLimited: true })`.
 */
export function registerOpenApiConventions(app: FastifyInstance, options: OpenApiOptions): RouteCatalog {
  const routes: CatalogRoute[] = [];
  const operationIds = new Map<string, string>();
  const bodyOptional = new Set<string>();
  const documentedBodies = new Map<string, Record<string, unknown>>();
  const locationCache = new Map<string, string | null>();

  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((m) => m.toUpperCase());
    const url = route.url;
    if (url === undefined || url.includes('*')) return;
    for (const method of methods) {
      routes.push({ method, url, pattern: patternOf(url), location: route.config?.location, bodyOptional: route.config?.bodyOptional === true });
    }
    if (route.config?.documentedBody) documentedBodies.set(`${methods[0]} ${toOpenApiPath(url)}`, route.config.documentedBody);
    if (route.config?.bodyOptional) {
      bodyOptional.add(`${methods[0]} ${toOpenApiPath(url)}`);
      const existing = route.preValidation === undefined ? [] : Array.isArray(route.preValidation) ? route.preValidation : [route.preValidation];
      route.preValidation = [
        async (request: FastifyRequest) => {
          request.body ??= {};
        },
        ...existing,
      ] as RouteOptions['preValidation'];
    }
    // The document is the JSON API's: pages, scripts and probes outside it are for browsers and
    // load balancers (README, "Operating"), and SDK generators should not make methods of them.
    if (!url.startsWith(`${options.apiPrefix}/`) && route.schema && !route.schema.hide) route.schema = { ...route.schema, hide: true };
    if (methods.length !== 1 || methods[0] === 'HEAD' || route.schema?.hide) return;
    const method = methods[0]!;
    const operationId = route.schema?.operationId ?? deriveOperationId(method, url, options.apiPrefix);
    const where = `${method} ${url}`;
    const taken = operationIds.get(operationId);
    if (taken !== undefined && taken !== where) {
      throw new Error(`operationId "${operationId}" of ${where} is already used by ${taken}: set schema.operationId on one of them`);
    }
    operationIds.set(operationId, where);
    route.schema = { ...(route.schema ?? {}), operationId };
  });

  const findRoute = (method: string, url: string) => routes.find((r) => r.method === method && r.url === url);

  function locationTemplate(method: string, url: string): string | null {
    const key = `${method} ${url}`;
    if (locationCache.has(key)) return locationCache.get(key)!;
    const route = findRoute(method, url);
    let template: string | null = null;
    if (route?.location === false) template = null;
    else if (typeof route?.location === 'string') template = route.location;
    else if (method === 'POST') {
      // A route one parameter below the collection (any method: GET, PATCH, DELETE) is the resource's URL.
      const item = routes.find((r) => r.url.startsWith(`${url}/:`) && !r.url.slice(url.length + 2).includes('/'));
      if (item) template = `${url}/{uuid}`;
    }
    locationCache.set(key, template);
    return template;
  }

  return {
    allowedMethods(path) {
      const methods = new Set<string>();
      for (const route of routes) if (route.pattern.test(path)) methods.add(route.method);
      if (methods.has('GET')) methods.add('HEAD');
      return HTTP_METHODS.filter((m) => methods.has(m));
    },

    routeOf(path) {
      let best: CatalogRoute | null = null;
      for (const route of routes) {
        if (route.pattern.test(path) && (best === null || parameterCount(route.url) < parameterCount(best.url))) best = route;
      }
      return best?.url ?? null;
    },

    locationOf(request, body) {
      const url = request.routeOptions.url;
      if (url === undefined) return null;
      const template = locationTemplate(request.method, url);
      if (template === null) return null;
      const params = (request.params ?? {}) as Record<string, unknown>;
      let missing = false;
      const filled = template
        .replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => encodeValue(params[name], () => (missing = true)))
        .replace(/\{([^}]+)\}/g, (_m, path: string) => encodeValue(pick(body, path) ?? params[path], () => (missing = true)));
      return missing ? null : filled;
    },

    transformDocument(document) {
      const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
      const usedTags = new Set<string>();
      for (const [path, item] of Object.entries(paths)) {
        const inApi = path.startsWith(`${options.apiPrefix}/`);
        for (const [method, operation] of Object.entries(item)) {
          if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue;
          for (const tag of operation.tags ?? []) usedTags.add(tag);
          operation.security ??= [];
          if (operation.requestBody && bodyOptional.has(`${method.toUpperCase()} ${path}`)) operation.requestBody.required = false;
          operation.requestBody ??= documentedBodies.get(`${method.toUpperCase()} ${path}`);
          if (inApi && operation.responses) {
            operation.responses['500'] ??= problemResponse('An unexpected fault; the body hides internals and names the request id to quote.');
            operation.responses['503'] ??= problemResponse(
              'The database is out of reach or cannot store changes, or this instance is shutting down: retry after `Retry-After` seconds.',
            );
          }
          const idempotent = (operation.parameters ?? []).some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
          const fastifyUrl = path.replace(/\{([^}]+)\}/g, ':$1');
          const createdAt = locationTemplate(method.toUpperCase(), fastifyUrl) !== null;
          for (const [status, response] of Object.entries(operation.responses ?? {})) {
            documentResponse(status, response, { inApi, rateLimited: options.rateLimited, idempotent, createdAt });
          }
        }
      }
      const known = new Map(TAGS.map((tag) => [tag.name, tag]));
      document.tags = [...usedTags].sort((x, y) => x.localeCompare(y)).map((name) => known.get(name) ?? { name });
      document.components ??= {};
      const components = document.components as Record<string, unknown>;
      components.headers = { ...((components.headers as object | undefined) ?? {}), ...HEADER_COMPONENTS };
      return document;
    },
  };
}

interface Parameter {
  name: string;
  in: string;
}
interface MediaType {
  schema?: { $ref?: string };
}
interface Response {
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, MediaType>;
}
interface Operation {
  tags?: string[];
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean };
  responses?: Record<string, Response>;
}

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

const problemResponse = (description: string): Response => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

/** Response headers, declared once and referenced from each response. */
const HEADER_COMPONENTS = {
  XRequestId: {
    description:
      "This request's id: the client's `X-Request-Id` when it is 1–128 of `A-Z a-z 0-9 . _ : -`, otherwise one the service made. Every log line about the request carries it.",
    schema: { type: 'string', maxLength: 128 },
  },
  RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
  WwwAuthenticate: {
    description: 'The challenge (RFC 9110): `Bearer realm="termin"`, with `error="invalid_token"` when a key was sent but is not valid.',
    schema: { type: 'string' },
  },
  RateLimitLimit: { description: 'Requests allowed in the current one-minute window (present while rate limiting is on).', schema: { type: 'integer', minimum: 0 } },
  RateLimitRemaining: { description: 'Requests left in the current window.', schema: { type: 'integer', minimum: 0 } },
  RateLimitReset: { description: 'Seconds until the current window ends.', schema: { type: 'integer', minimum: 0 } },
  RateLimitDraft: {
    description:
      'The same state in the IETF draft\'s form (draft-ietf-httpapi-ratelimit-headers): the policy\'s name, `r` requests remaining and `t` seconds until the window ends, e.g. `"api";r=99;t=60`. The policy is `"calculate-schedule"` on that route, `"api"` elsewhere.',
    schema: { type: 'string' },
  },
  RateLimitPolicyDraft: {
    description: 'The allowance in the IETF draft\'s form: `q` requests per `w` seconds, e.g. `"api";q=100;w=60`.',
    schema: { type: 'string' },
  },
  Location: { description: 'The URL of the created resource.', schema: { type: 'string', format: 'uri-reference' } },
  IdempotentReplayed: {
    description: '`true` when this is the stored response of an earlier request with the same `Idempotency-Key` and body (nothing new was created).',
    schema: { type: 'string', enum: ['true'] },
  },
};

const STATUS_DESCRIPTIONS: Record<string, string> = { '200': 'OK.', '201': 'Created.', '202': 'Accepted.', '204': 'Done; no content.', '303': 'See the `Location`.' };

function documentResponse(status: string, response: Response, where: { inApi: boolean; rateLimited: boolean; idempotent: boolean; createdAt: boolean }): void {
  if (response.description === undefined || response.description === 'Default Response') response.description = STATUS_DESCRIPTIONS[status] ?? 'The response.';
  const headers: Record<string, unknown> = { ...(response.headers ?? {}) };
  headers['X-Request-Id'] = headerRef('XRequestId');
  if (status === '429' || status === '503') headers['Retry-After'] = headerRef('RetryAfter');
  if (status === '401') headers['WWW-Authenticate'] = headerRef('WwwAuthenticate');
  if (where.inApi && where.rateLimited) {
    headers['X-RateLimit-Limit'] = headerRef('RateLimitLimit');
    headers['X-RateLimit-Remaining'] = headerRef('RateLimitRemaining');
    headers['X-RateLimit-Reset'] = headerRef('RateLimitReset');
    headers.RateLimit = headerRef('RateLimitDraft');
    headers['RateLimit-Policy'] = headerRef('RateLimitPolicyDraft');
  }
  if (status === '201' && where.createdAt) headers.Location = headerRef('Location');
  if (status.startsWith('2') && where.idempotent) headers['Idempotent-Replayed'] = headerRef('IdempotentReplayed');
  response.headers = headers;
  // A problem is problem+json on the wire, whichever way the route wrote its schema.
  const json = response.content?.['application/json'];
  if (json?.schema?.$ref?.endsWith('/Problem') && response.content) {
    delete response.content['application/json'];
    response.content['application/problem+json'] = json;
  }
}

/**
 * `deriveOperationId('GET', '/api/v1/teams/:teamUuid/users', '/api/v1')` → `listTeamMembers`.
 * Collections (a plural last segment) list and create; a path ending in a parameter gets,
 * updates, replaces or deletes; a POST to a singular last segment is an action named by
 * it (`/meetings/:uuid/cancel` → `cancelMeeting`, `/calculate-schedule` → `calculateSchedule`);
 * other singular resources are got, replaced or updated (`getAccount`).
 */
export function deriveOperationId(method: string, url: string, apiPrefix: string): string {
  const path = url.startsWith(`${apiPrefix}/`) ? url.slice(apiPrefix.length) : url;
  const segments = path.split('/').filter((s) => s !== '');
  const literals: string[] = [];
  segments.forEach((segment, i) => {
    if (segment.startsWith(':')) {
      // A parameter right after another names a thing of its own: /book/:username/:topicUuid → …BookTopic.
      if (segments[i - 1]?.startsWith(':')) literals.push(segment.slice(1).replace(/(Uuid|Id)$/, ''));
      return;
    }
    const parent = literals.at(-1);
    literals.push(SEGMENT_ALIASES[`${parent}/${segment}`] ?? segment);
  });
  const lastIsParam = segments.at(-1)?.startsWith(':') ?? false;
  const last = literals.at(-1) ?? 'root';
  const parents = literals.slice(0, -1).map(singular);
  let words: string[];
  if (lastIsParam) {
    words = [ITEM_VERBS[method] ?? method.toLowerCase(), ...parents, singular(last)];
  } else if (isPlural(last)) {
    words = [COLLECTION_VERBS[method] ?? method.toLowerCase(), ...parents, method === 'POST' ? singular(last) : last];
  } else if (method === 'POST') {
    const [verb = 'post', ...rest] = last.split(/[-_.]/);
    words = [verb, ...parents, ...(ACTION_OBJECTS[last] ?? rest)];
  } else {
    words = [ITEM_VERBS[method] ?? method.toLowerCase(), ...parents, last];
  }
  return camelCase(words);
}

/** A child segment that names something else under its parent: a team's users are its members. */
const SEGMENT_ALIASES: Record<string, string> = { 'teams/users': 'members' };
/** What an action acts on when its segment does not say: POST /schedule schedules meetings. */
const ACTION_OBJECTS: Record<string, string[]> = { schedule: ['meetings'], reschedule: [] };
const COLLECTION_VERBS: Record<string, string> = { GET: 'list', POST: 'create', PUT: 'replace', PATCH: 'update', DELETE: 'delete' };
const ITEM_VERBS: Record<string, string> = { GET: 'get', POST: 'create', PUT: 'replace', PATCH: 'update', DELETE: 'delete' };
const NOT_PLURAL = new Set(['status', 'metrics', 'settings', 'news', 'access']);

function isPlural(word: string): boolean {
  return /[a-z]s$/.test(word) && !/(ss|us)$/.test(word) && !word.includes('.') && !NOT_PLURAL.has(word);
}

function singular(word: string): string {
  if (!isPlural(word)) return word;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  return word.slice(0, -1);
}

function camelCase(words: string[]): string {
  const parts = words.flatMap((w) => w.split(/[^A-Za-z0-9]+/)).filter((p) => p !== '');
  return parts.map((p, i) => (i === 0 ? p.charAt(0).toLowerCase() + p.slice(1) : p.charAt(0).toUpperCase() + p.slice(1))).join('');
}

/** `/api/v1/teams/:teamUuid/users` → `/api/v1/teams/{teamUuid}/users`, as @fastify/swagger writes paths. */
export function toOpenApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function parameterCount(url: string): number {
  return url.split('/:').length - 1;
}

function patternOf(url: string): RegExp {
  const source = url
    .split(/(:[A-Za-z0-9_]+)/)
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}/?$`);
}

function pick(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function encodeValue(value: unknown, onMissing: () => void): string {
  if (typeof value !== 'string' && typeof value !== 'number') {
    onMissing();
    return '';
  }
  return encodeURIComponent(String(value));
}

/**
 * onRoute hook of the scope whose routes need an API key: each is documented as needing one
 * (both ways of sending it) unless it says otherwise, so a route added there cannot be
 * documented as public while it answers 401 without a key (test/http/openapi-security.test.ts).
 */
export function documentApiKeySecurity(route: RouteOptions): void {
  if (route.schema?.security !== undefined) return;
  route.schema = { ...(route.schema ?? {}), security: API_KEY_SECURITY };
}

/** The reply helper for a route that knows its created resource's URL better than the hook. */
export function replyCreated<T>(reply: FastifyReply, location: string, body: T): FastifyReply {
  return reply.code(201).header('location', location).send(body);
}
