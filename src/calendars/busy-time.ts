import ICAL from 'ical.js';
import { isValidTimeZone, zoneOffset } from '../domain/time-zones.js';
import { CalendarBadResponseError } from './errors.js';

/** A stretch of time a host is busy, as epoch milliseconds; `end` is exclusive. */
export interface BusyInterval {
  start: number;
  end: number;
}

export interface TimeRange {
  from: number;
  to: number;
}

export interface BusyOptions {
  /** Events with these UIDs are not busy time here (termin's own copies of meetings it already counts). */
  ignoreUids?: ReadonlySet<string> | undefined;
}

/** Occurrences generated per recurrence rule before giving up (a daily event since 1900 is ~46 000). */
export const MAX_OCCURRENCES_PER_RULE = 100_000;
/** Occurrences generated per call, all rules together: a hostile feed cannot stall the sync worker. */
export const MAX_OCCURRENCES_PER_CALENDAR = 1_000_000;
/** Candidate times ical.js may test per rule; bounds rules that never match (`BYMONTH=2;BYMONTHDAY=30`). */
const MAX_RULE_STEPS = 300_000;
/** The same, all rules of one call together (a few seconds of work at most). */
const MAX_CALENDAR_STEPS = 2_000_000;

const MINUTE = 60_000;
const DAY = 86_400_000;

/**
 * The busy time of an iCalendar text within `range`, sorted by start. Recurring events are
 * expanded (RRULE, RDATE, EXDATE) and their RECURRENCE-ID overrides applied (moved,
 * cancelled or made free); events marked TRANSP:TRANSPARENT or STATUS:CANCELLED are
 * skipped. Times carry their own zones: a VTIMEZONE in the file wins, then the IANA zone
 * the TZID names; floating times and all-day dates are read in `defaultZone` (the host's),
 * so an all-day event blocks the host's local midnight to midnight. An interval is kept
 * when it overlaps the range (a zero-length one when it starts inside it).
 *
 * ```
 * BEGIN:VEVENT
 * UID:a
 * DTSTART;TZID=America/New_York:20270301T090000
 * DTEND;TZID=America/New_York:20270301T100000
 * RRULE:FREQ=WEEKLY;COUNT=3
 * END:VEVENT
 * ```
 * with range 2027-03-01 … 2027-03-31 → 14:00–15:00Z on 1 March, 14:00–15:00Z on 8 March,
 * 13:00–14:00Z on 15 March (New York moved to daylight time on the 14th).
 *
 * Throws CalendarBadResponseError when the text is not iCalendar at all; a single event
 * that cannot be read (say, a broken RRULE) is skipped so it cannot hide the rest.
 */
export function extractBusyIntervals(icsText: string, range: TimeRange, defaultZone: string, options: BusyOptions = {}): BusyInterval[] {
  if (!isValidTimeZone(defaultZone)) throw new RangeError(`Not an IANA time zone: ${defaultZone}`);
  const reader = new Reader(range, defaultZone);
  const groups = new Map<string, { masters: ICAL.Component[]; overrides: ICAL.Component[] }>();
  let anonymous = 0;
  for (const event of readEvents(icsText)) {
    const uid = event.getFirstPropertyValue('uid');
    if (typeof uid === 'string' && options.ignoreUids?.has(uid)) continue;
    const key = typeof uid === 'string' && uid !== '' ? uid : `\u0000${anonymous++}`;
    let group = groups.get(key);
    if (!group) {
      group = { masters: [], overrides: [] };
      groups.set(key, group);
    }
    (event.hasProperty('recurrence-id') ? group.overrides : group.masters).push(event);
  }
  const busy: BusyInterval[] = [];
  for (const { masters, overrides } of groups.values()) {
    const replaced = new Set<number>();
    for (const override of overrides) {
      try {
        replaced.add(reader.recurrenceIdOf(override));
      } catch {
        // An override whose RECURRENCE-ID cannot be read replaces nothing.
      }
    }
    const fallback = masters[0];
    for (const master of masters) {
      try {
        reader.expand(master, replaced, busy);
      } catch {
        // Skipped: see the doc comment.
      }
    }
    for (const override of overrides) {
      try {
        reader.single(override, fallback, busy);
      } catch {
        // Skipped: see the doc comment.
      }
    }
  }
  return busy.sort((a, b) => a.start - b.start || a.end - b.end);
}

function readEvents(icsText: string): ICAL.Component[] {
  let parsed: unknown;
  try {
    parsed = ICAL.parse(icsText);
  } catch (error) {
    // ical.js decodes every value while parsing, so one bad RRULE fails the whole file;
    // read the events one by one instead, each with the file's time zones.
    const events = readEventsOneByOne(icsText);
    if (events) return events;
    throw new CalendarBadResponseError(`The calendar is not valid iCalendar: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!Array.isArray(parsed)) return [];
  const roots = (typeof parsed[0] === 'string' ? [parsed] : parsed) as unknown[];
  const events: ICAL.Component[] = [];
  for (const jcal of roots) {
    if (!Array.isArray(jcal)) continue;
    const root = new ICAL.Component(jcal);
    if (root.name === 'vevent') events.push(root);
    else events.push(...root.getAllSubcomponents('vevent'));
  }
  return events;
}

function readEventsOneByOne(icsText: string): ICAL.Component[] | null {
  const lines = icsText.replace(/\r?\n[ \t]/g, '').split(/\r?\n/);
  if (!/^BEGIN:VCALENDAR\s*$/i.test(lines.find((line) => line.trim() !== '') ?? '')) return null;
  const zones: string[] = [];
  const events: string[][] = [];
  let block: string[] | null = null;
  let kind = '';
  for (const line of lines) {
    const begin = /^BEGIN:(VEVENT|VTIMEZONE)\s*$/i.exec(line);
    if (!block && begin) {
      block = [];
      kind = begin[1]!.toUpperCase();
    }
    if (!block) continue;
    block.push(line);
    if (new RegExp(`^END:${kind}\\s*$`, 'i').test(line)) {
      if (kind === 'VTIMEZONE') zones.push(...block);
      else events.push(block);
      block = null;
    }
  }
  const read: ICAL.Component[] = [];
  for (const event of events) {
    try {
      const calendar = new ICAL.Component(ICAL.parse(['BEGIN:VCALENDAR', ...zones, ...event, 'END:VCALENDAR'].join('\r\n')));
      read.push(...calendar.getAllSubcomponents('vevent'));
    } catch {
      // This event is the broken one.
    }
  }
  return read;
}

/** How long each occurrence lasts: whole days, an exact span, or days on the clock plus an exact span. */
type Length = { days: number; ms: number };

class StopExpansion extends Error {}

class Reader {
  private readonly horizonYear: number;
  private budget = MAX_OCCURRENCES_PER_CALENDAR;
  private stepBudget = MAX_CALENDAR_STEPS;

  constructor(
    private readonly range: TimeRange,
    private readonly defaultZone: string,
  ) {
    this.horizonYear = new Date(Math.min(range.to, 8.64e15)).getUTCFullYear() + 1;
  }

  /** Every occurrence of a master event (DTSTART, RRULEs, RDATEs, less EXDATEs and overridden ones). */
  expand(master: ICAL.Component, replaced: Set<number>, out: BusyInterval[]): void {
    if (!isBusy(master)) return;
    const startProp = master.getFirstProperty('dtstart');
    if (!startProp) return;
    const dtstart = startProp.getFirstValue() as ICAL.Time;
    const tzid = tzidOf(startProp);
    const length = this.lengthOf(master, dtstart, tzid);
    const excluded = this.exclusionsOf(master);
    const seen = new Set<number>();
    const emit = (time: ICAL.Time, startMs: number, endMs?: number): void => {
      if (seen.has(startMs)) return;
      seen.add(startMs);
      if (replaced.has(startMs) || excluded.instants.has(startMs) || excluded.dates.has(dateKey(time))) return;
      this.push(out, startMs, endMs ?? this.endOf(time, startMs, tzid, length));
    };

    emit(dtstart, this.instantOf(dtstart, tzid));
    for (const prop of master.getAllProperties('rrule')) {
      this.iterateRule(prop.getFirstValue() as ICAL.Recur, dtstart, tzid, emit);
    }
    for (const prop of master.getAllProperties('rdate')) {
      const zone = tzidOf(prop);
      for (const value of prop.getValues() as (ICAL.Time | ICAL.Period)[]) {
        if (value instanceof ICAL.Period) {
          const startMs = this.instantOf(value.start, zone);
          const endMs = value.end ? this.instantOf(value.end, zone) : startMs + value.duration.toSeconds() * 1000;
          emit(value.start, startMs, endMs);
        } else {
          emit(value, this.instantOf(value, zone));
        }
      }
    }
  }

  /** An override (RECURRENCE-ID) as the event it now is; without its own end it keeps the series' length. */
  single(event: ICAL.Component, master: ICAL.Component | undefined, out: BusyInterval[]): void {
    if (!isBusy(event)) return;
    const startProp = event.getFirstProperty('dtstart') ?? event.getFirstProperty('recurrence-id');
    if (!startProp) return;
    const start = startProp.getFirstValue() as ICAL.Time;
    const tzid = tzidOf(startProp);
    let length = this.lengthOf(event, start, tzid);
    if (master && !event.hasProperty('dtend') && !event.hasProperty('duration')) {
      const masterStart = master.getFirstProperty('dtstart');
      if (masterStart) length = this.lengthOf(master, masterStart.getFirstValue() as ICAL.Time, tzidOf(masterStart));
    }
    const startMs = this.instantOf(start, tzid);
    this.push(out, startMs, this.endOf(start, startMs, tzid, length));
  }

  recurrenceIdOf(override: ICAL.Component): number {
    const prop = override.getFirstProperty('recurrence-id');
    if (!prop) throw new Error('no RECURRENCE-ID');
    return this.instantOf(prop.getFirstValue() as ICAL.Time, tzidOf(prop));
  }

  /**
   * Walks one RRULE from DTSTART until an occurrence starts at or after the range's end.
   * UNTIL is applied here rather than by ical.js, which would compare it against a time
   * in an IANA zone the file does not define as if that time were UTC.
   */
  private iterateRule(recur: ICAL.Recur, dtstart: ICAL.Time, tzid: string | undefined, emit: (time: ICAL.Time, startMs: number) => void): void {
    const rule = recur.clone();
    const until = rule.until;
    rule.until = null;
    const pastUntil = until ? this.untilTest(until, dtstart, tzid) : () => false;
    const iterator = rule.iterator(dtstart);
    // ical.js loops internally until a candidate matches every BY-part; a rule that never
    // matches would loop forever, so every candidate it tests is counted and dated.
    let steps = 0;
    const horizonYear = this.horizonYear;
    const check = iterator.check_contracting_rules.bind(iterator);
    iterator.check_contracting_rules = () => {
      if (++steps > MAX_RULE_STEPS || --this.stepBudget < 0 || iterator.last.year > horizonYear) throw new StopExpansion();
      return check();
    };
    for (let n = 0; n < MAX_OCCURRENCES_PER_RULE && this.budget > 0; n++, this.budget--) {
      let next: ICAL.Time | null;
      try {
        next = iterator.next();
      } catch (error) {
        if (error instanceof StopExpansion) return;
        throw error;
      }
      if (!next) return;
      const time = next.clone();
      const startMs = this.instantOf(time, tzid);
      if (pastUntil(time, startMs) || startMs >= this.range.to) return;
      emit(time, startMs);
    }
  }

  /** UNTIL is inclusive; against all-day occurrences only its date counts. */
  private untilTest(until: ICAL.Time, dtstart: ICAL.Time, tzid: string | undefined): (time: ICAL.Time, startMs: number) => boolean {
    if (dtstart.isDate || until.isDate) {
      const last = dateKey(until);
      return (time) => dateKey(time) > last;
    }
    const limit = this.instantOf(until, tzid);
    return (_time, startMs) => startMs > limit;
  }

  private lengthOf(event: ICAL.Component, start: ICAL.Time, tzid: string | undefined): Length {
    const endProp = event.getFirstProperty('dtend');
    if (endProp) {
      const end = endProp.getFirstValue() as ICAL.Time;
      if (start.isDate && end.isDate) return { days: Math.max(0, dayNumber(end) - dayNumber(start)), ms: 0 };
      // RFC 5545 3.8.5.3: a DTEND gives every occurrence the same exact duration.
      return { days: 0, ms: Math.max(0, this.instantOf(end, tzidOf(endProp)) - this.instantOf(start, tzid)) };
    }
    const duration = event.getFirstPropertyValue('duration');
    if (duration instanceof ICAL.Duration) {
      if (duration.isNegative) return { days: 0, ms: 0 };
      // Days and weeks are nominal (a day on the clock, 23 or 25 hours across DST); the rest is exact.
      return {
        days: duration.weeks * 7 + duration.days,
        ms: ((duration.hours * 60 + duration.minutes) * 60 + duration.seconds) * 1000,
      };
    }
    // RFC 5545 3.6.1: a date alone lasts one day, a date-time alone no time at all.
    return start.isDate ? { days: 1, ms: 0 } : { days: 0, ms: 0 };
  }

  private endOf(start: ICAL.Time, startMs: number, tzid: string | undefined, length: Length): number {
    if (length.days === 0) return startMs + length.ms;
    const end = start.clone();
    end.adjust(length.days, 0, 0, 0);
    return this.instantOf(end, tzid) + length.ms;
  }

  private exclusionsOf(master: ICAL.Component): { instants: Set<number>; dates: Set<number> } {
    const instants = new Set<number>();
    const dates = new Set<number>();
    for (const prop of master.getAllProperties('exdate')) {
      const zone = tzidOf(prop);
      for (const value of prop.getValues() as ICAL.Time[]) {
        instants.add(this.instantOf(value, zone));
        // A date excludes that day's occurrence even in a series of date-times (seen in the wild).
        if (value.isDate) dates.add(dateKey(value));
      }
    }
    return { instants, dates };
  }

  private push(out: BusyInterval[], start: number, end: number): void {
    const { from, to } = this.range;
    if (end > start ? start < to && end > from : start >= from && start < to) out.push({ start, end });
  }

  /**
   * The instant of an iCalendar time: UTC as is; a zone defined by a VTIMEZONE in the
   * file through ical.js; a TZID naming an IANA zone through the platform's zone data;
   * dates, floating times and unknown TZIDs in the host's zone.
   */
  instantOf(time: ICAL.Time, tzid: string | undefined): number {
    if (time.isDate) return wallToInstant(this.defaultZone, time.year, time.month, time.day, 0, 0, 0);
    if (time.zone === ICAL.Timezone.utcTimezone) {
      return Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
    }
    if (tzid !== undefined) {
      if (time.zone && time.zone !== ICAL.Timezone.localTimezone) return time.toUnixTime() * 1000;
      const iana = ianaZoneOf(tzid);
      if (iana) return wallToInstant(iana, time.year, time.month, time.day, time.hour, time.minute, time.second);
    }
    return wallToInstant(this.defaultZone, time.year, time.month, time.day, time.hour, time.minute, time.second);
  }
}

function isBusy(event: ICAL.Component): boolean {
  const transp = event.getFirstPropertyValue('transp');
  const status = event.getFirstPropertyValue('status');
  return !(typeof transp === 'string' && transp.trim().toUpperCase() === 'TRANSPARENT') && !(typeof status === 'string' && status.trim().toUpperCase() === 'CANCELLED');
}

function tzidOf(prop: ICAL.Property): string | undefined {
  const tzid = prop.getFirstParameter('tzid');
  return typeof tzid === 'string' && tzid !== '' ? tzid : undefined;
}

const ianaCache = new Map<string, string | null>();

/**
 * `Europe/Berlin` as is; `/mozilla.org/20050126_1/America/New_York` (old Lightning and
 * Citadel exports) by its trailing IANA name; anything else is not an IANA zone.
 */
function ianaZoneOf(tzid: string): string | null {
  let zone = ianaCache.get(tzid);
  if (zone !== undefined) return zone;
  const trimmed = tzid.trim().replace(/^"|"$/g, '');
  const tail = /([A-Za-z_-]+\/[A-Za-z0-9_+-]+(?:\/[A-Za-z0-9_+-]+)?)$/.exec(trimmed)?.[1];
  zone = isValidTimeZone(trimmed) ? trimmed : tail && isValidTimeZone(tail) ? tail : null;
  if (ianaCache.size < 1000) ianaCache.set(tzid, zone);
  return zone;
}

/**
 * The instant of a wall-clock time in an IANA zone, by RFC 5545 3.3.5: a time that occurs
 * twice (fall back) is its first occurrence; a time skipped by a gap (spring forward) is
 * read with the offset before the gap, so New York's 02:30 on a spring-forward day is
 * 03:30 EDT.
 */
export function wallToInstant(zone: string, year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const local = Date.UTC(year, month - 1, day, hour, minute, second);
  const before = zoneOffset(zone, local - DAY);
  const after = zoneOffset(zone, local + DAY);
  const first = local - before * MINUTE;
  const second_ = local - after * MINUTE;
  const firstValid = zoneOffset(zone, first) === before;
  const secondValid = before !== after && zoneOffset(zone, second_) === after;
  if (firstValid && secondValid) return Math.min(first, second_);
  if (secondValid && !firstValid) return second_;
  return first;
}

function dayNumber(time: ICAL.Time): number {
  return Date.UTC(time.year, time.month - 1, time.day) / DAY;
}

function dateKey(time: ICAL.Time): number {
  return time.year * 10_000 + time.month * 100 + time.day;
}
