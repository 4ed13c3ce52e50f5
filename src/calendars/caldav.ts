import { createHash } from 'node:crypto';
import { calendarQuery, deleteObject, updateObject, type DAVResponse } from 'tsdav';
import type { FieldError } from '../domain/errors.js';
import { extractBusyIntervals, type BusyInterval, type BusyOptions, type TimeRange } from './busy-time.js';
import { CalendarAuthError, CalendarBadResponseError, CalendarError, CalendarNotFoundError, CalendarUnreachableError, describeNetworkFailure } from './errors.js';
import { type CalendarProvider, openCalendarSecret } from './provider.js';

/**
 * A CalDAV calendar collection: read for busy time and, with `writeMeetings`, written with
 * the host's meetings. Connecting takes the collection URL, a username and a password (or
 * app password), which is stored sealed.
 */
export const caldavProvider: CalendarProvider = {
  type: 'caldav',
  prepare(request, secrets) {
    const errors: FieldError[] = [];
    if (request.username === undefined) errors.push({ path: '/username', message: 'is required for a CalDAV calendar' });
    if (request.password === undefined) errors.push({ path: '/password', message: 'is required for a CalDAV calendar' });
    if (request.url === undefined) errors.push({ path: '/url', message: 'is required for a CalDAV calendar' });
    const url = (request.url ?? '').trim();
    return {
      errors,
      connection: {
        callUrl: request.url === undefined ? null : url,
        displayUrl: url,
        access: { url, username: request.username ?? null, passwordSealed: request.password === undefined ? null : secrets.seal(request.password) },
        writeMeetings: request.writeMeetings ?? false,
      },
    };
  },
  open(access, secrets, fetch) {
    const password =
      access.passwordSealed === null
        ? ''
        : openCalendarSecret(secrets, access.passwordSealed, "the CalDAV calendar's password", 'remove the calendar and add it again with its password');
    const calendar = createCaldavCalendar({ url: access.url, username: access.username ?? '', password, fetch });
    return { readBusy: (range, hostZone, options) => calendar.fetchBusy(range, hostZone, options), writer: calendar };
  },
};

export const DEFAULT_CALDAV_TIMEOUT_MS = 10_000;

export interface CaldavCalendarOptions {
  /** The calendar collection, e.g. `https://dav.example.com/alice/work/`. */
  url: string;
  username: string;
  password: string;
  /**
   * Every request goes through this (tsdav takes it as its `fetch` option); the service
   * passes its SSRF-guarded fetch. Defaults to the global fetch.
   */
  fetch?: typeof fetch | undefined;
  /** Per request, connect to last byte; 10 s by default. */
  timeoutMs?: number | undefined;
}

export interface CaldavCalendar {
  /** Busy time of the calendar within the range (see extractBusyIntervals). */
  fetchBusy(range: TimeRange, defaultZone: string, options?: BusyOptions): Promise<BusyInterval[]>;
  /** Creates or replaces the event stored under this UID (no If-Match: termin owns it). */
  putEvent(uid: string, icsText: string): Promise<void>;
  /** Removes the event stored under this UID; one already gone is not an error. */
  deleteEvent(uid: string): Promise<void>;
}

/**
 * A host's CalDAV calendar collection behind the three calls termin needs. Reads are one
 * calendar-query REPORT with a time range (the server picks the objects with an
 * occurrence in the range, recurring or not; extractBusyIntervals reads them exactly);
 * writes address `<collection>/<uid>.ics`. Failures throw CalendarError subclasses whose
 * messages name the collection and the HTTP status, never the password.
 *
 * @example
 * const calendar = createCaldavCalendar({ url: 'https://dav.example.com/alice/work/', username: 'alice', password });
 * await calendar.putEvent(`${meeting.uuid}@termin`, renderMeetingEvent(event));
 * await calendar.fetchBusy({ from, to }, 'Europe/Warsaw'); // → [{ start, end }, …]
 */
export function createCaldavCalendar(options: CaldavCalendarOptions): CaldavCalendar {
  const collection = collectionUrlOf(options.url);
  const where = `the CalDAV calendar ${displayUrl(collection)}`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_CALDAV_TIMEOUT_MS;
  const authorization = `Basic ${Buffer.from(`${options.username}:${options.password}`, 'utf8').toString('base64')}`;
  const baseFetch = options.fetch ?? globalThis.fetch;
  // A redirect is reported, not followed: the credentials must not travel to a URL nobody configured.
  const fetchOptions = (): RequestInit => ({ signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });

  /**
   * Runs one tsdav call with a fetch that remembers the HTTP answer: tsdav reports a
   * failed query as a bare Error with the status inside its text, so the status is read
   * here instead, and turned into the right CalendarError.
   */
  async function send<T>(action: string, call: (fetch: typeof globalThis.fetch) => Promise<T>): Promise<T> {
    let answer: { status: number; location: string | null } | undefined;
    const tracking: typeof globalThis.fetch = async (input, init) => {
      const response = await baseFetch(input, init);
      answer = { status: response.status, location: response.headers.get('location') };
      return response;
    };
    const fail = (status: number, location: string | null) => failure(status, location, `${action} ${where}`, collection);
    let result: T;
    try {
      result = await call(tracking);
    } catch (error) {
      if (error instanceof CalendarError) throw error;
      if (answer && (answer.status < 200 || answer.status >= 300)) throw fail(answer.status, answer.location);
      if (answer)
        throw new CalendarBadResponseError(`Could not ${action} ${where}: the server's answer could not be read (${describeNetworkFailure(error, timeoutMs)}).`, answer.status);
      throw new CalendarUnreachableError(`Could not ${action} ${where}: ${describeNetworkFailure(error, timeoutMs)}.`);
    }
    if (answer && (answer.status < 200 || answer.status >= 300) && !(action.startsWith('delete') && (answer.status === 404 || answer.status === 410))) {
      throw fail(answer.status, answer.location);
    }
    return result;
  }

  return {
    async fetchBusy(range, defaultZone, options = {}) {
      const responses = await send('read', (fetch) =>
        calendarQuery({
          url: collection,
          depth: '1',
          props: { 'd:getetag': {}, 'c:calendar-data': {} },
          filters: [
            {
              'comp-filter': {
                _attributes: { name: 'VCALENDAR' },
                'comp-filter': {
                  _attributes: { name: 'VEVENT' },
                  'time-range': { _attributes: { start: caldavUtc(range.from), end: caldavUtc(range.to) } },
                },
              },
            },
          ],
          headers: { authorization },
          fetchOptions: fetchOptions(),
          fetch,
        }),
      );
      const busy: BusyInterval[] = [];
      for (const text of calendarDataOf(responses, where)) {
        try {
          busy.push(...extractBusyIntervals(text, range, defaultZone, options));
        } catch (error) {
          // One unreadable object must not hide the rest of the calendar.
          if (!(error instanceof CalendarBadResponseError)) throw error;
        }
      }
      return busy.sort((a, b) => a.start - b.start || a.end - b.end);
    },

    async putEvent(uid, icsText) {
      await send('write an event to', async (fetch) => {
        const response = await updateObject({
          url: eventUrl(collection, uid),
          data: icsText,
          headers: { authorization, 'content-type': 'text/calendar; charset=utf-8' },
          fetchOptions: fetchOptions(),
          fetch,
        });
        await response.arrayBuffer();
      });
    },

    async deleteEvent(uid) {
      await send('delete an event from', async (fetch) => {
        const response = await deleteObject({ url: eventUrl(collection, uid), headers: { authorization }, fetchOptions: fetchOptions(), fetch });
        await response.arrayBuffer();
      });
    },
  };
}

/**
 * The name an event is stored under in the collection: the UID itself when it is made of
 * URL- and file-safe characters (`5b0c…@termin` → `5b0c…@termin.ics`), otherwise its
 * SHA-256 in hex, so any UID maps to one stable name.
 */
export function eventFileName(uid: string): string {
  const name = /^[A-Za-z0-9][A-Za-z0-9@._-]{0,199}$/.test(uid) ? uid : createHash('sha256').update(uid, 'utf8').digest('hex');
  return `${name}.ics`;
}

function eventUrl(collection: string, uid: string): string {
  return new URL(eventFileName(uid), collection).href;
}

function collectionUrlOf(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError('The CalDAV calendar URL is not a valid URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new TypeError('The CalDAV calendar URL must be http(s)');
  if (parsed.username || parsed.password) throw new TypeError('The CalDAV calendar URL must not carry credentials');
  parsed.hash = '';
  if (!parsed.pathname.endsWith('/')) parsed.pathname += '/';
  return parsed.href;
}

/** Origin and path (the collection's path names the calendar, not a secret); no query. */
function displayUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/** `20270301T000000Z`, the form CalDAV's time-range wants. */
function caldavUtc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace(/[-:]/g, '')}Z`;
}

/** The calendar texts of a calendar-query answer (tsdav answers [] for an empty multistatus). */
function calendarDataOf(responses: DAVResponse[], where: string): string[] {
  const texts: string[] = [];
  for (const response of responses) {
    const raw = response.raw as { multistatus?: unknown } | undefined;
    if (typeof raw !== 'object' || raw === null || !('multistatus' in raw)) {
      throw new CalendarBadResponseError(
        `Could not read ${where}: the answer to a calendar query was not a WebDAV multistatus (HTTP ${response.status ?? '?'}); is this a CalDAV collection URL?`,
        response.status,
      );
    }
    if (!response.ok) continue;
    const data = (response.props as { calendarData?: unknown } | undefined)?.calendarData;
    const text = typeof data === 'string' ? data : typeof data === 'object' && data !== null && '_cdata' in data ? String(data._cdata) : undefined;
    if (text) texts.push(text);
  }
  return texts;
}

/** The error an unexpected HTTP status stands for. */
function failure(status: number, location: string | null, action: string, base: string | undefined): CalendarError {
  const what = `Could not ${action}`;
  if (status === 401 || status === 403) {
    return new CalendarAuthError(`${what}: the server refused the username or password, or this user may not use the calendar (HTTP ${status}).`, status);
  }
  if (status === 404 || status === 410 || status === 409) {
    return new CalendarNotFoundError(`${what}: there is no calendar collection at that URL (HTTP ${status}).`, status);
  }
  if (status === 429 || status >= 500) return new CalendarUnreachableError(`${what}: the server answered HTTP ${status}; will try again later.`, status);
  if (status >= 300 && status < 400) {
    let target = '';
    try {
      if (location) target = ` to ${displayUrl(new URL(location, base).href)}`;
    } catch {
      // An unparsable Location is reported without it.
    }
    return new CalendarBadResponseError(`${what}: the server redirects${target} (HTTP ${status}); configure the final calendar URL.`, status);
  }
  return new CalendarBadResponseError(`${what}: the server answered HTTP ${status}.`, status);
}
