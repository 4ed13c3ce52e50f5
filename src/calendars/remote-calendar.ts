import type { BusyInterval } from './busy-time.js';
import { SecretUnreadableError } from '../domain/errors.js';
import { CalendarError } from './errors.js';

/**
 * Most spans one calendar stores. Not a limit a real calendar meets: the spans are merged and
 * kept to the sync window, so a calendar of 25 000 separate events over a 90-day window stores
 * 25 000; Google's and Microsoft's reads stop at 100 000 events anyway (their page limits).
 * What it bounds is a hostile or broken feed (an iCalendar rule every minute expands to half a
 * million occurrences in a year): some 100 000 rows, a few MB, per calendar. (The API's
 * description of a calendar's `status` names this figure: src/http/schemas/calendars.ts.)
 */
export const MAX_SPANS_PER_CALENDAR = 100_000;

/** The spans to store, and where they were cut (null: every one is kept). */
export interface StoredSpans {
  spans: BusyInterval[];
  /**
   * A calendar with more spans than `max`: the instant from which its spans were not kept, and
   * from which one last span makes the rest of the window busy, so that no time the host may be
   * busy is offered (the sync says so on the calendar).
   */
  cutAt: number | null;
}

/**
 * Busy intervals as the spans to store: zero-length ones dropped (they block no time),
 * overlapping and touching ones merged (a slot overlaps the union exactly when it overlaps
 * one of them), at most `max`. A calendar with more keeps its earliest `max - 1` and blocks
 * from the next one to the end of the window (`until`, or the latest end if later): failing
 * closed, where keeping the earliest and dropping the rest offered every later busy time.
 *
 * `[{9–10}, {10–11}, {10:30–10:30}, {12–13}]` → `{ spans: [{9–11}, {12–13}], cutAt: null }`;
 * with `max` 2 and `until` 18: `[{9–10}, {11–12}, {13–14}, {15–16}]` → `{ spans: [{9–10}, {11–18}], cutAt: 11 }`.
 *
 * Sorting and one pass, some 10 ms for 25 000 spans (the sync's reads come sorted already).
 */
export function toStoredSpans(intervals: readonly BusyInterval[], until: number, max = MAX_SPANS_PER_CALENDAR): StoredSpans {
  const sorted = intervals.filter((i) => i.end > i.start).sort((a, b) => a.start - b.start || a.end - b.end);
  const merged: BusyInterval[] = [];
  for (let i = 0; i < sorted.length; i += 1) {
    const interval = sorted[i]!;
    const last = merged[merged.length - 1];
    if (last && interval.start <= last.end) last.end = Math.max(last.end, interval.end);
    else if (merged.length < max) merged.push({ start: interval.start, end: interval.end });
    else {
      // A span past the cap: the last one kept becomes the start of the blocked rest.
      const cut = merged[max - 1]!;
      for (let j = i; j < sorted.length; j += 1) cut.end = Math.max(cut.end, sorted[j]!.end);
      cut.end = Math.max(cut.end, until);
      return { spans: merged, cutAt: cut.start };
    }
  }
  return { spans: merged, cutAt: null };
}

/** What the calendar's `lastError` says when its spans were cut: what happened, since when, what to look for. */
export function describeSpansCut(cutAt: number, max = MAX_SPANS_PER_CALENDAR): string {
  return (
    `The calendar has more than ${max} separate busy times in the booking window, more than termin keeps: ` +
    `from ${new Date(cutAt).toISOString()} on, all of its time counts as busy. Look for an event repeating every few minutes, or connect a calendar with fewer events.`
  );
}

/**
 * A sync or write failure in words an operator can act on, never a secret: calendar errors
 * and the outbound guard's messages are written that way; anything else is not shown.
 */
export function describeCalendarFailure(error: unknown): string {
  if (error instanceof CalendarError) return error.message;
  if (error instanceof TypeError && /calendar|URL/i.test(error.message) && !/[?@]/.test(error.message)) return error.message;
  if (error instanceof SecretUnreadableError) return error.message;
  return 'The calendar could not be read: an unexpected error (see the service log).';
}
