import type { DaySlots } from '../domain/slots.js';

/**
 * Computed schedules, kept per process. An entry is only ever served while the host's
 * calendar version is the one it was computed from (every booking, cancellation, change of
 * hours or of a topic's buffers bumps it, on any instance, in the database) and the clock is
 * still inside the entry's validity: the minute it was computed in, and no later than the
 * first payment hold that ends (a hold stops blocking without any write).
 */
export interface CachedSchedule {
  calendarVersion: number;
  /** The instant the slots were computed for (the start of the minute). */
  computedFor: number;
  /** When the calendar was read: the entry serves no earlier instant. */
  readAt: number;
  validUntil: number;
  days: DaySlots[];
  firstStart: number | null;
  lastStart: number | null;
  /** The response object built from `days` unfiltered: reused, so its serialisation can be too. */
  response?: unknown;
}

export interface ScheduleCache {
  get(key: string): CachedSchedule | undefined;
  set(key: string, entry: CachedSchedule): void;
}

/** A small LRU: the most recently used `maxEntries` schedules. */
export function createScheduleCache(maxEntries = 1000): ScheduleCache {
  const entries = new Map<string, CachedSchedule>();
  return {
    get(key) {
      const entry = entries.get(key);
      if (entry) {
        entries.delete(key);
        entries.set(key, entry);
      }
      return entry;
    },
    set(key, entry) {
      entries.delete(key);
      entries.set(key, entry);
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    },
  };
}
