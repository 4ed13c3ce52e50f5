import ICAL from 'ical.js';
import type { BusyInterval, TimeRange } from '../calendars/busy-time.js';
import { CalendarAuthError, CalendarBadResponseError, CalendarError, CalendarNotFoundError, CalendarTooLargeError, CalendarUnreachableError } from '../calendars/errors.js';
import type { CalendarChanges, CalendarConnectRequest, CalendarConnection, CalendarWriter, ConnectionTokens, RemoteCalendar } from '../calendars/provider.js';
import type { ConnectionCalendarType } from '../calendars/registry.js';
import type { FieldError } from '../domain/errors.js';
import { isValidTimeZone } from '../domain/time-zones.js';
import { AccessTokenRejectedError, ProviderError } from './ports.js';

/**
 * What a calendar on a host's OAuth connection does the same whoever its vendor is (Google's
 * and Microsoft's, in google/calendar.ts and microsoft/calendar.ts): the connect request's
 * rules, calls made with the connection's token and their failures read as calendar errors,
 * listings read page by page, busy spans kept to the window, the incremental sync's state, and
 * termin's invitation text read back for a meeting's copy. The vendor says only what its API
 * calls things.
 */

/**
 * The checks and the stored form of a calendar on a connection: no URL or credentials of its
 * own, a connection required, and a calendar id by the vendor's rule (`calendarIdProblem`
 * answers why one is refused, or null), `primary` when none is named.
 */
export function prepareConnectionCalendar(
  type: ConnectionCalendarType,
  label: string,
  request: CalendarConnectRequest,
  calendarIdProblem: (calendarId: string) => string | null,
): { errors: FieldError[]; connection: CalendarConnection } {
  const errors: FieldError[] = [];
  for (const field of ['url', 'username', 'password'] as const) {
    if (request[field] !== undefined) errors.push({ path: `/${field}`, message: `is not for a ${label} calendar: it is reached through its connection` });
  }
  if (request.connection === undefined) errors.push({ path: '/connection', message: `is required for a ${label} calendar: the uuid of the host's ${label} connection` });
  const calendarId = (request.calendarId ?? 'primary').trim();
  const problem = calendarIdProblem(calendarId);
  if (problem !== null) errors.push({ path: '/calendarId', message: problem });
  return {
    errors,
    connection: {
      callUrl: null,
      displayUrl: `${type}:${calendarId}`,
      access: { url: calendarId, username: null, passwordSealed: null, remoteCalendarId: calendarId },
      writeMeetings: request.writeMeetings ?? false,
    },
  };
}

/** Runs a call with the connection's access token. */
export type WithToken = <T>(call: (accessToken: string) => Promise<T>) => Promise<T>;

/** Calls with the connection's token (refreshed as needed), their provider failures as the calendar errors the sync shows. */
export function withConnectionToken(label: string, connection: ConnectionTokens | null): WithToken {
  return async (call) => {
    if (connection === null) throw new CalendarAuthError(`This ${label} calendar has no connection any more: add it again on a ${label} connection.`);
    try {
      return await connection.withAccessToken(call);
    } catch (error) {
      throw calendarErrorOf(label, error);
    }
  };
}

/**
 * A provider's failure as the calendar errors the sync shows (`lastError`), never with a token.
 * A rate limit is told from a refusal before the status is: Google answers its rate limits
 * with 403 `rateLimitExceeded`/`userRateLimitExceeded` as well as 429 (the vendor's client
 * marks them retryable), and those are waited out until the next sync, not shown as access refused.
 */
function calendarErrorOf(label: string, error: unknown): unknown {
  if (error instanceof CalendarError || !(error instanceof ProviderError)) return error;
  if (error instanceof AccessTokenRejectedError || error.status === 401)
    return new CalendarAuthError(`${error.message}: the ${label} connection may not see this calendar`, error.status);
  if (error.retryable) {
    const limited = error.status === 429 || error.status === 403;
    return new CalendarUnreachableError(limited ? `${error.message}: rate limited by ${label}; the next sync tries again` : error.message, error.status);
  }
  if (error.status === 403) return new CalendarAuthError(`${error.message}: the ${label} connection may not see this calendar`, error.status);
  if (error.status === 404) return new CalendarNotFoundError(`${label} has no such calendar for this connection (check calendarId)`, 404);
  return new CalendarBadResponseError(error.message, error.status);
}

/** The vendor's side of an opened calendar: its raw events of a window, their busy time, its incremental read, its writer. */
export interface ConnectionCalendarReads {
  listEvents(accessToken: string, range: TimeRange): Promise<unknown[]>;
  busyOf(items: readonly unknown[], range: TimeRange, hostZone: string, ignoreUids?: ReadonlySet<string>): BusyInterval[];
  readChanges(accessToken: string, state: string | null, range: TimeRange, hostZone: string): Promise<CalendarChanges>;
  writer: CalendarWriter;
}

/** The opened calendar: each read checks the host's zone, then runs with the connection's token. */
export function remoteCalendarOf(withToken: WithToken, reads: ConnectionCalendarReads): RemoteCalendar {
  return {
    async readBusy(range, hostZone, options) {
      if (!isValidTimeZone(hostZone)) throw new RangeError(`Not an IANA time zone: ${hostZone}`);
      const items = await withToken((accessToken) => reads.listEvents(accessToken, range));
      return reads.busyOf(items, range, hostZone, options?.ignoreUids);
    },
    async readChanges(state, range, hostZone) {
      if (!isValidTimeZone(hostZone)) throw new RangeError(`Not an IANA time zone: ${hostZone}`);
      return withToken((accessToken) => reads.readChanges(accessToken, state, range, hostZone));
    },
    writer: reads.writer,
  };
}

/** One page of a listing: its items and where the next one is (null: this is the last). */
export interface ListingPage {
  items: unknown[];
  next: string | null;
}

/**
 * Every page of one listing, `readPage(cursor)` reading the page at `cursor` (null: the
 * first), and the last page as read; `gone` as soon as a page is (the provider no longer knows
 * the sync token the listing started from). More than `maxPages` pages is a
 * CalendarTooLargeError: no host's window holds that many events.
 */
export async function readAllPages<Page extends ListingPage>(
  label: string,
  maxPages: number,
  readPage: (cursor: string | null) => Promise<Page>,
): Promise<{ items: unknown[]; last: Page }>;
export async function readAllPages<Page extends ListingPage>(
  label: string,
  maxPages: number,
  readPage: (cursor: string | null) => Promise<Page | 'gone'>,
): Promise<{ items: unknown[]; last: Page } | 'gone'>;
export async function readAllPages<Page extends ListingPage>(
  label: string,
  maxPages: number,
  readPage: (cursor: string | null) => Promise<Page | 'gone'>,
): Promise<{ items: unknown[]; last: Page } | 'gone'> {
  const items: unknown[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < maxPages; page += 1) {
    const read = await readPage(cursor);
    if (read === 'gone') return 'gone';
    items.push(...read.items);
    if (read.next === null) return { items, last: read };
    cursor = read.next;
  }
  throw new CalendarTooLargeError(`${label} read the calendar: more than ${maxPages} pages of events in the booking window`);
}

/**
 * The busy spans of a vendor's events within `range`, earliest first: `spanOf` gives an
 * event's span wherever it is (null: it blocks nothing); a span overlapping the range is kept,
 * and so is an instant event inside it.
 */
export function busyWithin(items: readonly unknown[], range: TimeRange, spanOf: (item: unknown) => BusyInterval | null): BusyInterval[] {
  const busy: BusyInterval[] = [];
  for (const item of items) {
    const span = spanOf(item);
    if (span === null) continue;
    const { start, end } = span;
    if (end > range.from && start < range.to) busy.push(span);
    else if (start === end && start >= range.from && start < range.to) busy.push(span);
  }
  return busy.sort((a, b) => a.start - b.start || a.end - b.end);
}

/** A listing read to its end, and where the next incremental read starts (Google's sync token, Graph's delta link). */
export interface SyncRead {
  items: unknown[];
  cursor: string;
}

/** The vendor's side of the incremental sync. */
export interface SyncReads {
  /** The state's own name for the cursor (`syncToken`, `deltaPath`): states are stored, so it is never renamed. */
  cursorKey: string;
  /** What changed since `cursor`; `gone` when the provider has forgotten it. */
  readSince(cursor: string): Promise<SyncRead | 'gone'>;
  /** Every event from `from` to `until`; `gone` only when the provider misreads the request. */
  readFull(from: number, until: number): Promise<SyncRead | 'gone'>;
  /** An event read by its id, with its busy span (null: it blocks nothing, or no longer exists); null for an item without an id. */
  changeOf(item: unknown): { id: string; span: BusyInterval | null } | null;
  /** The CalendarBadResponseError's message when a full read comes back `gone`. */
  fullReadGone: string;
}

/**
 * The changes since `stateText` (what the last read returned) while its cursor is still known,
 * its window still covers `range` and the host's zone is the same (all-day events are placed
 * in it), else a full read of the window and as far again ahead, so a full read is needed
 * again only once the window has moved that far. The state is `{ <cursorKey>, zone, until }`.
 */
export async function readChangesSince(stateText: string | null, range: TimeRange, hostZone: string, sync: SyncReads): Promise<CalendarChanges> {
  const toChanges = async (items: unknown[], full: boolean, cursor: string, until: number): Promise<CalendarChanges> => {
    const events: CalendarChanges['events'] = [];
    for (let i = 0; i < items.length; i += 1) {
      // A full read of a big calendar is tens of thousands of events (25 000 took 60–250 ms to
      // map in one go): the event loop runs every 500, so other requests are answered meanwhile.
      if (i > 0 && i % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
      const change = sync.changeOf(items[i]);
      if (change !== null) events.push(change);
    }
    return { full, events, state: JSON.stringify({ [sync.cursorKey]: cursor, zone: hostZone, until }) };
  };
  const state = parseSyncState(stateText, sync.cursorKey);
  if (state !== null && state.zone === hostZone && state.until >= range.to) {
    const read = await sync.readSince(state.cursor);
    if (read !== 'gone') return toChanges(read.items, false, read.cursor, state.until);
  }
  const until = range.to + (range.to - range.from);
  const read = await sync.readFull(range.from, until);
  if (read === 'gone') throw new CalendarBadResponseError(sync.fullReadGone);
  return toChanges(read.items, true, read.cursor, until);
}

function parseSyncState(state: string | null, cursorKey: string): { cursor: string; zone: string; until: number } | null {
  if (state === null) return null;
  try {
    const parsed = JSON.parse(state) as Record<string, unknown>;
    const cursor = parsed[cursorKey];
    return typeof cursor === 'string' && typeof parsed.zone === 'string' && typeof parsed.until === 'number' ? { cursor, zone: parsed.zone, until: parsed.until } : null;
  } catch {
    return null;
  }
}

/** termin's one-event invitation text, read back for a meeting's copy: its times (instants) and its text properties. */
export function readMeetingCopy(icsText: string): { start: number; end: number; text: (name: string) => string | undefined } {
  const vevent = new ICAL.Component(ICAL.parse(icsText)).getFirstSubcomponent('vevent');
  const start = vevent?.getFirstPropertyValue('dtstart');
  const end = vevent?.getFirstPropertyValue('dtend');
  if (!vevent || !(start instanceof ICAL.Time) || !(end instanceof ICAL.Time)) throw new CalendarBadResponseError('a meeting copy without its times');
  return {
    start: start.toJSDate().getTime(),
    end: end.toJSDate().getTime(),
    text: (name) => {
      const value = vevent.getFirstPropertyValue(name);
      return typeof value === 'string' ? value : undefined;
    },
  };
}
