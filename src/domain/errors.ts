/**
 * Domain errors carry a stable `code` (the API's documented error codes) and, for validation
 * problems, one entry per failing field. Only `src/http/problems.ts` turns them into
 * HTTP statuses, so nothing below the HTTP layer knows about transport.
 */
export const ERROR_CODES = [
  'VALIDATION_FAILED',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'PLAN_LIMIT_REACHED',
  'NOT_FOUND',
  'NOT_ACCEPTABLE',
  'METHOD_NOT_ALLOWED',
  'SLOT_UNAVAILABLE',
  'ALREADY_MEMBER',
  'IDEMPOTENCY_KEY_REUSED',
  'LAST_ADMIN',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'DISCOUNT_INVALID',
  'RATE_LIMITED',
  'INTERNAL',
  'SERVICE_UNAVAILABLE',
  'DATABASE_UNAVAILABLE',
  'STORAGE_FULL',
  'NOTIFICATION_REJECTED',
  'GATEWAY_UNAVAILABLE',
  'MEETING_STATE_CONFLICT',
  'SCHEDULE_IN_USE',
  'SECRET_UNREADABLE',
  'USERNAME_TAKEN',
  'SLUG_TAKEN',
  'LINK_GONE',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** One failing field; `path` is a JSON Pointer into the request (`/offset`, `/dates/1/start`). */
export interface FieldError {
  path: string;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldError[],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad input: `new ValidationError([{ path: '/offset', message: 'must be a multiple of 7' }])`. */
export class ValidationError extends DomainError {
  constructor(errors: FieldError[], message?: string) {
    const first = errors[0];
    super('VALIDATION_FAILED', message ?? (first ? describeFieldError(first) : 'The request is invalid'), errors);
  }
}

export class UnauthenticatedError extends DomainError {
  constructor(message = 'A valid API key is required: the X-Service-Api-Key header, or Authorization: Bearer <key>') {
    super('UNAUTHENTICATED', message);
  }
}

export class ForbiddenError extends DomainError {
  constructor(message = 'The key does not allow this action') {
    super('FORBIDDEN', message);
  }
}

/** `what` names the missing thing for the message: `new NotFoundError('team')`. */
export class NotFoundError extends DomainError {
  constructor(what: string) {
    super('NOT_FOUND', `The ${what} does not exist`);
  }
}

export class PlanLimitReachedError extends DomainError {
  constructor(maxUsers: number) {
    super('PLAN_LIMIT_REACHED', `The account's plan allows at most ${maxUsers} active users`);
  }
}

export class AlreadyMemberError extends DomainError {
  constructor() {
    super('ALREADY_MEMBER', 'A member with this e-mail already belongs to the team');
  }
}

export class LastAdminError extends DomainError {
  constructor() {
    super('LAST_ADMIN', 'The team would be left without an admin');
  }
}

/** The username is another user's, or was given up by another user too recently (their old links still point at them). */
export class UsernameTakenError extends DomainError {
  constructor() {
    super('USERNAME_TAKEN', 'This username is taken', [{ path: '/username', message: 'is taken' }]);
  }
}

/** Another topic of one of this topic's hosts, or of its team, already has this slug: the link would be ambiguous. */
export class SlugTakenError extends DomainError {
  constructor() {
    super('SLUG_TAKEN', "Another topic of this topic's host or team already uses this slug", [
      { path: '/slug', message: 'is already used by another topic of the same host or team' },
    ]);
  }
}

/** Joins a field error into one readable sentence: `/offset` + `must be …` → `offset must be …`. */
export function describeFieldError(error: FieldError): string {
  const field = error.path.replace(/^\//, '').replaceAll('/', '.');
  return field ? `${field} ${error.message}` : error.message;
}

/** `errors` names each failing `dates` entry: `[{ path: '/dates/1', message: 'is not an available slot' }]`. */
export class SlotUnavailableError extends DomainError {
  constructor(errors: FieldError[]) {
    super('SLOT_UNAVAILABLE', `${errors.map((e) => e.path.slice(1)).join(', ')} ${errors.length === 1 ? 'is' : 'are'} not (or no longer) an available slot`, errors);
  }
}

export class IdempotencyKeyReusedError extends DomainError {
  constructor() {
    super('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request body');
  }
}

export class DiscountInvalidError extends DomainError {
  constructor(reason: string) {
    super('DISCOUNT_INVALID', reason, [{ path: '/discount', message: reason }]);
  }
}

/**
 * A dependency (the database) is down or too slow; retrying after `retryAfterSeconds` may work.
 * `new ServiceUnavailableError('The database did not answer in time', 5)`.
 */
export class ServiceUnavailableError extends DomainError {
  constructor(
    message = 'The service is temporarily unavailable',
    readonly retryAfterSeconds = 5,
  ) {
    super('SERVICE_UNAVAILABLE', message);
  }
}

/** Too many attempts; `retryAfterSeconds` says when the next one is allowed. */
export class RateLimitedError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('RATE_LIMITED', message);
  }
}

/** A payment gateway's notification that is forged, unsigned, malformed or for the wrong amount: nothing changed. */
export class NotificationRejectedError extends DomainError {
  constructor(reason: string) {
    super('NOTIFICATION_REJECTED', `The notification was refused: ${reason}`);
  }
}

/** The payment gateway could not be reached or refused a call; the gateway (or the caller) should retry later. */
export class GatewayUnavailableError extends DomainError {
  constructor(message = 'The payment gateway could not be reached; try again shortly') {
    super('GATEWAY_UNAVAILABLE', message);
  }
}

/** A path that exists, asked with a method it does not take: `new MethodNotAllowedError('PUT', ['GET', 'HEAD'])`. */
export class MethodNotAllowedError extends DomainError {
  constructor(method: string, allowed: readonly string[]) {
    super('METHOD_NOT_ALLOWED', `${method} is not allowed here; this path takes ${allowed.join(', ')} (see the Allow header)`);
  }
}

/**
 * The meeting is not in a state that allows the action: a no-show before the start, approving
 * a cancelled or declined meeting. `new MeetingStateConflictError('The meeting has not started yet')`.
 */
export class MeetingStateConflictError extends DomainError {
  constructor(message: string) {
    super('MEETING_STATE_CONFLICT', message);
  }
}

/**
 * A schedule that topics still use cannot be deleted (their hours would change unseen):
 * `new ScheduleInUseError(['Intro call'])`.
 */
export class ScheduleInUseError extends DomainError {
  constructor(readonly topicNames: string[]) {
    super(
      'SCHEDULE_IN_USE',
      `The schedule is used by the meeting topic${topicNames.length > 1 ? 's' : ''} ${topicNames.map((name) => `"${name}"`).join(', ')}: choose another schedule there first`,
    );
  }
}

/**
 * Something stored sealed (a connection's tokens, a calendar's password, an app's client
 * secret, a feed address) that no secret key this server has opens: TERMIN_SECRET_KEY was
 * changed without TERMIN_SECRET_KEY_PREVIOUS naming the old one. Only that thing is unusable;
 * the message names it and what to enter again, never the value:
 * `new SecretUnreadableError({ what: "the Zoom connection's tokens", todo: 'connect Zoom again' })`
 * → "termin cannot read the Zoom connection's tokens (stored with a secret key this server no longer has): connect Zoom again".
 */
export class SecretUnreadableError extends DomainError {
  constructor(
    readonly subject: { what: string; todo: string } = {
      what: 'a stored secret',
      todo: 'the operator restores the key it was stored with (TERMIN_SECRET_KEY_PREVIOUS), or it is entered again',
    },
  ) {
    super('SECRET_UNREADABLE', `termin cannot read ${subject.what} (stored with a secret key this server no longer has): ${subject.todo}`);
  }
}

/** A single-use booking link that was used, has expired, or never existed: 410, so a page says so kindly. */
export class LinkGoneError extends DomainError {
  constructor() {
    super('LINK_GONE', 'This booking link has been used or has expired');
  }
}
