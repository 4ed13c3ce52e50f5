import {
  CalendarAuthError,
  CalendarBadResponseError,
  CalendarError,
  CalendarNotFoundError,
  CalendarTooLargeError,
  CalendarUnreachableError,
  describeNetworkFailure,
  describeUrl,
} from './errors.js';
import type { FieldError } from '../domain/errors.js';
import { extractBusyIntervals } from './busy-time.js';
import { type CalendarProvider, openCalendarSecret } from './provider.js';

/**
 * A plain iCalendar URL (what calendar apps offer as "subscribe" or "secret address",
 * `webcal://` included): read-only, and its whole address is stored sealed, since for a
 * secret feed the address is the secret. The API shows only its scheme and host.
 */
export const icsProvider: CalendarProvider = {
  type: 'ics',
  prepare(request, secrets) {
    const errors: FieldError[] = [];
    if (request.username !== undefined) errors.push({ path: '/username', message: 'is only for CalDAV calendars' });
    if (request.password !== undefined) errors.push({ path: '/password', message: 'is only for CalDAV calendars' });
    if (request.writeMeetings === true) errors.push({ path: '/writeMeetings', message: 'needs a CalDAV calendar: an iCalendar URL is read-only' });
    // webcal:// is how calendar apps hand out subscription links: it is https underneath.
    if (request.url === undefined) errors.push({ path: '/url', message: 'is required for an iCalendar URL' });
    const url = (request.url ?? '').trim().replace(/^webcals?:\/\//i, 'https://');
    return {
      errors,
      connection: {
        callUrl: request.url === undefined ? null : url,
        displayUrl: describeUrl(url),
        access: { url: secrets.seal(url), username: null, passwordSealed: null },
        writeMeetings: false,
      },
    };
  },
  open(access, secrets, fetch) {
    const url = openCalendarSecret(secrets, access.url, "the calendar's iCalendar address", 'remove the calendar and add it again with its address');
    return {
      readBusy: async (range, hostZone, options) => extractBusyIntervals(await fetchIcsText(url, { fetch }), range, hostZone, options),
      writer: null,
    };
  },
};

export const DEFAULT_ICS_TIMEOUT_MS = 10_000;
export const DEFAULT_ICS_MAX_BYTES = 5 * 1024 * 1024;
const MAX_REDIRECTS = 5;

export interface FetchIcsOptions {
  /** Every request (each redirect hop too) goes through this; the service passes its SSRF-guarded fetch. */
  fetch?: typeof fetch | undefined;
  /** One deadline over every hop and the whole body; 10 s by default. */
  timeoutMs?: number | undefined;
  /** Larger bodies are refused while streaming; 5 MiB by default. */
  maxBytes?: number | undefined;
}

/**
 * The text of a public or secret iCalendar URL (`webcal://` is read as `https://`).
 * Redirects are followed hop by hop through `options.fetch`, so a guard sees every
 * address. Throws CalendarError subclasses; their messages show the host but not the
 * path or query, which for a secret feed URL is the secret.
 *
 * @example
 * const text = await fetchIcsText('webcal://p12-caldav.icloud.com/published/2/MTIz…');
 * extractBusyIntervals(text, { from, to }, 'Europe/Warsaw');
 */
export async function fetchIcsText(url: string, options: FetchIcsOptions = {}): Promise<string> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_ICS_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_ICS_MAX_BYTES;
  const doFetch = options.fetch ?? globalThis.fetch;
  const signal = AbortSignal.timeout(timeoutMs);
  let target = httpUrlOf(url);
  const where = `the calendar feed at ${describeUrl(target)}`;

  for (let hop = 0; ; hop++) {
    let response: Response;
    try {
      response = await doFetch(target, {
        method: 'GET',
        headers: { accept: 'text/calendar, text/plain;q=0.5, */*;q=0.1' },
        redirect: 'manual',
        signal,
      });
    } catch (error) {
      throw networkFailure(error, where, timeoutMs, maxBytes);
    }
    if (response.status >= 300 && response.status < 400 && response.status !== 304) {
      await response.body?.cancel().catch(() => undefined);
      const location = response.headers.get('location');
      if (!location || hop >= MAX_REDIRECTS) {
        throw new CalendarBadResponseError(
          `Could not read ${where}: ${location ? 'too many redirects' : 'a redirect without a Location'} (HTTP ${response.status}).`,
          response.status,
        );
      }
      target = httpUrlOf(new URL(location, target).href);
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw statusFailure(response.status, where);
    }
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw tooLarge(where, maxBytes);
    }
    let bytes: Uint8Array;
    try {
      bytes = await readBounded(response, maxBytes, where);
    } catch (error) {
      throw networkFailure(error, where, timeoutMs, maxBytes);
    }
    const text = new TextDecoder('utf-8').decode(bytes);
    if (!/^\s*BEGIN:VCALENDAR\r?\n/i.test(text)) {
      const type = response.headers.get('content-type')?.split(';')[0]?.trim() || 'no content type';
      throw new CalendarBadResponseError(`Could not read ${where}: the answer is not an iCalendar file (${type}).`, response.status);
    }
    return text;
  }
}

/** `webcal://` and `webcals://` → `https://`; only http(s) otherwise. */
function httpUrlOf(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url.trim().replace(/^webcals?:\/\//i, 'https://'));
  } catch {
    throw new TypeError('The calendar feed URL is not a valid URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new TypeError('The calendar feed URL must be http(s) or webcal');
  parsed.hash = '';
  return parsed.href;
}

async function readBounded(response: Response, maxBytes: number, where: string): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(where, maxBytes);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

function tooLarge(where: string, maxBytes: number): CalendarTooLargeError {
  return new CalendarTooLargeError(`Could not read ${where}: it is larger than ${maxBytes} bytes.`);
}

function networkFailure(error: unknown, where: string, timeoutMs: number, maxBytes: number): CalendarError {
  if (error instanceof CalendarError) return error;
  // A guarded fetch bounds the body itself and says so with this code.
  if ((error as { code?: unknown } | null)?.code === 'ERR_RESPONSE_TOO_LARGE') return tooLarge(where, maxBytes);
  return new CalendarUnreachableError(`Could not read ${where}: ${describeNetworkFailure(error, timeoutMs)}.`);
}

function statusFailure(status: number, where: string): CalendarError {
  if (status === 401 || status === 403) {
    return new CalendarAuthError(`Could not read ${where}: access refused (HTTP ${status}); the secret address may have been reset.`, status);
  }
  if (status === 404 || status === 410) return new CalendarNotFoundError(`Could not read ${where}: no calendar at that address (HTTP ${status}).`, status);
  if (status === 429 || status >= 500) return new CalendarUnreachableError(`Could not read ${where}: the server answered HTTP ${status}; will try again later.`, status);
  return new CalendarBadResponseError(`Could not read ${where}: the server answered HTTP ${status}.`, status);
}
