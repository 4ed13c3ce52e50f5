import { randomUUID } from 'node:crypto';
import { type BusyInterval, type TimeRange, wallToInstant } from '../../calendars/busy-time.js';
import { CalendarBadResponseError } from '../../calendars/errors.js';
import type { CalendarProvider, CalendarWriter } from '../../calendars/provider.js';
import { isValidTimeZone } from '../../domain/time-zones.js';
import { busyWithin, prepareConnectionCalendar, readAllPages, readChangesSince, readMeetingCopy, remoteCalendarOf, withConnectionToken } from '../connection-calendar.js';
import { objectOf, optionalString, type ProviderClient } from '../http.js';
import { GRAPH_IN_UTC, graphTime, REQUEST_ID_PROPERTY, TERMIN_TRANSACTION_PREFIX } from './client.js';

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
/** Graph answers times in UTC instead of the mailbox's zone. */
const HEADERS = GRAPH_IN_UTC;
/** Delta reads page by `odata.maxpagesize` (they take no `$top`). */
const DELTA_HEADERS = { prefer: `outlook.timezone="UTC", odata.maxpagesize=${PAGE_SIZE}` };
/** What is busy of `showAs`: everything but free and working elsewhere (`tentative`, `busy`, `oof`, `unknown` block). */
const NOT_BUSY = new Set(['free', 'workingElsewhere']);

export function createMicrosoftCalendarProvider(api: ProviderClient): CalendarProvider {
  const label = api.label;
  return {
    type: 'microsoft',
    connectionProvider: 'microsoft',
    prepare(request) {
      return prepareConnectionCalendar('microsoft', label, request, (calendarId) =>
        calendarId !== 'primary' && !/^[A-Za-z0-9=_+/-]{1,1024}$/.test(calendarId)
          ? 'must be a Microsoft Graph calendar id (`primary` for the default calendar, or an id like `AAMkAGI2…AAA=`)'
          : null,
      );
    },
    open(access, _secrets, _fetch, connection) {
      const calendarId = access.remoteCalendarId ?? access.url;
      const base = calendarId === 'primary' ? '/v1.0/me' : `/v1.0/me/calendars/${encodeURIComponent(calendarId)}`;
      const withToken = withConnectionToken(label, connection);
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
      return remoteCalendarOf(withToken, {
        listEvents: (accessToken, range) => listCalendarView(api, base, range, accessToken),
        busyOf: busyOfGraphEvents,
        readChanges: (accessToken, state, range, hostZone) => readGraphChanges(api, base, state, range, hostZone, accessToken),
        writer,
      });
    },
  };
}

/**
 * The changes since `state` (its delta link still known to Graph, its window and zone still
 * right), else a full delta read of a new window. The state keeps the delta link's path and
 * the end of its window (a booking window reaching past it needs a full read again).
 */
function readGraphChanges(api: ProviderClient, base: string, state: string | null, range: TimeRange, hostZone: string, accessToken: string) {
  return readChangesSince(state, range, hostZone, {
    cursorKey: 'deltaPath',
    readSince: (deltaPath) => readDeltaPages(api, deltaPath, accessToken),
    readFull: (from, until) => {
      const query = new URLSearchParams({ startDateTime: new Date(from).toISOString(), endDateTime: new Date(until).toISOString() });
      return readDeltaPages(api, `${base}/calendarView/delta?${query}`, accessToken);
    },
    changeOf: (item) => {
      const event = objectOf(item);
      const id = optionalString(event, 'id');
      if (id === null) return null;
      return { id, span: event?.['@removed'] !== undefined ? null : busySpanOfGraphEvent(item, hostZone) };
    },
    fullReadGone: 'Microsoft read the calendar: a new delta read was refused as expired',
  });
}

/** Graph's codes for a delta token it no longer knows (the sync must start over). */
const RESYNC_CODES = new Set(['syncstatenotfound', 'resyncrequired', 'syncstateinvalid']);

/** Every page of one delta round and the path of its `@odata.deltaLink`; `gone` when Graph no longer knows the token. */
async function readDeltaPages(api: ProviderClient, firstPath: string, accessToken: string): Promise<{ items: unknown[]; cursor: string } | 'gone'> {
  const read = await readAllPages(api.label, MAX_PAGES, async (path) => {
    const answer = await api.call('read the calendar', { method: 'GET', path: path ?? firstPath, accessToken, headers: DELTA_HEADERS }, [200, 400, 410]);
    if (answer.status !== 200) {
      const code = optionalString(objectOf(objectOf(answer.body)?.error), 'code')?.toLowerCase() ?? '';
      if (answer.status === 410 || RESYNC_CODES.has(code)) return 'gone';
      throw new CalendarBadResponseError(`Microsoft read the calendar: HTTP ${answer.status}${code === '' ? '' : ` ${code.slice(0, 60)}`}`, answer.status);
    }
    return eventPageOf(answer.body);
  });
  if (read === 'gone') return 'gone';
  const delta = nextPathOf(read.last.deltaLink);
  if (delta === null) throw new CalendarBadResponseError('Microsoft read the calendar: the last page has no delta link');
  return { items: read.items, cursor: delta };
}

async function listCalendarView(api: ProviderClient, base: string, range: TimeRange, accessToken: string): Promise<unknown[]> {
  const query = new URLSearchParams({
    startDateTime: new Date(range.from).toISOString(),
    endDateTime: new Date(range.to).toISOString(),
    $top: String(PAGE_SIZE),
    $select: 'id,start,end,isAllDay,showAs,isCancelled,responseStatus,iCalUId',
    $expand: `singleValueExtendedProperties($filter=id eq '${COPY_UID_PROPERTY}' or id eq '${REQUEST_ID_PROPERTY}')`,
  });
  const read = await readAllPages(api.label, MAX_PAGES, async (path) =>
    eventPageOf((await api.call('read the calendar', { method: 'GET', path: path ?? `${base}/calendarView?${query}`, accessToken, headers: HEADERS }, [200])).body),
  );
  return read.items;
}

/** One page of Graph events: its events, the next page's path, and (on the last page of a delta round) its delta link. */
function eventPageOf(answer: unknown): { items: unknown[]; next: string | null; deltaLink: unknown } {
  const body = answer as { value?: unknown; '@odata.nextLink'?: unknown; '@odata.deltaLink'?: unknown } | undefined;
  if (!body || !Array.isArray(body.value)) throw new CalendarBadResponseError('Microsoft read the calendar: the answer is not an event list');
  return { items: body.value, next: nextPathOf(body['@odata.nextLink']), deltaLink: body['@odata.deltaLink'] };
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
  return busyWithin(items, range, (item) => busySpanOfGraphEvent(item, hostZone, ignoreUids));
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
  const { start, end, text } = readMeetingCopy(icsText);
  const location = text('location');
  return {
    subject: (text('summary') ?? 'Meeting').slice(0, 255),
    body: { contentType: 'text', content: text('description') ?? '' },
    ...(location === undefined ? {} : { location: { displayName: location.slice(0, 255) } }),
    start: { dateTime: graphTime(start), timeZone: 'UTC' },
    end: { dateTime: graphTime(end), timeZone: 'UTC' },
    showAs: text('status')?.toLowerCase() === 'tentative' ? 'tentative' : 'busy',
    isReminderOn: false,
  };
}
