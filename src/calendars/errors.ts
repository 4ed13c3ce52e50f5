/**
 * Errors of the remote-calendar adapters. Their messages are written for an operator (what
 * failed, where, what to check) and never carry a password, a secret feed token or a
 * response body; `code` is stable so the sync worker and `http/` can map them without
 * parsing text. `retryable` says whether trying again later may help.
 */
export type CalendarErrorCode = 'CALENDAR_UNREACHABLE' | 'CALENDAR_AUTH_FAILED' | 'CALENDAR_NOT_FOUND' | 'CALENDAR_TOO_LARGE' | 'CALENDAR_BAD_RESPONSE';

export class CalendarError extends Error {
  constructor(
    readonly code: CalendarErrorCode,
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Network failure, timeout, or a 5xx/429 answer: the server may be back later. */
export class CalendarUnreachableError extends CalendarError {
  constructor(message: string, status?: number) {
    super('CALENDAR_UNREACHABLE', message, true, status);
  }
}

/** 401 or 403: the username, password or secret URL is wrong; retrying will not help. */
export class CalendarAuthError extends CalendarError {
  constructor(message: string, status?: number) {
    super('CALENDAR_AUTH_FAILED', message, false, status);
  }
}

/** 404 or 410 on the calendar itself (not on one event). */
export class CalendarNotFoundError extends CalendarError {
  constructor(message: string, status?: number) {
    super('CALENDAR_NOT_FOUND', message, false, status);
  }
}

/** A feed larger than the configured limit; refused while streaming. */
export class CalendarTooLargeError extends CalendarError {
  constructor(message: string) {
    super('CALENDAR_TOO_LARGE', message, false);
  }
}

/** An answer that is not what the protocol promises: another status, not iCalendar, unparsable. */
export class CalendarBadResponseError extends CalendarError {
  constructor(message: string, status?: number) {
    super('CALENDAR_BAD_RESPONSE', message, false, status);
  }
}

/**
 * `https://user:secret@host/private/abc123.ics?token=x` → `https://host/private/…`: enough
 * for an operator to recognise the server, nothing that grants access (feed URLs are
 * often secrets in their path or query).
 */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname.length > 1 ? '/…' : '/'}`;
  } catch {
    return 'an invalid URL';
  }
}

/**
 * The cause of a failed fetch in words: `timed out after 10 s`, `ECONNREFUSED`, or the
 * message of an error a guarded fetch threw (`The request to host failed: …`).
 */
export function describeNetworkFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `timed out after ${formatSeconds(timeoutMs)}`;
  }
  // undici wraps the real reason in `cause` behind a bare "fetch failed".
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  let text = error instanceof Error ? error.message : String(error);
  if (text === 'fetch failed' && cause) {
    text = typeof cause.code === 'string' ? cause.code : typeof cause.message === 'string' ? cause.message : text;
  }
  // undici quotes the URL in some messages ("…includes credentials: https://u:p@host/").
  return text.replace(/\/\/[^/@\s]*@/g, '//…@').replace(/[?#]\S*/g, '');
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
