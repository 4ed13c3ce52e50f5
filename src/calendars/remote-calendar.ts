import type { BusyInterval, BusyOptions, TimeRange } from './busy-time.js';
import { extractBusyIntervals } from './busy-time.js';
import { createCaldavCalendar, type CaldavCalendar } from './caldav.js';
import { CalendarError } from './errors.js';
import { fetchIcsText } from './ics-url.js';

/** A connected calendar with its secrets opened, for the moment of one call. */
export type RemoteCalendarAccess =
  | { type: 'caldav'; url: string; username: string; password: string }
  | { type: 'ics'; url: string };

/** Most spans one calendar may store; the earliest are kept (a hostile feed cannot fill the database). */
export const MAX_SPANS_PER_CALENDAR = 5_000;

/**
 * The busy time of a remote calendar within the range, through the given (guarded) fetch.
 * Throws CalendarError subclasses (and OutboundError's messages inside them).
 */
export async function readRemoteBusy(
  access: RemoteCalendarAccess,
  range: TimeRange,
  hostZone: string,
  fetch: typeof globalThis.fetch,
  options: BusyOptions = {},
): Promise<BusyInterval[]> {
  if (access.type === 'caldav') return caldavOf(access, fetch).fetchBusy(range, hostZone, options);
  const text = await fetchIcsText(access.url, { fetch });
  return extractBusyIntervals(text, range, hostZone, options);
}

export function caldavOf(access: Extract<RemoteCalendarAccess, { type: 'caldav' }>, fetch: typeof globalThis.fetch): CaldavCalendar {
  return createCaldavCalendar({ url: access.url, username: access.username, password: access.password, fetch });
}

/**
 * Busy intervals as the spans to store: zero-length ones dropped (they block no time),
 * overlapping and touching ones merged (a slot overlaps the union exactly when it overlaps
 * one of them), at most MAX_SPANS_PER_CALENDAR.
 *
 * `[{9–10}, {10–11}, {10:30–10:30}, {12–13}]` → `[{9–11}, {12–13}]`
 */
export function toStoredSpans(intervals: readonly BusyInterval[], max = MAX_SPANS_PER_CALENDAR): BusyInterval[] {
  const sorted = intervals.filter((i) => i.end > i.start).sort((a, b) => a.start - b.start || a.end - b.end);
  const merged: BusyInterval[] = [];
  for (const interval of sorted) {
    const last = merged[merged.length - 1];
    if (last && interval.start <= last.end) last.end = Math.max(last.end, interval.end);
    else if (merged.length < max) merged.push({ start: interval.start, end: interval.end });
    else break;
  }
  return merged;
}

/**
 * A sync or write failure in words an operator can act on, never a secret: calendar errors
 * and the outbound guard's messages are written that way; anything else is not shown.
 */
export function describeCalendarFailure(error: unknown): string {
  if (error instanceof CalendarError) return error.message;
  if (error instanceof TypeError && /calendar|URL/i.test(error.message) && !/[?@]/.test(error.message)) return error.message;
  if (error instanceof Error && error.name === 'SecretUnreadableError') return error.message;
  return 'The calendar could not be read: an unexpected error (see the service log).';
}
