import { type BusyInterval, type TimeRange, wallToInstant } from '../../calendars/busy-time.js';
import { CalendarBadResponseError } from '../../calendars/errors.js';
import type { CalendarProvider, CalendarWriter } from '../../calendars/provider.js';
import { busyWithin, prepareConnectionCalendar, readAllPages, readChangesSince, readMeetingCopy, remoteCalendarOf, withConnectionToken } from '../connection-calendar.js';
import { objectOf, optionalString, type ProviderClient } from '../http.js';
import { ProviderError } from '../ports.js';

/**
 * A Google Calendar on a host's Google connection (Calendar API v3,
 * developers.google.com/calendar/api/v3/reference/events). Busy time is `events.list` with
 * `singleEvents=true` (Google expands recurring series) between `timeMin` and `timeMax`, page
 * by page (`nextPageToken`); cancelled and free (`transparency: transparent`) events, events
 * the host declined, and termin's own events (its Meet rooms and meeting copies, marked with
 * `extendedProperties.private.termin`: they already block as meetings) are not busy. All-day
 * events block the host's local days. Meetings are written under an event id derived from
 * their invitation's UID (`events.update`, or `insert` the first time), always with
 * `sendUpdates=none`.
 *
 * The sync reads incrementally (developers.google.com/calendar/api/guides/sync): a full read
 * from the start of the window to twice its length ahead gives a `nextSyncToken` on its last
 * page; each later read sends only `syncToken` (no `timeMin`/`timeMax`/`showDeleted`, which
 * Google refuses beside it) and gets the events changed since, deleted ones as `cancelled`.
 * A 410 (the token expired or was invalidated) means a full read again, and so do a window
 * that has moved past what the full read covered and a host who changed zones (all-day events
 * are placed in the host's zone).
 */

/** Pages of 2 500 events read at most per sync: 100 000 events, far past any host's window. */
const MAX_PAGES = 40;

export function createGoogleCalendarProvider(api: ProviderClient): CalendarProvider {
  const label = api.label;
  return {
    type: 'google',
    connectionProvider: 'google',
    prepare(request) {
      return prepareConnectionCalendar('google', label, request, (calendarId) =>
        calendarId === '' || calendarId.length > 1024 || /[\u0000-\u001f\u007f]/.test(calendarId)
          ? 'must be a Google calendar id (`primary`, or an id like `team@group.calendar.google.com`)'
          : null,
      );
    },
    open(access, _secrets, _fetch, connection) {
      const calendarId = access.remoteCalendarId ?? access.url;
      const events = `/calendar/v3/calendars/${encodeURIComponent(calendarId)}/events`;
      const withToken = withConnectionToken(label, connection);
      const writer: CalendarWriter = {
        async putEvent(uid, icsText) {
          const id = googleCopyIdOf(uid);
          const body = { ...eventOfIcs(icsText), id, extendedProperties: { private: { termin: uid } } };
          const put = (accessToken: string) =>
            api.call('write an event', { method: 'PUT', path: `${events}/${encodeURIComponent(id)}?sendUpdates=none`, accessToken, json: body }, [200, 404]);
          await withToken(async (accessToken) => {
            if ((await put(accessToken)).status === 200) return;
            // Not there yet: insert it under its id (409: it exists after all, deleted or just made: update that).
            const inserted = await api.call('write an event', { method: 'POST', path: `${events}?sendUpdates=none`, accessToken, json: body }, [200, 409]);
            if (inserted.status === 409 && (await put(accessToken)).status !== 200)
              throw new ProviderError('Google write an event: the event can be neither made nor updated', true);
          });
        },
        async deleteEvent(uid) {
          const path = `${events}/${encodeURIComponent(googleCopyIdOf(uid))}?sendUpdates=none`;
          await withToken((accessToken) => api.call('remove an event', { method: 'DELETE', path, accessToken }, [200, 204, 404, 410]));
        },
      };
      return remoteCalendarOf(withToken, {
        listEvents: (accessToken, range) => listEvents(api, events, range, accessToken),
        busyOf: busyOfGoogleEvents,
        readChanges: (accessToken, state, range, hostZone) => readGoogleChanges(api, events, state, range, hostZone, accessToken),
        writer,
      });
    },
  };
}

/**
 * The changes since `state` (its token still valid, its window and zone still right), else a
 * full read: `{ full, events: [{ id, span }], state }`, each event's span as
 * `busySpanOfGoogleEvent` gives it. The state keeps the token and the full read's `timeMax`
 * (events starting later were not read, so a window reaching past it needs a full read again).
 */
function readGoogleChanges(api: ProviderClient, events: string, state: string | null, range: TimeRange, hostZone: string, accessToken: string) {
  return readChangesSince(state, range, hostZone, {
    cursorKey: 'syncToken',
    readSince: (syncToken) =>
      listPages(api, events, accessToken, (query) => {
        query.set('syncToken', syncToken);
        query.set('singleEvents', 'true');
        query.set('maxResults', '2500');
      }),
    readFull: (from, until) =>
      listPages(api, events, accessToken, (query) => {
        query.set('singleEvents', 'true');
        query.set('timeMin', new Date(from).toISOString());
        query.set('timeMax', new Date(until).toISOString());
        query.set('maxResults', '2500');
        query.set('showDeleted', 'false');
      }),
    changeOf: (item) => {
      const id = optionalString(objectOf(item), 'id');
      return id === null ? null : { id, span: busySpanOfGoogleEvent(item, hostZone) };
    },
    fullReadGone: 'Google read the calendar: a full read was refused as if it had a sync token (HTTP 410)',
  });
}

/** Every page of one `events.list` and the `nextSyncToken` of its last page; `gone` when Google answers 410 (the sync token is no longer valid). */
async function listPages(
  api: ProviderClient,
  events: string,
  accessToken: string,
  setQuery: (query: URLSearchParams) => void,
): Promise<{ items: unknown[]; cursor: string } | 'gone'> {
  const read = await readAllPages(api.label, MAX_PAGES, async (pageToken) => {
    const query = new URLSearchParams();
    setQuery(query);
    if (pageToken !== null) query.set('pageToken', pageToken);
    const answer = await api.call('read the calendar', { method: 'GET', path: `${events}?${query}`, accessToken }, [200, 410]);
    return answer.status === 410 ? 'gone' : eventPageOf(answer.body);
  });
  if (read === 'gone') return 'gone';
  if (read.last.syncToken === null) throw new CalendarBadResponseError('Google read the calendar: the last page has no nextSyncToken');
  return { items: read.items, cursor: read.last.syncToken };
}

async function listEvents(api: ProviderClient, events: string, range: TimeRange, accessToken: string): Promise<unknown[]> {
  const read = await readAllPages(api.label, MAX_PAGES, async (pageToken) => {
    const query = new URLSearchParams({
      singleEvents: 'true',
      timeMin: new Date(range.from).toISOString(),
      timeMax: new Date(range.to).toISOString(),
      maxResults: '2500',
      showDeleted: 'false',
    });
    if (pageToken !== null) query.set('pageToken', pageToken);
    return eventPageOf((await api.call('read the calendar', { method: 'GET', path: `${events}?${query}`, accessToken }, [200])).body);
  });
  return read.items;
}

/** One page of `events.list`: its events, the next page's token and (on the last page of a sync) the next sync token. */
function eventPageOf(answer: unknown): { items: unknown[]; next: string | null; syncToken: string | null } {
  const body = answer as { items?: unknown; nextPageToken?: unknown; nextSyncToken?: unknown } | undefined;
  if (!body || !Array.isArray(body.items)) throw new CalendarBadResponseError('Google read the calendar: the answer is not an event list');
  const token = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  return { items: body.items, next: token(body.nextPageToken), syncToken: token(body.nextSyncToken) };
}

/**
 * The busy time of Google events (as `events.list` with `singleEvents` gives them) within
 * `range`: `{ start: { dateTime: '2027-03-01T09:00:00+01:00' }, end: { dateTime: '…10:00…' } }`
 * → 08:00–09:00Z; `{ start: { date: '2027-03-02' }, end: { date: '2027-03-03' } }` in
 * Europe/Warsaw → 2027-03-01T23:00Z–2027-03-02T23:00Z. Cancelled, free, declined and termin's
 * own events are skipped, and so is an event whose times cannot be read.
 */
export function busyOfGoogleEvents(items: readonly unknown[], range: TimeRange, hostZone: string, ignoreUids?: ReadonlySet<string>): BusyInterval[] {
  return busyWithin(items, range, (item) => busySpanOfGoogleEvent(item, hostZone, ignoreUids));
}

/** The time one Google event blocks, whenever it is; null for an event that blocks nothing (see busyOfGoogleEvents). */
export function busySpanOfGoogleEvent(item: unknown, hostZone: string, ignoreUids?: ReadonlySet<string>): BusyInterval | null {
  const event = objectOf(item);
  if (!event) return null;
  if (event.status === 'cancelled' || event.transparency === 'transparent') return null;
  if (optionalString(objectOf(objectOf(event.extendedProperties)?.private), 'termin') !== null) return null;
  const uid = optionalString(event, 'iCalUID');
  if (uid !== null && ignoreUids?.has(uid)) return null;
  const self = Array.isArray(event.attendees) ? event.attendees.map(objectOf).find((attendee) => attendee?.self === true) : undefined;
  if (self?.responseStatus === 'declined') return null;
  const start = instantOf(event.start, hostZone);
  const end = instantOf(event.end, hostZone);
  if (start === null || end === null || end < start) return null;
  return { start, end };
}

/** `{ dateTime }` (an instant with its offset) or `{ date }` (an all-day date, the host's local midnight). */
function instantOf(value: unknown, hostZone: string): number | null {
  const time = objectOf(value);
  const dateTime = optionalString(time, 'dateTime');
  if (dateTime !== null) {
    const ms = Date.parse(dateTime);
    return Number.isNaN(ms) ? null : ms;
  }
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(optionalString(time, 'date') ?? '');
  return date ? wallToInstant(hostZone, Number(date[1]), Number(date[2]), Number(date[3]), 0, 0, 0) : null;
}

/**
 * The id termin writes a meeting's copy under: the invitation's UID in Google's base32hex
 * alphabet (`0-9`, `a-v`), so a retry or a move finds the same event:
 * `googleCopyIdOf('0190f3a2-7c1e-7b3d-9a4f-1c2d3e4f5a6b@termin')` → `terminm0190f3a27c1e7b3d9a4f1c2d3e4f5a6btermin`.
 */
export function googleCopyIdOf(uid: string): string {
  return `terminm${uid.toLowerCase().replace(/[^0-9a-v]/g, '')}`.slice(0, 1024);
}

/**
 * The Google event of termin's one-event invitation text (times in UTC, as termin renders
 * them). Without its UID as `iCalUID`: the event is written under termin's `id`, and Google's
 * events.insert says "the iCalUID and the id are not identical and only one of them should be
 * supplied at event creation time" (termin's copies are known by their private `termin`
 * property, not their iCalUID).
 */
function eventOfIcs(icsText: string): Record<string, unknown> {
  const { start, end, text } = readMeetingCopy(icsText);
  const status = text('status')?.toLowerCase();
  return {
    summary: text('summary') ?? 'Meeting',
    description: text('description'),
    location: text('location'),
    start: { dateTime: new Date(start).toISOString() },
    end: { dateTime: new Date(end).toISOString() },
    status: status === 'tentative' || status === 'cancelled' ? status : 'confirmed',
  };
}
