import { IANAZone } from 'luxon';

const validity = new Map<string, boolean>();

/**
 * True for IANA zone names (`Europe/Warsaw`, `Asia/Kolkata`, `UTC`); false for fixed
 * offsets (`+02:00`, `UTC+2`, `GMT-5`) and unknown names, which a scheduling service must
 * not accept: an offset has no daylight-saving rules.
 */
export function isValidTimeZone(zone: string): boolean {
  const known = validity.get(zone);
  if (known !== undefined) return known;
  const valid = typeof zone === 'string' && zone.length > 0 && zone.length <= 64 && !/^[+-]/.test(zone) && !/^(UTC|GMT|UT)\s*[+-]/i.test(zone) && IANAZone.isValidZone(zone);
  if (validity.size < 10_000) validity.set(zone, valid);
  return valid;
}

const canonical = new Map<string, string | null>();

/**
 * The one spelling `Intl` gives a valid zone name, whatever its letter case, so that names
 * used as keys (caches, stored settings) do not multiply: `canonicalTimeZone('europe/WARSAW')`
 * → `'Europe/Warsaw'`, `'utc'` → `'UTC'`; null for what `isValidTimeZone` rejects.
 * Links follow the runtime's ICU data, not a list of ours: on Node 20 (ICU 78) `Asia/Calcutta`
 * stays and `Asia/Kolkata` becomes `Asia/Calcutta`, `Europe/Kyiv` becomes `Europe/Kiev`,
 * `US/Eastern` becomes `America/New_York` and `Etc/UTC`, `GMT` become `UTC`.
 */
export function canonicalTimeZone(name: string): string | null {
  const known = canonical.get(name);
  if (known !== undefined) return known;
  let result: string | null = null;
  if (isValidTimeZone(name)) {
    try {
      const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
      result = isValidTimeZone(resolved) ? resolved : null;
    } catch {
      result = null;
    }
  }
  // Bounded like `validity`: names come from requests, so an attacker could send endless spellings.
  if (canonical.size < 10_000) canonical.set(name, result);
  return result;
}

const MINUTE = 60_000;
const BUCKET = 15 * MINUTE;
const offsetCache = new Map<string, Map<number, number>>();

/**
 * The zone's UTC offset in minutes at an instant: `zoneOffset('Europe/Warsaw', Date.UTC(2027, 6, 1))` → 120.
 * Every real transition happens on a quarter hour (UTC), so offsets are cached per
 * quarter-hour bucket; the slot engine asks the same buckets again and again.
 */
export function zoneOffset(zone: string, ms: number): number {
  let perZone = offsetCache.get(zone);
  if (!perZone) {
    // Zone names ignore letter case: every spelling shares one cache (looked up on a miss only).
    const folded = zone.toLowerCase();
    perZone = offsetCache.get(folded) ?? new Map<number, number>();
    if (offsetCache.size > 10_000) offsetCache.clear();
    offsetCache.set(folded, perZone);
    offsetCache.set(zone, perZone);
  }
  const bucket = Math.floor(ms / BUCKET);
  let offset = perZone.get(bucket);
  if (offset === undefined) {
    offset = IANAZone.create(zone).offset(bucket * BUCKET);
    if (perZone.size > 200_000) perZone.clear();
    perZone.set(bucket, offset);
  }
  return offset;
}

/**
 * The first instant after `from` and before `to` at which the zone's offset differs from its
 * offset at `from`, or `to` when the offset at the last quarter hour before `to` is the same.
 * Transitions fall on quarter hours, so a bisection over quarter hours finds the change; it
 * is exact when the offset changes at most once in between, as within any one local day.
 * `nextOffsetChange('Europe/Warsaw', Date.parse('2027-03-27T23:00Z'), Date.parse('2027-03-28T05:00Z'))`
 * → `Date.parse('2027-03-28T01:00Z')` (02:00 CET becomes 03:00 CEST).
 */
export function nextOffsetChange(zone: string, from: number, to: number): number {
  if (!(from < to)) return to;
  const offset = zoneOffset(zone, from);
  let high = Math.ceil(to / BUCKET) - 1; // the last quarter hour that starts before `to`
  if (zoneOffset(zone, high * BUCKET) === offset) return to;
  let low = Math.floor(from / BUCKET); // its offset is `offset`
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (zoneOffset(zone, middle * BUCKET) === offset) low = middle;
    else high = middle;
  }
  return high * BUCKET;
}

const DAY = 86_400_000;

/**
 * The instant of a local wall-clock time: days since the epoch (of the local calendar date)
 * plus minutes after local midnight (1440 is the next midnight). A time skipped by a
 * spring-forward gap becomes the jump itself, the first real moment after it ("from 02:30"
 * on a day that goes 02:00 → 03:00 starts at 03:00; "until 02:30" ends at 02:00/03:00); a
 * time that occurs twice in a fall-back overlap takes its first occurrence. So the mapping
 * never reorders times of one day: intervals that do not overlap on the clock never overlap
 * as instants. `localToInstant('Europe/Warsaw', 20_000, 540)` → 09:00 Warsaw on 2024-10-04.
 */
export function localToInstant(zone: string, epochDay: number, minutes: number): number {
  const local = epochDay * DAY + minutes * MINUTE;
  const before = zoneOffset(zone, local - DAY / 2);
  const after = zoneOffset(zone, local + DAY / 2);
  const first = local - before * MINUTE;
  const second = local - after * MINUTE;
  const firstValid = zoneOffset(zone, first) === before;
  const secondValid = before !== after && zoneOffset(zone, second) === after;
  if (firstValid && secondValid) return Math.min(first, second);
  if (firstValid) return first;
  if (secondValid) return second;
  // In a gap: the jump lies between the two readings, on a quarter hour like every transition.
  for (let t = Math.ceil(second / BUCKET) * BUCKET; t <= first; t += BUCKET) {
    if (zoneOffset(zone, t) === after) return t;
  }
  return first;
}

/** The local calendar date of an instant, as days since the epoch. */
export function localEpochDay(zone: string, ms: number): number {
  return Math.floor((ms + zoneOffset(zone, ms) * MINUTE) / DAY);
}

/** `'2027-03-28'` → days since 1970-01-01; NaN when not a real date. */
export function parseLocalDate(date: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) return Number.NaN;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = Date.UTC(year, month - 1, day);
  const check = new Date(ms);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return Number.NaN;
  return ms / DAY;
}

const formattedDates = new Map<number, string>();

/**
 * Days since the epoch → `'YYYY-MM-DD'`. Remembered: a month view names 31 dates per host,
 * and writing each through Date.toISOString was 5% of a cold team month view.
 */
export function formatLocalDate(epochDay: number): string {
  let date = formattedDates.get(epochDay);
  if (date === undefined) {
    date = new Date(epochDay * DAY).toISOString().slice(0, 10);
    if (formattedDates.size >= 100_000) formattedDates.clear();
    formattedDates.set(epochDay, date);
  }
  return date;
}
