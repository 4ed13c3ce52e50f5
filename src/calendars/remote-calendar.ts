import type { BusyInterval } from './busy-time.js';
import { CalendarError } from './errors.js';

/** Most spans one calendar may store; the earliest are kept (a hostile feed cannot fill the database). */
export const MAX_SPANS_PER_CALENDAR = 5_000;

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
