import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, describeFieldError, type ErrorCode, type FieldError } from '../domain/errors.js';
import { RepeatThrottle } from '../domain/repeat-throttle.js';
import { renderErrorPage } from './pages/error-page.js';
import { pickLang } from './pages/i18n.js';
import { isPageUrl, sendHtml } from './pages/html.js';
import { AUTHENTICATE_CHALLENGE, apiKeyOf } from './request-guards.js';
import type { Problem } from './schemas/common.js';

interface ProblemKind {
  status: number;
  title: string;
  /** Anchor in /docs/problems, and the human explanation shown there. */
  anchor: string;
  explanation: string;
}

/** The one place where domain error codes become HTTP statuses and documentation. */
export const PROBLEM_KINDS: Record<ErrorCode, ProblemKind> = {
  VALIDATION_FAILED: {
    status: 400,
    title: 'The request is invalid',
    anchor: 'validation-failed',
    explanation:
      'The body, query or path did not pass validation: malformed JSON, a missing or unknown field, a wrong type, a value outside the allowed set, or a rule such as "offset must be a multiple of 7". `errors` lists every problem, each with a JSON Pointer `path` (`/offset`, `/dates/1/start`, `/query/limit`, `/params/teamUuid`). Nothing was changed.',
  },
  UNAUTHENTICATED: {
    status: 401,
    title: 'Authentication required',
    anchor: 'unauthenticated',
    explanation:
      'The API key (the `X-Service-Api-Key` header, or `Authorization: Bearer <key>`) is missing, malformed, unknown, revoked, or belongs to a deactivated user. The body was not looked at. The answer carries `WWW-Authenticate: Bearer realm="termin"`.',
  },
  FORBIDDEN: {
    status: 403,
    title: 'Not allowed',
    anchor: 'forbidden',
    explanation: 'The key is valid, but its user may not do this: for example, the user is not an admin of the team the request acts on.',
  },
  PLAN_LIMIT_REACHED: {
    status: 403,
    title: "The plan's user limit is reached",
    anchor: 'plan-limit-reached',
    explanation: "Adding the member would take the account past its plan's number of active users. Remove a member (freeing their seat) or ask the operator for a larger plan.",
  },
  NOT_FOUND: {
    status: 404,
    title: 'Not found',
    anchor: 'not-found',
    explanation: "The team, user, topic, host, meeting or price variant does not exist, or belongs to another account (the service never reveals other accounts' records).",
  },
  NOT_ACCEPTABLE: {
    status: 406,
    title: 'Not acceptable',
    anchor: 'not-acceptable',
    explanation: 'The `Accept` header excludes `application/json`, the only representation the API offers. Omit it or send `application/json`.',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    title: 'Method not allowed',
    anchor: 'method-not-allowed',
    explanation: 'The path exists but does not take this method. The `Allow` header lists the methods it takes.',
  },
  SLOT_UNAVAILABLE: {
    status: 409,
    title: 'The slot is not available',
    anchor: 'slot-unavailable',
    explanation: 'A requested date is not, or no longer, an available slot. `errors` names the `dates` entry. Ask `POST /calculate-schedule` again and pick another slot.',
  },
  ALREADY_MEMBER: {
    status: 409,
    title: 'Already a member',
    anchor: 'already-member',
    explanation: 'A member with this e-mail (compared case-insensitively) already belongs to the team.',
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    title: 'Idempotency key reused',
    anchor: 'idempotency-key-reused',
    explanation: 'The same `Idempotency-Key` was sent earlier with a different body. Use a new key for a new request.',
  },
  USERNAME_TAKEN: {
    status: 409,
    title: 'The username is taken',
    anchor: 'username-taken',
    explanation: 'Another user has this username, or gave it up less than a year ago (their old booking links still lead to them). Choose another.',
  },
  SLUG_TAKEN: {
    status: 409,
    title: 'The slug is taken',
    anchor: 'slug-taken',
    explanation: "Another live topic of one of this topic's hosts, or of its team, already has this slug: the booking link would be ambiguous. Choose another.",
  },
  LAST_ADMIN: {
    status: 409,
    title: 'The last admin cannot be removed',
    anchor: 'last-admin',
    explanation: 'Deleting this member would leave the team without an admin. Make another member an admin first.',
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    title: 'Payload too large',
    anchor: 'payload-too-large',
    explanation: 'The body is larger than the service accepts (100 KiB unless the operator set BODY_LIMIT_BYTES).',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    title: 'Unsupported media type',
    anchor: 'unsupported-media-type',
    explanation: 'A request body must be JSON with `Content-Type: application/json`.',
  },
  DISCOUNT_INVALID: {
    status: 422,
    title: 'The discount code is not valid',
    anchor: 'discount-invalid',
    explanation: 'The discount code is unknown, expired or used up.',
  },
  RATE_LIMITED: {
    status: 429,
    title: 'Too many requests',
    anchor: 'rate-limited',
    explanation: 'Slow down; the `Retry-After` header says after how many seconds to retry.',
  },
  INTERNAL: {
    status: 500,
    title: 'Internal error',
    anchor: 'internal',
    explanation: 'Something failed on our side. The request may be retried; if it keeps failing, the operator finds the details in the logs under the request id.',
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    title: 'Service unavailable',
    anchor: 'service-unavailable',
    explanation: 'Something the service depends on is unavailable right now. Nothing was changed; retry after the seconds in `Retry-After`.',
  },
  DATABASE_UNAVAILABLE: {
    status: 503,
    title: 'Database unavailable',
    anchor: 'database-unavailable',
    explanation:
      'The database is unreachable, restarting, refusing connections or too slow to answer right now. Nothing was changed unless the request is later found to have succeeded; retry after the seconds in `Retry-After` (with the same `Idempotency-Key` for a booking).',
  },
  STORAGE_FULL: {
    status: 503,
    title: 'Changes cannot be stored right now',
    anchor: 'storage-full',
    explanation:
      "The service's database has no room left to store changes (its disk is full), so nothing was changed. Reading still works, and the service takes changes again by itself once the operator has made room. Retry after the seconds in `Retry-After` (with the same `Idempotency-Key` for a booking).",
  },
  NOTIFICATION_REJECTED: {
    status: 400,
    title: 'Payment notification refused',
    anchor: 'notification-rejected',
    explanation:
      "A payment gateway's notification did not pass its signature check, named a payment this account does not have, or reported another amount or currency than the payment's. Nothing was changed.",
  },
  GATEWAY_UNAVAILABLE: {
    status: 502,
    title: 'Payment gateway unavailable',
    anchor: 'gateway-unavailable',
    explanation:
      'Checking a payment needed a call to the payment gateway, which failed or did not answer in time. Nothing was changed; the gateway sends its notification again later.',
  },
  MEETING_STATE_CONFLICT: {
    status: 409,
    title: "The meeting's state does not allow this",
    anchor: 'meeting-state-conflict',
    explanation:
      'The meeting is not where the action needs it: a no-show marked before the meeting started or on a meeting that is not confirmed, or approving or declining a meeting that is no longer pending approval (cancelled, declined, or already approved). Nothing was changed; `GET /meetings/{uuid}` shows its state.',
  },
  SCHEDULE_IN_USE: {
    status: 409,
    title: 'The schedule is in use',
    anchor: 'schedule-in-use',
    explanation:
      'A schedule that meeting topics use (`schedule`, or an entry of `hostSchedules`) cannot be deleted: their hours would change without anyone choosing it. The detail names the topics; point them at another schedule (or `null`: the default hours), then delete. Nothing was changed.',
  },
  LINK_GONE: {
    status: 410,
    title: 'The booking link is no longer valid',
    anchor: 'link-gone',
    explanation:
      'A single-use booking link (`/book/once/{token}`) books its topic once: after that booking, or once it expires (`expiresAt`), it answers 410, and so does a token that never existed. Ask the host for a new link. Nothing was booked.',
  },
  SECRET_UNREADABLE: {
    status: 409,
    title: 'A stored secret cannot be read',
    anchor: 'secret-unreadable',
    explanation:
      "Something this needs was stored encrypted with a secret key the server no longer has (the operator changed `TERMIN_SECRET_KEY` without listing the old one in `TERMIN_SECRET_KEY_PREVIOUS`). The detail names what and what to do: connect the provider again, enter the app's credentials or the calendar's password again, or make a new feed address. Only that thing is affected; nothing was changed.",
  },
};

/** Seconds a client should wait after a 503 caused by the database. */
const DATABASE_RETRY_AFTER_SECONDS = 5;
/** After a write refused for lack of room: making room takes an operator, rarely seconds. */
const STORAGE_RETRY_AFTER_SECONDS = 30;

/**
 * `typeBase`: '' for the relative `/docs/problems#…` the contract shows, or PUBLIC_URL for
 * absolute type URIs (PROBLEM_TYPES_ABSOLUTE); the `code` is the same either way.
 */
export function buildProblem(code: ErrorCode, detail: string, errors?: FieldError[], typeBase = ''): Problem {
  const kind = PROBLEM_KINDS[code];
  return {
    type: `${typeBase}/docs/problems#${kind.anchor}`,
    title: kind.title,
    status: kind.status,
    code,
    detail,
    ...(errors && errors.length > 0 ? { errors } : {}),
  };
}

/** problem+json for the API; for a page (anything outside /api/), the same problem as HTML. */
export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  if (isPageUrl(reply.request.url)) {
    const { request } = reply;
    const query = request.query as { lang?: unknown } | undefined;
    return sendHtml(reply, problem.status, renderErrorPage(problem, pickLang(typeof query?.lang === 'string' ? query.lang : undefined, request.headers['accept-language'])));
  }
  return reply.code(problem.status).type('application/problem+json').send(problem);
}

export type ErrorHandler = (error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => FastifyReply;

/** How the data layer's errors read (given by the wiring: only the data layer knows its drivers' errors). */
export interface DatabaseErrorKinds {
  /** The database is out of reach or too slow: 503 DATABASE_UNAVAILABLE. */
  isUnavailable(error: unknown): boolean;
  /** A write found no room (a full disk): 503 STORAGE_FULL. */
  isStorageFull(error: unknown): boolean;
}

/**
 * The application's one error handler. Fastify's own 4xx errors (body parsing, limits,
 * media types) get the same problem shape as domain errors; a database out of reach, or
 * one whose disk is full, is a 503 with Retry-After; anything else unexpected becomes a 500
 * that hides internals. Errors of the service itself are logged once, then at most once a
 * minute with how many more there were (RepeatThrottle): a fault that fails every request
 * must not write a stack per request. Each request still has its own request-log line.
 */
export function createErrorHandler(kinds: DatabaseErrorKinds, options: { problemTypeBase?: string } = {}): ErrorHandler {
  const throttle = new RepeatThrottle();
  const logError: ErrorLogger = (request, level, error, message) => throttle.logError((fields, line) => request.log[level](fields, line), error, message, Date.now());
  const typeBase = options.problemTypeBase ?? '';
  const problem: ProblemBuilder = (code, detail, errors) => buildProblem(code, detail, errors, typeBase);
  return (error, request, reply) => handleError(error, request, reply, kinds, logError, problem);
}

type ProblemBuilder = (code: ErrorCode, detail: string, errors?: FieldError[]) => Problem;

type ErrorLogger = (request: FastifyRequest, level: 'warn' | 'error', error: Error, message: string) => void;

function handleError(
  error: FastifyError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
  kinds: DatabaseErrorKinds,
  logError: ErrorLogger,
  buildProblem: ProblemBuilder,
): FastifyReply {
  if (error instanceof DomainError) {
    // RFC 9110: a 401 names how to authenticate; RFC 6750 says why a key that was sent failed.
    if (error.code === 'UNAUTHENTICATED')
      reply.header('WWW-Authenticate', apiKeyOf(request) === undefined ? AUTHENTICATE_CHALLENGE : `${AUTHENTICATE_CHALLENGE}, error="invalid_token"`);
    const retryAfter = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
    if (typeof retryAfter === 'number') reply.header('Retry-After', String(Math.max(1, Math.ceil(retryAfter))));
    return sendProblem(reply, buildProblem(error.code, error.message, error.errors));
  }
  if (kinds.isStorageFull(error)) {
    logError(request, 'error', error, 'the database cannot store changes (disk full): answered 503');
    reply.header('Retry-After', String(STORAGE_RETRY_AFTER_SECONDS));
    return sendProblem(reply, buildProblem('STORAGE_FULL', 'The service cannot store changes right now; nothing was changed. Reading still works; retry later'));
  }
  if (kinds.isUnavailable(error)) {
    logError(request, 'warn', error, 'database unavailable: answered 503');
    reply.header('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
    return sendProblem(reply, buildProblem('DATABASE_UNAVAILABLE', 'The database is temporarily unavailable; retry shortly'));
  }

  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    if (fastifyError.validationContext === 'body' && request.body === undefined) {
      const detail = 'A JSON body is required';
      return sendProblem(reply, buildProblem('VALIDATION_FAILED', detail, [{ path: '', message: detail }]));
    }
    const errors = mapValidationErrors(fastifyError.validation, fastifyError.validationContext);
    return sendProblem(reply, buildProblem('VALIDATION_FAILED', describeValidation(errors), errors));
  }
  const status = fastifyError.statusCode ?? 500;
  if (status === 413) return sendProblem(reply, buildProblem('PAYLOAD_TOO_LARGE', 'The request body is too large'));
  if (status === 415) {
    return sendProblem(reply, buildProblem('UNSUPPORTED_MEDIA_TYPE', 'The request body must be sent with Content-Type: application/json'));
  }
  if (status === 429) return sendProblem(reply, buildProblem('RATE_LIMITED', error.message || 'Too many requests'));
  if (status >= 400 && status < 500) {
    // Malformed or empty JSON and similar parser complaints.
    // In the API's words, not the framework's ("Body is not valid JSON but content-type is set to…").
    const detail = CLIENT_ERROR_DETAILS[fastifyError.code ?? ''] ?? (status === 400 ? describeBadBody(error) : 'The request could not be processed');
    if (status === 400) return sendProblem(reply, buildProblem('VALIDATION_FAILED', detail, [{ path: '', message: detail }]));
    return sendProblem(reply, { ...buildProblem('VALIDATION_FAILED', detail), status, title: 'Bad request' });
  }
  logError(request, 'error', error, 'unhandled error');
  return sendProblem(reply, buildProblem('INTERNAL', `An unexpected error occurred; quote request id ${request.id} when reporting it`));
}

/** Fastify's own 4xx errors, said the way the API says things. */
const CLIENT_ERROR_DETAILS: Record<string, string> = {
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The JSON body is empty',
  FST_ERR_CTP_INVALID_JSON_BODY: 'The request body is not valid JSON',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The request body is not as long as its Content-Length says',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The request body is too large',
  FST_ERR_BAD_URL: 'The URL is malformed (check its percent-encoding)',
  FST_ERR_ASYNC_CONSTRAINT: 'The request could not be routed',
};

/** A body parser's complaint: JSON that does not parse, or a forbidden key such as `__proto__`. */
function describeBadBody(error: Error): string {
  if (/prototype|__proto__|constructor/i.test(error.message)) return 'The request body is not accepted: it contains a __proto__ or constructor.prototype key';
  return 'The request body is not valid JSON';
}

/**
 * The `detail` of a validation failure: the first problem as a sentence, and how many more
 * `errors` lists. `describeValidation([{ path: '/query/limit', message: 'must be integer' }])`
 * → `Query parameter "limit" must be an integer`.
 */
export function describeValidation(errors: readonly FieldError[]): string {
  const first = errors[0];
  if (!first) return 'The request is invalid';
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more problem${errors.length > 2 ? 's' : ''}: see errors)` : '';
  return `${describeField(first.path)} ${humanMessage(first.message)}${more}`;
}

function describeField(path: string): string {
  const query = /^\/query\/(.+)$/.exec(path);
  if (query) return `Query parameter "${unescapePointer(query[1]!.split('/')[0]!)}"`;
  const params = /^\/params\/(.+)$/.exec(path);
  if (params) return `Path parameter "${unescapePointer(params[1]!)}"`;
  const headers = /^\/headers\/(.+)$/.exec(path);
  if (headers) return `Header ${unescapePointer(headers[1]!)}`;
  if (path === '') return 'The body';
  return describeFieldError({ path, message: '' }).trimEnd();
}

const TYPE_WORDS: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** Ajv's "must be integer" reads "must be an integer". */
function humanMessage(message: string): string {
  return message.replace(/^must be (integer|number|string|boolean|object|array|null)(,| or |$)/, (_m, type: string, rest: string) => `must be ${TYPE_WORDS[type]}${rest}`);
}

function unescapePointer(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** Messages for the formats whose name alone says little. */
const FORMAT_MESSAGES: Record<string, string> = {
  uuid: 'must be a valid uuid',
};

interface AjvError {
  instancePath: string;
  schemaPath?: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

const CONTEXT_PREFIX: Record<string, string> = { body: '', querystring: '/query', params: '/params', headers: '/headers' };

/**
 * Turns Ajv errors into one readable entry per failing field. An `anyOf` (a nullable or a
 * union type) fails with one error per branch; those collapse into one "must be X or Y".
 */
export function mapValidationErrors(errors: readonly AjvError[] | unknown[], context: string | undefined): FieldError[] {
  const prefix = CONTEXT_PREFIX[context ?? 'body'] ?? '';
  const list = keepMatchingBranches(errors as AjvError[]);
  const anyOfPaths = new Set(list.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  const result: FieldError[] = [];
  const seen = new Set<string>();
  // One entry per field: an empty name breaks both minLength and pattern, but it is one problem.
  const push = (path: string, message: string) => {
    if (!seen.has(path)) {
      seen.add(path);
      result.push({ path, message });
    }
  };
  for (const error of list) {
    const path = prefix + error.instancePath;
    if (anyOfPaths.has(error.instancePath) && error.keyword !== 'anyOf') continue;
    switch (error.keyword) {
      case 'required':
        push(`${path}/${escapePointer(String(error.params.missingProperty))}`, 'is required');
        break;
      case 'additionalProperties':
        push(`${path}/${escapePointer(String(error.params.additionalProperty))}`, 'is not an allowed field');
        break;
      case 'enum':
        push(path, `must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}`);
        break;
      case 'anyOf':
        push(path, `must be ${describeAlternatives(list, error.instancePath)}`);
        break;
      case 'format':
        push(path, FORMAT_MESSAGES[String(error.params.format)] ?? `must be a valid ${String(error.params.format)}`);
        break;
      default:
        push(path, error.message ?? 'is invalid');
    }
  }
  return result;
}

/**
 * An `anyOf` whose value has the shape of exactly one branch (an object where the branches
 * are an array and an object) fails for what is wrong inside that branch: those errors are
 * kept and the others dropped, so `{ "gateways": { "stripe": {} } }` names
 * `/gateways/stripe/secretKey` instead of "must be array or object". A branch counts as the
 * value's shape when none of its errors is at the value itself; with no such branch, or
 * several, the errors stay as they are and collapse into "must be X or Y".
 */
function keepMatchingBranches(errors: AjvError[]): AjvError[] {
  let list = errors;
  for (const anyOf of errors.filter((error) => error.keyword === 'anyOf' && error.schemaPath !== undefined)) {
    const base = `${anyOf.schemaPath}/`;
    const branches = new Map<string, AjvError[]>();
    for (const error of list) {
      if (!error.schemaPath?.startsWith(base)) continue;
      const branch = error.schemaPath.slice(base.length).split('/')[0]!;
      branches.set(branch, [...(branches.get(branch) ?? []), error]);
    }
    const shaped = [...branches.entries()].filter(([, branchErrors]) => branchErrors.every((error) => error.instancePath.length > anyOf.instancePath.length));
    if (shaped.length !== 1) continue;
    const [kept] = shaped[0]!;
    list = list.filter((error) => error !== anyOf && !(error.schemaPath?.startsWith(base) && error.schemaPath.slice(base.length).split('/')[0] !== kept));
  }
  return list;
}

function describeAlternatives(errors: AjvError[], instancePath: string): string {
  const kinds = errors
    .filter((e) => e.instancePath === instancePath && e.keyword !== 'anyOf')
    .map((e) => (e.keyword === 'type' ? String(e.params.type) : e.keyword === 'const' ? JSON.stringify(e.params.allowedValue) : (e.message ?? '')))
    .filter((kind) => kind !== '');
  return kinds.length > 0 ? [...new Set(kinds)].join(' or ') : 'valid';
}

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}
