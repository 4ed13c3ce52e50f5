import type { TopicHost } from '../../domain/meeting-topic.js';
import type { DaySlots, SlotRules } from '../../domain/slots.js';
import { canonicalTimeZone } from '../../domain/time-zones.js';

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
  /**
   * The key of a host's entry: the topic's slot rules, the host, the viewer's zone (however
   * its name is spelled) and the range, and the meeting left out of it when one is being moved.
   */
  hostKey(host: TopicHost, rules: SlotRules, timezone: string, range: { from: string; to: string }, excluded?: { uuid: string; start: number }): string;
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
  const hostKey = createHostKeys();
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
    hostKey,
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

/**
 * Builds host keys (ScheduleCache.hostKey), remembering what the last ones cost to write: a
 * cached view's key was a third of the use case's time on a cached month view when built anew
 * each time (serialised, hashed and compared character by character). Kept per cache, so a
 * second context (a test's, a bench's) starts with its own.
 */
function createHostKeys(): ScheduleCache['hostKey'] {
  // The last key built for each host object (the SQLite reads hand out the same frozen one while
  // the topic is unchanged), reused while the same view is asked for again: the same string keeps
  // its hash and compares by identity.
  const lastHostKeys = new WeakMap<TopicHost, { rules: SlotRules; timezone: string; from: string; to: string; key: string }>();
  // The rules as part of a key, written out once per rules object (a cached view's costliest step before).
  const rulesKeys = new WeakMap<SlotRules, string>();
  // Each distinct rules text gets a short id of its own, so a key is some 100 characters instead of
  // the rules' 500 (the cache's map hashed and compared the whole key on every lookup). Equal rules
  // share an id; ids are never reused, so clearing the table (a bound on memory) only makes later
  // keys new, never lets two rules share one.
  const rulesIds = new Map<string, string>();
  let issuedRulesIds = 0;
  const rulesKeyOf = (rules: SlotRules): string => {
    let key = rulesKeys.get(rules);
    if (key === undefined) {
      const text = JSON.stringify(rules);
      key = rulesIds.get(text);
      if (key === undefined) {
        if (rulesIds.size >= 10_000) rulesIds.clear();
        issuedRulesIds += 1;
        key = `rules ${issuedRulesIds}`;
        rulesIds.set(text, key);
      }
      rulesKeys.set(rules, key);
    }
    return key;
  };
  return (host, rules, timezone, range, excluded) => {
    const last = excluded ? undefined : lastHostKeys.get(host);
    if (last && last.rules === rules && last.timezone === timezone && last.from === range.from && last.to === range.to) return last.key;
    // One entry per zone, however its name is spelled (`europe/WARSAW` is Europe/Warsaw).
    const parts: unknown[] = [rulesKeyOf(rules), host.uuid, canonicalTimeZone(timezone) ?? timezone, range.from, range.to];
    if (excluded) parts.push(`without ${excluded.uuid} at ${excluded.start}`);
    const key = JSON.stringify(parts);
    if (!excluded) lastHostKeys.set(host, { rules, timezone, from: range.from, to: range.to, key });
    return key;
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
