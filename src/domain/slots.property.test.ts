import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { WEEKDAYS } from './availability.js';
import { dayHoursArbitrary, hostAvailability, slotRules } from './slot-arbitraries.js';
import { computeSlots, isSlotAvailable, type BusyMeeting, type DaySlots, type HostCalendar, type SlotRules } from './slots.js';

/**
 * The engine against a deliberately naive oracle: every grid start of the participant's
 * range is checked against the rules as the contract states them, with Luxon doing every
 * time zone conversion (no shared code with the engine beyond the types). The grid is the
 * host's wall clock: the local times interval start + k × step, each at every instant the
 * host's clock shows it (twice in a fall-back overlap, never in a spring-forward gap).
 */

// America/Santiago changes its clocks at midnight: some of its dates start at 01:00.
const ZONES = [
  'Europe/Warsaw',
  'America/New_York',
  'Asia/Tokyo',
  'Asia/Kolkata',
  'Pacific/Kiritimati',
  'America/Los_Angeles',
  'UTC',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'America/Santiago',
];
// Dates around daylight-saving changes in the zones above, and ordinary ones.
const DATES = [
  '2027-03-13',
  '2027-03-14',
  '2027-03-27',
  '2027-03-28',
  '2027-04-03',
  '2027-04-04',
  '2027-09-04',
  '2027-09-05',
  '2027-10-03',
  '2027-10-30',
  '2027-10-31',
  '2027-11-06',
  '2027-11-07',
  '2027-01-15',
  '2027-06-21',
];
// Host zones with the dates of their 2027 clock changes, so that half the cases put one in range.
const CHANGES: [string, string][] = [
  ['Europe/Warsaw', '2027-03-28'],
  ['Europe/Warsaw', '2027-10-31'],
  ['America/New_York', '2027-03-14'],
  ['America/New_York', '2027-11-07'],
  ['America/Los_Angeles', '2027-03-14'],
  ['America/Los_Angeles', '2027-11-07'],
  ['Australia/Lord_Howe', '2027-04-04'],
  ['Australia/Lord_Howe', '2027-10-03'],
  ['America/Santiago', '2027-04-03'],
  ['America/Santiago', '2027-09-04'],
];
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
// PROPERTY_SCALE=20 for a deeper search than the default run affords.
const SCALE = Number(process.env.PROPERTY_SCALE ?? 1);
// FC_SEED=<the seed a failure printed> replays that run.
const SEED = seedFromEnvironment(process.env.FC_SEED);

function seedFromEnvironment(raw: string | undefined): number {
  if (raw === undefined || raw === '') return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer, not ${JSON.stringify(raw)}`);
  return seed;
}

/** `fc.assert` with this file's seed, named in the failure so the run can be replayed. */
function assertProperty<Ts>(property: fc.IProperty<Ts>, numRuns: number): void {
  try {
    fc.assert(property, { numRuns, seed: SEED });
  } catch (error) {
    if (error instanceof Error) error.message = `Replay with FC_SEED=${SEED} PROPERTY_SCALE=${SCALE}\n${error.message}`;
    throw error;
  }
}

const WALL = "yyyy-MM-dd'T'HH:mm";
const memo = new Map<string, unknown>();
/** Luxon is slow (~10 µs a conversion) and the cases repeat zones, dates and times: remember answers. */
function remember<T>(key: string, compute: () => T): T {
  if (!memo.has(key)) memo.set(key, compute());
  return memo.get(key) as T;
}

/** Every offset (minutes) the zone shows within two days either side of the date's noon, read hourly (no offset lasts under an hour). */
function offsetsNear(zone: string, date: string): number[] {
  return remember(`offsets ${zone} ${date}`, () => {
    const middle = Date.parse(`${date}T12:00:00Z`);
    const offsets = new Set<number>();
    for (let t = middle - 48 * HOUR; t <= middle + 48 * HOUR; t += HOUR) offsets.add(DateTime.fromMillis(t, { zone }).offset);
    return [...offsets];
  });
}

/** The instants at which the zone's clock reads `date` + `minutes` (up to 1440): none in a gap, two in an overlap. */
function instantsShowing(zone: string, date: string, minutes: number): number[] {
  return remember(`instants ${zone} ${date} ${minutes}`, () => {
    const base = DateTime.fromISO(date, { zone: 'UTC' }).plus({ minutes });
    const wall = base.toFormat(WALL);
    // An instant showing this wall time is the wall time minus the offset in force then.
    return offsetsNear(zone, date)
      .map((offset) => base.toMillis() - offset * MINUTE)
      .filter((instant) => DateTime.fromMillis(instant, { zone }).toFormat(WALL) === wall)
      .sort((a, b) => a - b);
  });
}

/** Oracle's wall time → instant for interval bounds: the earliest instant showing that wall time; in a gap, the first instant showing a later one. */
function oracleInstant(zone: string, date: string, minutes: number): number {
  return remember(`bound ${zone} ${date} ${minutes}`, () => {
    const candidates = instantsShowing(zone, date, minutes);
    if (candidates.length > 0) return candidates[0]!;
    const base = DateTime.fromISO(date, { zone: 'UTC' }).plus({ minutes });
    const wall = base.toFormat(WALL);
    for (let instant = base.toMillis() - 16 * HOUR; ; instant += MINUTE) {
      if (DateTime.fromMillis(instant, { zone }).toFormat(WALL) > wall) return instant;
    }
  });
}

function toMinutes(time: string): number {
  return time === '24:00' ? 1440 : Number(time.slice(0, 2)) * 60 + Number(time.slice(3));
}

/** The participant's range as instants: [start of `from`, end of `to`). */
function participantRange(zone: string, from: string, to: string): { rangeStart: number; rangeEnd: number } {
  return { rangeStart: DateTime.fromISO(from, { zone }).toMillis(), rangeEnd: DateTime.fromISO(to, { zone }).plus({ days: 1 }).startOf('day').toMillis() };
}

/** Host intervals of every host date that could matter, with their date and wall-clock start. */
function oracleIntervals(host: HostCalendar, rangeStart: number, rangeEnd: number): { date: string; from: number; to: number; start: number; end: number }[] {
  const hostZone = host.availability.timezone;
  const intervals: { date: string; from: number; to: number; start: number; end: number }[] = [];
  for (let d = DateTime.fromMillis(rangeStart, { zone: hostZone }).minus({ days: 2 }).startOf('day'); d.toMillis() < rangeEnd + 2 * 86_400_000; d = d.plus({ days: 1 })) {
    const date = d.toISODate()!;
    const override = host.availability.overrides.find((o) => o.date === date);
    const local = override ? override.intervals : host.availability.weekly[WEEKDAYS[d.weekday - 1]!];
    for (const interval of local) {
      const [from, to] = [toMinutes(interval.start), toMinutes(interval.end)];
      const start = oracleInstant(hostZone, date, from);
      const end = oracleInstant(hostZone, date, to);
      if (start < end) intervals.push({ date, from, to, start, end });
    }
  }
  return intervals;
}

/**
 * Every grid start in the range, in time order, before any rule: for each host interval
 * the wall times start + k × step before its end, each at every instant showing it that
 * lies inside the interval (so the second 01:30 of an interval ending at the first 01:45
 * is not one).
 */
function oracleGrid(host: HostCalendar, rules: SlotRules, rangeStart: number, rangeEnd: number): number[] {
  const grid: number[] = [];
  for (const interval of oracleIntervals(host, rangeStart, rangeEnd)) {
    for (let wall = interval.from; wall < interval.to; wall += rules.slotIntervalMinutes) {
      for (const t of instantsShowing(host.availability.timezone, interval.date, wall)) {
        if (interval.start <= t && t < interval.end && rangeStart <= t && t < rangeEnd) grid.push(t);
      }
    }
  }
  return grid.sort((a, b) => a - b);
}

/** Whether the rules allow a meeting at grid start `t`, checked minute by minute. */
function oracleAllows(host: HostCalendar, rules: SlotRules, now: number, intervals: { start: number; end: number }[], t: number): boolean {
  const hostZone = host.availability.timezone;
  if (t < now + rules.minimumNoticeMinutes * MINUTE || t > now + rules.bookingWindowDays * 86_400_000) return false;
  const covered = (m: number) => intervals.some((i) => i.start <= m && m < i.end);
  for (let m = t; m < t + rules.durationMinutes * MINUTE; m += MINUTE) if (!covered(m)) return false;
  if (rules.dailyLimit !== null) {
    const day = DateTime.fromMillis(t, { zone: hostZone }).toISODate();
    const count = host.busy.filter((b) => b.topicUuid === rules.topicUuid && DateTime.fromMillis(b.start, { zone: hostZone }).toISODate() === day).length;
    if (count >= rules.dailyLimit) return false;
  }
  const spanStart = t - rules.bufferBeforeMinutes * MINUTE;
  const spanEnd = t + (rules.durationMinutes + rules.bufferAfterMinutes) * MINUTE;
  return !host.busy.some((b) => b.start - b.bufferBeforeMinutes * MINUTE < spanEnd && spanStart < b.end + b.bufferAfterMinutes * MINUTE);
}

function oracle(host: HostCalendar, rules: SlotRules, now: number, zone: string, from: string, to: string): DaySlots[] {
  const { rangeStart, rangeEnd } = participantRange(zone, from, to);
  const intervals = oracleIntervals(host, rangeStart, rangeEnd);
  const days: DaySlots[] = [];
  for (let d = DateTime.fromISO(from, { zone }); d.toISODate()! <= to; d = d.plus({ days: 1 })) days.push({ date: d.toISODate()!, slots: [] });
  for (const t of oracleGrid(host, rules, rangeStart, rangeEnd)) {
    if (!oracleAllows(host, rules, now, intervals, t)) continue;
    const date = DateTime.fromMillis(t, { zone }).toISODate()!;
    days.find((day) => day.date === date)!.slots.push({ start: new Date(t).toISOString(), username: host.username });
  }
  return days;
}

/**
 * 0–4 non-overlapping intervals of a day on quarter hours, often touching; `24:00` is allowed
 * as an end. Cut points anywhere, or often between 01:00 and 03:30, where most clocks change
 * (Santiago's at 00:00/24:00).
 */
const dayHours = dayHoursArbitrary(fc.oneof(fc.integer({ min: 0, max: 96 }), fc.integer({ min: 4, max: 14 })), 6);

const scenario = fc
  .record({
    place: fc.oneof(
      fc.record({ hostZone: fc.constantFrom(...ZONES), from: fc.constantFrom(...DATES) }),
      fc.constantFrom(...CHANGES).map(([hostZone, from]) => ({ hostZone, from })),
    ),
    participantZone: fc.constantFrom(...ZONES),
    days: fc.integer({ min: 1, max: 3 }),
    weekly: fc.array(dayHours, { minLength: 7, maxLength: 7 }),
    overrideHours: fc.option(dayHours, { nil: undefined }),
    overrideShift: fc.integer({ min: -1, max: 3 }),
    duration: fc.constantFrom(15, 30, 45, 60, 90),
    step: fc.constantFrom(10, 15, 20, 30, 45, 60),
    bufferBefore: fc.constantFrom(0, 5, 15, 30),
    bufferAfter: fc.constantFrom(0, 10, 15),
    notice: fc.constantFrom(0, 60, 600),
    window: fc.integer({ min: 1, max: 10 }),
    dailyLimit: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
    nowShiftMinutes: fc.integer({ min: -3 * 1440, max: 1440 }),
    busy: fc.array(
      fc.record({
        // 5-minute steps from the range start; often within its first day, so that meetings meet and nest.
        startShift: fc.oneof(fc.integer({ min: -1 * 288, max: 4 * 288 }), fc.integer({ min: 0, max: 288 })),
        minutes: fc.constantFrom(15, 30, 60, 120),
        before: fc.constantFrom(0, 10, 30),
        after: fc.constantFrom(0, 5, 20),
        sameTopic: fc.boolean(),
      }),
      { maxLength: 6 },
    ),
  })
  .map(({ place: { hostZone, from }, ...s }) => {
    const to = DateTime.fromISO(from, { zone: 'UTC' })
      .plus({ days: s.days - 1 })
      .toISODate()!;
    const rangeStart = DateTime.fromISO(from, { zone: s.participantZone }).toMillis();
    const availability = hostAvailability(hostZone, s.weekly, from, s.overrideHours ? { shift: s.overrideShift, hours: s.overrideHours } : undefined);
    const busy: BusyMeeting[] = s.busy.map((b) => {
      const start = rangeStart + b.startShift * 5 * MINUTE;
      return { start, end: start + b.minutes * MINUTE, bufferBeforeMinutes: b.before, bufferAfterMinutes: b.after, topicUuid: b.sameTopic ? 'topic' : 'other' };
    });
    const rules = slotRules(s);
    return { host: { username: 'host', availability, busy }, rules, now: rangeStart + s.nowShiftMinutes * MINUTE, zone: s.participantZone, from, to };
  });

describe('computeSlots against a wall-clock-grid oracle', () => {
  it(
    "offers exactly the starts the rules allow, grouped by the participant's dates",
    () => {
      const runs = 400 * SCALE;
      let withSlots = 0;
      assertProperty(
        fc.property(scenario, ({ host, rules, now, zone, from, to }) => {
          const expected = oracle(host, rules, now, zone, from, to);
          expect(computeSlots(host, rules, { now, participantTimezone: zone, from, to })).toEqual(expected);
          if (expected.some((day) => day.slots.length > 0)) withSlots += 1;
        }),
        runs,
      );
      // Guard against a generator that drifts into cases where both sides offer nothing.
      expect(withSlots).toBeGreaterThan(runs / 4);
    },
    60_000 * SCALE,
  );

  it(
    'isSlotAvailable says yes to every offered start and no to every other grid start and probed minute',
    () => {
      const runs = 1000 * SCALE;
      let gridStarts = 0;
      let offeredStarts = 0;
      assertProperty(
        fc.property(scenario, fc.array(fc.integer({ min: 0, max: 3 * 1440 - 1 }), { minLength: 20, maxLength: 20 }), ({ host, rules, now, zone, from, to }, probes) => {
          const days = computeSlots(host, rules, { now, participantTimezone: zone, from, to });
          const offered = new Set(days.flatMap((day) => day.slots.map((slot) => Date.parse(slot.start))));
          const { rangeStart, rangeEnd } = participantRange(zone, from, to);
          const grid = oracleGrid(host, rules, rangeStart, rangeEnd);
          const onGrid = new Set(grid);
          for (const start of offered) expect(onGrid.has(start)).toBe(true);
          for (const start of grid) expect(isSlotAvailable(host, rules, now, start), new Date(start).toISOString()).toBe(offered.has(start));
          // Off the grid (or on it): minutes anywhere in the range, and beside each grid start.
          const others = [...probes.map((probe) => rangeStart + probe * MINUTE), ...grid.flatMap((start) => [start - MINUTE, start + MINUTE])];
          for (const instant of others) {
            if (instant < rangeStart || instant >= rangeEnd) continue;
            expect(isSlotAvailable(host, rules, now, instant), new Date(instant).toISOString()).toBe(offered.has(instant));
          }
          gridStarts += grid.length;
          offeredStarts += offered.size;
        }),
        runs,
      );
      expect(gridStarts).toBeGreaterThan(runs * 5);
      expect(offeredStarts).toBeGreaterThan(runs);
    },
    60_000 * SCALE,
  );
});
