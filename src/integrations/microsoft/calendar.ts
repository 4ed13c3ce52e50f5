import { randomUUID } from 'node:crypto';
import ICAL from 'ical.js';
import { optionalString, type ProviderClient } from '../http.js';
import { REQUEST_ID_PROPERTY, TERMIN_TRANSACTION_PREFIX } from './client.js';
import { AccessTokenRejectedError, ProviderError } from '../ports.js';
import type { FieldError } from '../../domain/errors.js';
import { isValidTimeZone } from '../../domain/time-zones.js';
import { type BusyInterval, type TimeRange, wallToInstant } from '../../calendars/busy-time.js';
import { CalendarAuthError, CalendarBadResponseError, CalendarError, CalendarNotFoundError, CalendarTooLargeError, CalendarUnreachableError } from '../../calendars/errors.js';
import type { CalendarChanges, CalendarProvider, CalendarWriter } from '../../calendars/provider.js';

/**
 * An Outlook calendar on a host's Microsoft connection (Microsoft Graph v1.0,
 * learn.microsoft.com/graph/api/user-list-calendarview). Busy time is `calendarView` between
 * `startDateTime` and `endDateTime` (Graph expands recurring series into their occurrences),
 * page by page (`@odata.nextLink`), with times in UTC (`Prefer: outlook.timezone="UTC"`).
 * Not busy: `showAs: free` and `workingElsewhere` (the host is working, just elsewhere: Outlook
 * shows them as available to schedulers too), cancelled (`isCancelled`) and declined events, and
 * termin's own: its Teams rooms and meeting copies, marked with single-value extended
 * properties, which block as meetings already. All-day events block the host's local days.
 *
 * Meetings are written as events without attendees (Graph sends no invitation then), marked with
 * their invitation's UID in an extended property; a move or a removal finds them by it
 * (`$filter` on the property), so no remote id has to be stored and a lost answer to a POST is
 * found, not made twice, on the next attempt. They also carry a `transactionId` starting with
 * `termin-`, as the Teams rooms do: the one mark a delta read shows.
 *
 * The sync reads incrementally (learn.microsoft.com/graph/delta-query-events): a full read is
 * `calendarView/delta` over the window and as far again ahead, page by page
 * (`@odata.nextLink`), whose last page gives an `@odata.deltaLink`; each later read follows
 * the stored delta link (the window is in it) and gets what changed since, a deleted event as
 * `{ id, "@removed": { reason } }`. A 410, or `syncStateNotFound` / `resyncRequired` (the
 * token expired), means a full read again, and so do a window that has moved past the one the
 * delta link covers and a host who changed zones.
 */

/** The extended property holding the UID of the meeting an event is termin's copy of (same GUID namespace as the Teams rooms' request id). */
export const COPY_UID_PROPERTY = 'String {1f0c8a52-7d3b-4c1e-9a64-3b6f2d9e8c17} Name terminMeetingUid';

/** Events per page asked for, and pages read at most per sync: 100 000 events, far past any host's window. */
const PAGE_SIZE = 500;
const MAX_PAGES = 200;
/** Graph answers times in this zone instead of the mailbox's. */
const HEADERS = { prefer: 'outlook.timezone="UTC"' };
/** Delta reads page by `odata.maxpagesize` (they take no `$top`). */
const DELTA_HEADERS = { prefer: `outlook.timezone="UTC", odata.maxpagesize=${PAGE_SIZE}` };
/** What is busy of `showAs`: everything but free and working elsewhere (`tentative`, `busy`, `oof`, `unknown` block). */
const NOT_BUSY = new Set(['free', 'workingElsewhere']);

export function createMicrosoftCalendarProvider(api: ProviderClient): CalendarProvider {
  return {
    type: 'microsoft',
    connectionProvider: 'microsoft',
    prepare(request) {
      const errors: FieldError[] = [];
      for (const field of ['url', 'username', 'password'] as const) {
        if (request[field] !== undefined) errors.push({ path: `/${field}`, message: 'is not for a Microsoft calendar: it is reached through its connection' });
      }
      if (request.connection === undefined) errors.push({ path: '/connection', message: "is required for a Microsoft calendar: the uuid of the host's Microsoft connection" });
      const calendarId = (request.calendarId ?? 'primary').trim();
      if (calendarId !== 'primary' && !/^[A-Za-z0-9=_+/-]{1,1024}$/.test(calendarId)) {
        errors.push({ path: '/calendarId', message: 'must be a Microsoft Graph calendar id (`primary` for the default calendar, or an id like `AAMkAGI2…AAA=`)' });
      }
      return {
        errors,
        connection: {
          callUrl: null,
          displayUrl: `microsoft:${calendarId}`,
          access: { url: calendarId, username: null, passwordSealed: null, remoteCalendarId: calendarId },
          writeMeetings: request.writeMeetings ?? false,
        },
      };
    },
    open(access, _secrets, _fetch, connection) {
      const calendarId = access.remoteCalendarId ?? access.url;
      const base = calendarId === 'primary' ? '/v1.0/me' : `/v1.0/me/calendars/${encodeURIComponent(calendarId)}`;
      const withToken = async <T>(call: (accessToken: string) => Promise<T>): Promise<T> => {
        if (connection === null) throw new CalendarAuthError('This Microsoft calendar has no connection any more: add it again on a Microsoft connection.');
        try {
          return await connection.withAccessToken(call);
        } catch (error) {
          throw calendarErrorOf(error);
        }
      };
      /** The ids of termin's copies of the meeting with this UID (one, unless an earlier answer was lost at the wrong moment). */
      const findCopies = async (accessToken: string, uid: string): Promise<string[]> => {
        const filter = `singleValueExtendedProperties/any(ep: ep/id eq '${COPY_UID_PROPERTY}' and ep/value eq '${uid.replaceAll("'", "''")}')`;
        const path = `${base}/events?$filter=${encodeURIComponent(filter)}&$select=id`;
        const answer = await api.call('find an event', { method: 'GET', path, accessToken, headers: HEADERS }, [200]);
        const value = (answer.body as { value?: unknown } | undefined)?.value;
        if (!Array.isArray(value)) throw new CalendarBadResponseError('Microsoft find an event: the answer is not an event list');
        return value.map((event) => optionalString(event, 'id')).filter((id): id is string => id !== null);
      };
      const eventPath = (id: string) => `/v1.0/me/events/${encodeURIComponent(id)}`;
      const writer: CalendarWriter = {
        async putEvent(uid, icsText) {
          const event = eventOfIcs(icsText);
          await withToken(async (accessToken) => {
            const [first, ...extra] = await findCopies(accessToken, uid);
            for (const id of extra) await api.call('remove an event', { method: 'DELETE', path: eventPath(id), accessToken }, [204, 404]);
            if (first !== undefined) {
              const moved = await api.call('write an event', { method: 'PATCH', path: eventPath(first), accessToken, json: event, headers: HEADERS }, [200, 404]);
              if (moved.status === 200) return;
            }
            // Not there (or deleted by the host meanwhile): made anew, marked so the next write finds it.
            const json = { ...event, transactionId: `${TERMIN_TRANSACTION_PREFIX}copy-${randomUUID()}`, singleValueExtendedProperties: [{ id: COPY_UID_PROPERTY, value: uid }] };
            await api.call('write an event', { method: 'POST', path: `${base}/events`, accessToken, json, headers: HEADERS }, [201]);
          });
        },
        async deleteEvent(uid) {
          await withToken(async (accessToken) => {
            for (const id of await findCopies(accessToken, uid)) {
              await api.call('remove an event', { method: 'DELETE', path: eventPath(id), accessToken }, [204, 404]);
            }
          });
        },
      };
      return {
        async readBusy(range, hostZone, options) {
          if (!isValidTimeZone(hostZone)) throw new RangeError(`Not an IANA time zone: ${hostZone}`);
          const items = await withToken((accessToken) => listCalendarView(api, base, range, accessToken));
          return busyOfGraphEvents(items, range, hostZone, options?.ignoreUids);
        },
        async readChanges(state, range, hostZone) {
          if (!isValidTimeZone(hostZone)) throw new RangeError(`Not an IANA time zone: ${hostZone}`);
          return withToken((accessToken) => readGraphChanges(api, base, parseSyncState(state), range, hostZone, accessToken));
        },
        writer,
      };
    },
  };
}

/** What a Microsoft calendar's sync keeps between reads: the delta link, and the window and zone of the full read it descends from. */
interface GraphSyncState {
  deltaPath: string;
  zone: string;
  /** The end of the delta's window: a booking window reaching past it needs a full read again. */
  until: number;
}

function parseSyncState(state: string | null): GraphSyncState | null {
  if (state === null) return null;
  try {
    const parsed = JSON.parse(state) as Partial<GraphSyncState>;
    return typeof parsed.deltaPath === 'string' && typeof parsed.zone === 'string' && typeof parsed.until === 'number' ? (parsed as GraphSyncState) : null;
  } catch {
    return null;
  }
}

/** The changes since `state` (its delta link still known to Graph, its window and zone still right), else a full delta read of a new window. */
async function readGraphChanges(
  api: ProviderClient,
  base: string,
  state: GraphSyncState | null,
  range: TimeRange,
  hostZone: string,
  accessToken: string,
): Promise<CalendarChanges> {
  const toChanges = (items: unknown[], full: boolean, deltaPath: string, until: number): CalendarChanges => ({
    full,
    events: items.flatMap((item) => {
      const event = objectOf(item);
      const id = optionalString(event, 'id');
      if (id === null) return [];
      return [{ id, span: event?.['@removed'] !== undefined ? null : busySpanOfGraphEvent(item, hostZone) }];
    }),
    state: JSON.stringify({ deltaPath, zone: hostZone, until } satisfies GraphSyncState),
  });
  if (state !== null && state.zone === hostZone && state.until >= range.to) {
    const read = await readDeltaPages(api, state.deltaPath, accessToken);
    if (read !== 'gone') return toChanges(read.items, false, read.deltaPath, state.until);
  }
  // The window and as far again ahead: a full read is needed again only once the window has moved that far.
  const until = range.to + (range.to - range.from);
  const query = new URLSearchParams({ startDateTime: new Date(range.from).toISOString(), endDateTime: new Date(until).toISOString() });
  const read = await readDeltaPages(api, `${base}/calendarView/delta?${query}`, accessToken);
  if (read === 'gone') throw new CalendarBadResponseError('Microsoft read the calendar: a new delta read was refused as expired');
  return toChanges(read.items, true, read.deltaPath, until);
}

/** Graph's codes for a delta token it no longer knows (the sync must start over). */
const RESYNC_CODES = new Set(['syncstatenotfound', 'resyncrequired', 'syncstateinvalid']);

/** Every page of one delta round and the path of its `@odata.deltaLink`; `gone` when Graph no longer knows the token. */
async function readDeltaPages(api: ProviderClient, firstPath: string, accessToken: string): Promise<{ items: unknown[]; deltaPath: string } | 'gone'> {
  let path = firstPath;
  const items: unknown[] = [];
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const answer = await api.call('read the calendar', { method: 'GET', path, accessToken, headers: DELTA_HEADERS }, [200, 400, 410]);
    if (answer.status !== 200) {
      const code = optionalString(objectOf(objectOf(answer.body)?.error), 'code')?.toLowerCase() ?? '';
      if (answer.status === 410 || RESYNC_CODES.has(code)) return 'gone';
      throw new CalendarBadResponseError(`Microsoft read the calendar: HTTP ${answer.status}${code === '' ? '' : ` ${code.slice(0, 60)}`}`, answer.status);
    }
    const body = answer.body as { value?: unknown; '@odata.nextLink'?: unknown; '@odata.deltaLink'?: unknown } | undefined;
    if (!body || !Array.isArray(body.value)) throw new CalendarBadResponseError('Microsoft read the calendar: the answer is not an event list');
    items.push(...body.value);
    const next = nextPathOf(body['@odata.nextLink']);
    if (next !== null) {
      path = next;
      continue;
    }
    const delta = nextPathOf(body['@odata.deltaLink']);
    if (delta === null) throw new CalendarBadResponseError('Microsoft read the calendar: the last page has no delta link');
    return { items, deltaPath: delta };
  }
  throw new CalendarTooLargeError(`Microsoft read the calendar: more than ${MAX_PAGES} pages of events in the booking window`);
}

async function listCalendarView(api: ProviderClient, base: string, range: TimeRange, accessToken: string): Promise<unknown[]> {
  const query = new URLSearchParams({
    startDateTime: new Date(range.from).toISOString(),
    endDateTime: new Date(range.to).toISOString(),
    $top: String(PAGE_SIZE),
    $select: 'id,start,end,isAllDay,showAs,isCancelled,responseStatus,iCalUId',
    $expand: `singleValueExtendedProperties($filter=id eq '${COPY_UID_PROPERTY}' or id eq '${REQUEST_ID_PROPERTY}')`,
  });
  let path: string | null = `${base}/calendarView?${query}`;
  const items: unknown[] = [];
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const answer = await api.call('read the calendar', { method: 'GET', path, accessToken, headers: HEADERS }, [200]);
    const body = answer.body as { value?: unknown; '@odata.nextLink'?: unknown } | undefined;
    if (!body || !Array.isArray(body.value)) throw new CalendarBadResponseError('Microsoft read the calendar: the answer is not an event list');
    items.push(...body.value);
    path = nextPathOf(body['@odata.nextLink']);
    if (path === null) return items;
  }
  throw new CalendarTooLargeError(`Microsoft read the calendar: more than ${MAX_PAGES} pages of events in the booking window`);
}

/**
 * The next page's path and query, read again under the configured Graph URL: a proxy's answer
 * names graph.microsoft.com, and the token never goes to a host the answer names.
 */
function nextPathOf(nextLink: unknown): string | null {
  if (typeof nextLink !== 'string' || nextLink === '') return null;
  let url: URL;
  try {
    url = new URL(nextLink);
  } catch {
    throw new CalendarBadResponseError('Microsoft read the calendar: the next page link is not a URL');
  }
  if (!url.pathname.startsWith('/v1.0/')) throw new CalendarBadResponseError('Microsoft read the calendar: the next page link is not a Graph v1.0 link');
  return url.pathname + url.search;
}

/**
 * The busy time of Graph events (as `calendarView` gives them, times in UTC) within `range`:
 * `{ start: { dateTime: '2027-03-01T08:00:00.0000000', timeZone: 'UTC' }, end: … }` →
 * 08:00Z–…; an all-day event (`isAllDay`, midnight to midnight) blocks its dates in the host's
 * zone: `2027-03-02T00:00:00` to `2027-03-03T00:00:00` in Europe/Warsaw →
 * 2027-03-01T23:00Z–2027-03-02T23:00Z. Free, working-elsewhere, cancelled, declined and
 * termin's own events are skipped, and so is an event whose times cannot be read.
 */
export function busyOfGraphEvents(items: readonly unknown[], range: TimeRange, hostZone: string, ignoreUids?: ReadonlySet<string>): BusyInterval[] {
  const busy: BusyInterval[] = [];
  for (const item of items) {
    const span = busySpanOfGraphEvent(item, hostZone, ignoreUids);
    if (span === null) continue;
    const { start, end } = span;
    if (end > range.from && start < range.to) busy.push(span);
    else if (start === end && start >= range.from && start < range.to) busy.push(span);
  }
  return busy.sort((a, b) => a.start - b.start || a.end - b.end);
}

/** The time one Graph event blocks, whenever it is; null for one that blocks nothing (see busyOfGraphEvents), termin's own known by its extended property or its `transactionId`. */
export function busySpanOfGraphEvent(item: unknown, hostZone: string, ignoreUids?: ReadonlySet<string>): BusyInterval | null {
  const event = objectOf(item);
  if (!event) return null;
  if (event.isCancelled === true || NOT_BUSY.has(String(event.showAs))) return null;
  if (objectOf(event.responseStatus)?.response === 'declined') return null;
  const properties = Array.isArray(event.singleValueExtendedProperties) ? event.singleValueExtendedProperties.map(objectOf) : [];
  if (properties.some((property) => property?.id === COPY_UID_PROPERTY || property?.id === REQUEST_ID_PROPERTY)) return null;
  if (optionalString(event, 'transactionId')?.startsWith(TERMIN_TRANSACTION_PREFIX)) return null;
  const uid = optionalString(event, 'iCalUId');
  if (uid !== null && ignoreUids?.has(uid)) return null;
  const allDay = event.isAllDay === true;
  const start = instantOf(event.start, allDay, hostZone);
  const end = instantOf(event.end, allDay, hostZone);
  if (start === null || end === null || end < start) return null;
  return { start, end };
}

/** A Graph `dateTimeTimeZone` in UTC (as asked for) or an IANA zone; an all-day event's date at the host's local midnight. */
function instantOf(value: unknown, allDay: boolean, hostZone: string): number | null {
  const time = objectOf(value);
  const parts = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?$/.exec(optionalString(time, 'dateTime') ?? '');
  if (!parts) return null;
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (allDay) return wallToInstant(hostZone, year, month, day, 0, 0, 0);
  const zone = optionalString(time, 'timeZone') ?? 'UTC';
  if (zone === 'UTC') return Date.UTC(year, month - 1, day, hour, minute, second);
  // Prefer ignored by a proxy: an IANA zone still reads; a Windows zone name does not, and the event is skipped rather than misplaced.
  return isValidTimeZone(zone) ? wallToInstant(zone, year, month, day, hour, minute, second) : null;
}

/** The Graph event of termin's one-event invitation text (times in UTC, as termin renders them); no attendees, so Graph sends no invitation. */
function eventOfIcs(icsText: string): Record<string, unknown> {
  const vevent = new ICAL.Component(ICAL.parse(icsText)).getFirstSubcomponent('vevent');
  const start = vevent?.getFirstPropertyValue('dtstart');
  const end = vevent?.getFirstPropertyValue('dtend');
  if (!vevent || !(start instanceof ICAL.Time) || !(end instanceof ICAL.Time)) throw new CalendarBadResponseError('a meeting copy without its times');
  const text = (name: string) => {
    const value = vevent.getFirstPropertyValue(name);
    return typeof value === 'string' ? value : undefined;
  };
  const location = text('location');
  return {
    subject: (text('summary') ?? 'Meeting').slice(0, 255),
    body: { contentType: 'text', content: text('description') ?? '' },
    ...(location === undefined ? {} : { location: { displayName: location.slice(0, 255) } }),
    start: { dateTime: graphTime(start.toJSDate().getTime()), timeZone: 'UTC' },
    end: { dateTime: graphTime(end.toJSDate().getTime()), timeZone: 'UTC' },
    showAs: text('status')?.toLowerCase() === 'tentative' ? 'tentative' : 'busy',
    isReminderOn: false,
  };
}

/** `2027-03-29T07:00:00.0000000`: Graph's dateTime, read in the zone named beside it (UTC here). */
function graphTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}.0000000`;
}

/** A provider's failure as the calendar errors the sync shows (`lastError`), never with a token. */
function calendarErrorOf(error: unknown): unknown {
  if (error instanceof CalendarError || !(error instanceof ProviderError)) return error;
  if (error instanceof AccessTokenRejectedError || error.status === 401 || error.status === 403)
    return new CalendarAuthError(`${error.message}: the Microsoft connection may not see this calendar`, error.status);
  if (error.status === 404) return new CalendarNotFoundError('Microsoft has no such calendar for this connection (check calendarId)', 404);
  if (error.retryable) return new CalendarUnreachableError(error.message, error.status);
  return new CalendarBadResponseError(error.message, error.status);
}

function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
