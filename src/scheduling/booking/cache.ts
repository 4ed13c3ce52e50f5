import type { DaySlots } from '../../domain/slots.js';

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
  /** Estimated bytes held, and entries: for metrics and tests. */
  stats(): { bytes: number; entries: number };
  /**
   * Counts since start, for /metrics: a lookup either serves its entry (a hit) or is
   * followed by storing a freshly computed one (a miss), so hits = lookups − stores.
   */
  traffic?(): { lookups: number; stores: number };
}

/**
 * An LRU bounded by the estimated bytes of its entries, not their number: a month of a
 * 5-minute round-the-clock grid is ~8,900 slots (~1 MB), a quiet week a few hundred bytes,
 * so a count bound let ~1,150 public month views take the process from 133 MB to 1.7 GB.
 * An entry larger than a tenth of the budget is not kept at all.
 */
export function createScheduleCache(maxBytes = 64 * 1024 * 1024): ScheduleCache {
  const entries = new Map<string, { entry: CachedSchedule; bytes: number }>();
  let total = 0;
  let lookups = 0;
  let stores = 0;
  // The most recently used key: a hit on it is already in LRU order (a view asked again and again
  // skips a Map delete and insert).
  let latest: string | undefined;
  const remove = (key: string) => {
    const held = entries.get(key);
    if (!held) return;
    entries.delete(key);
    total -= held.bytes;
  };
  return {
    get(key) {
      lookups += 1;
      const held = entries.get(key);
      if (held && key !== latest) {
        entries.delete(key);
        entries.set(key, held);
        latest = key;
      }
      return held?.entry;
    },
    set(key, entry) {
      stores += 1;
      remove(key);
      const bytes = estimateBytes(key, entry);
      if (bytes > maxBytes / 10) return;
      entries.set(key, { entry, bytes });
      latest = key;
      total += bytes;
      while (total > maxBytes) remove(entries.keys().next().value!);
    },
    stats: () => ({ bytes: total, entries: entries.size }),
    traffic: () => ({ lookups, stores }),
  };
}

/** V8 strings of these ASCII values take about a byte a character, objects some 50–100 bytes. */
export function estimateBytes(key: string, entry: CachedSchedule): number {
  let bytes = 400 + key.length;
  for (const day of entry.days) {
    bytes += 100;
    // A slot object with its two strings, and (in a host's entry) its start as a number.
    for (const slot of day.slots) bytes += 128 + slot.start.length + slot.username.length;
  }
  return bytes;
}
