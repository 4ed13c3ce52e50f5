import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { WEEKDAYS, type Availability, type LocalInterval } from './availability.js';
import { computeSlots, isSlotAvailable, type BusyMeeting, type DaySlots, type HostCalendar, type SlotRules } from './slots.js';

/**
 * The engine against a deliberately naive oracle: every minute of the participant's range
 * is checked against the rules as the contract states them, with Luxon doing every time
 * zone conversion (no shared code with the engine beyond the types).
 */

// America/Santiago changes its clocks at midnight: some of its dates start at 01:00.
const ZONES = ['Europe/Warsaw', 'America/New_York', 'Asia/Tokyo', 'Asia/Kolkata', 'Pacific/Kiritimati', 'America/Los_Angeles', 'UTC', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'America/Santiago'];
// Dates around daylight-saving changes in the zones above, and ordinary ones.
const DATES = ['2027-03-13', '2027-03-14', '2027-03-27', '2027-03-28', '2027-04-03', '2027-04-04', '2027-09-04', '2027-09-05', '2027-10-03', '2027-10-30', '2027-10-31', '2027-11-06', '2027-11-07', '2027-01-15', '2027-06-21'];
const MINUTE = 60_000;
// PROPERTY_SCALE=20 for a deeper search than the default run affords.
const SCALE = Number(process.env.PROPERTY_SCALE ?? 1);

/** Oracle's wall time → instant: the earliest instant showing that wall time; in a gap, the first instant showing a later one. */
function oracleInstant(zone: string, date: string, minutes: number): number {
  const base = DateTime.fromISO(date, { zone: 'UTC' }).plus({ minutes });
  const wall = base.toFormat("yyyy-MM-dd'T'HH:mm");
  const candidates: number[] = [];
  for (let offset = -16 * 60; offset <= 16 * 60; offset += 15) {
    const instant = base.toMillis() - offset * MINUTE;
    if (DateTime.fromMillis(instant, { zone }).toFormat("yyyy-MM-dd'T'HH:mm") === wall) candidates.push(instant);
  }
  if (candidates.length > 0) return Math.min(...candidates);
  for (let instant = base.toMillis() - 16 * 60 * MINUTE; ; instant += MINUTE) {
    if (DateTime.fromMillis(instant, { zone }).toFormat("yyyy-MM-dd'T'HH:mm") > wall) return instant;
  }
}

function toMinutes(time: string): number {
  return time === '24:00' ? 1440 : Number(time.slice(0, 2)) * 60 + Number(time.slice(3));
}

function oracle(host: HostCalendar, rules: SlotRules, now: number, zone: string, from: string, to: string): DaySlots[] {
  const hostZone = host.availability.timezone;
  const rangeStart = DateTime.fromISO(from, { zone }).toMillis();
  const rangeEnd = DateTime.fromISO(to, { zone }).plus({ days: 1 }).startOf('day').toMillis();
  // Host intervals of every host date that could matter.
  const intervals: { start: number; end: number }[] = [];
  for (let d = DateTime.fromMillis(rangeStart, { zone: hostZone }).minus({ days: 2 }).startOf('day'); d.toMillis() < rangeEnd + 2 * 86_400_000; d = d.plus({ days: 1 })) {
    const date = d.toISODate()!;
    const override = host.availability.overrides.find((o) => o.date === date);
    const local = override ? override.intervals : host.availability.weekly[WEEKDAYS[d.weekday - 1]!];
    for (const interval of local) {
      const start = oracleInstant(hostZone, date, toMinutes(interval.start));
      const end = oracleInstant(hostZone, date, toMinutes(interval.end));
      if (start < end) intervals.push({ start, end });
    }
  }
  const covered = (t: number) => intervals.some((i) => i.start <= t && t < i.end);
  const days: DaySlots[] = [];
  for (let d = DateTime.fromISO(from, { zone }); d.toISODate()! <= to; d = d.plus({ days: 1 })) days.push({ date: d.toISODate()!, slots: [] });
  for (let t = rangeStart; t < rangeEnd; t += MINUTE) {
    const interval = intervals.find((i) => i.start <= t && t < i.end);
    if (!interval || (t - interval.start) % (rules.slotIntervalMinutes * MINUTE) !== 0) continue;
    if (t < now + rules.minimumNoticeMinutes * MINUTE || t > now + rules.bookingWindowDays * 86_400_000) continue;
    let fits = true;
    for (let m = t; m < t + rules.durationMinutes * MINUTE; m += MINUTE) if (!covered(m)) fits = false;
    if (!fits) continue;
    if (rules.dailyLimit !== null) {
      const day = DateTime.fromMillis(t, { zone: hostZone }).toISODate();
      const count = host.busy.filter((b) => b.topicUuid === rules.topicUuid && DateTime.fromMillis(b.start, { zone: hostZone }).toISODate() === day).length;
      if (count >= rules.dailyLimit) continue;
    }
    const spanStart = t - rules.bufferBeforeMinutes * MINUTE;
    const spanEnd = t + (rules.durationMinutes + rules.bufferAfterMinutes) * MINUTE;
    if (host.busy.some((b) => b.start - b.bufferBeforeMinutes * MINUTE < spanEnd && spanStart < b.end + b.bufferAfterMinutes * MINUTE)) continue;
    const date = DateTime.fromMillis(t, { zone }).toISODate()!;
    days.find((day) => day.date === date)!.slots.push({ start: new Date(t).toISOString(), username: host.username });
  }
  return days;
}

const time = (quarterHours: number) => {
  const minutes = quarterHours * 15;
  return minutes === 1440 ? '24:00' : `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
};

/**
 * 0–4 non-overlapping intervals of a day on quarter hours: consecutive cut points become
 * either an interval or a gap, so intervals often touch (`09:00–12:00` + `12:00–13:00`);
 * `24:00` is allowed as an end.
 */
const dayHours: fc.Arbitrary<LocalInterval[]> = fc
  .tuple(fc.uniqueArray(fc.integer({ min: 0, max: 96 }), { minLength: 0, maxLength: 6 }), fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }))
  .map(([cuts, open]) => {
    const sorted = [...cuts].sort((a, b) => a - b);
    const intervals: LocalInterval[] = [];
    for (let i = 0; i + 1 < sorted.length; i += 1) if (open[i]) intervals.push({ start: time(sorted[i]!), end: time(sorted[i + 1]!) });
    return intervals;
  });

const scenario = fc
  .record({
    hostZone: fc.constantFrom(...ZONES),
    participantZone: fc.constantFrom(...ZONES),
    from: fc.constantFrom(...DATES),
    days: fc.integer({ min: 1, max: 3 }),
    weekly: fc.array(dayHours, { minLength: 7, maxLength: 7 }),
    overrideHours: fc.option(dayHours, { nil: undefined }),
    overrideShift: fc.integer({ min: -1, max: 3 }),
    duration: fc.constantFrom(15, 30, 45, 60, 90),
    step: fc.constantFrom(10, 15, 30, 60),
    bufferBefore: fc.constantFrom(0, 5, 15, 30),
    bufferAfter: fc.constantFrom(0, 10, 15),
    notice: fc.constantFrom(0, 60, 600),
    window: fc.integer({ min: 1, max: 10 }),
    dailyLimit: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
    nowShiftMinutes: fc.integer({ min: -3 * 1440, max: 1440 }),
    busy: fc.array(
      fc.record({
        startShift: fc.integer({ min: -1 * 288, max: 4 * 288 }), // 5-minute steps from the range start
        minutes: fc.constantFrom(15, 30, 60, 120),
        before: fc.constantFrom(0, 10, 30),
        after: fc.constantFrom(0, 5, 20),
        sameTopic: fc.boolean(),
      }),
      { maxLength: 6 },
    ),
  })
  .map((s) => {
    const to = DateTime.fromISO(s.from, { zone: 'UTC' }).plus({ days: s.days - 1 }).toISODate()!;
    const rangeStart = DateTime.fromISO(s.from, { zone: s.participantZone }).toMillis();
    const availability: Availability = {
      timezone: s.hostZone,
      weekly: Object.fromEntries(WEEKDAYS.map((day, i) => [day, s.weekly[i]!])) as Availability['weekly'],
      overrides: s.overrideHours ? [{ date: DateTime.fromISO(s.from, { zone: 'UTC' }).plus({ days: s.overrideShift }).toISODate()!, intervals: s.overrideHours }] : [],
    };
    const busy: BusyMeeting[] = s.busy.map((b) => {
      const start = rangeStart + b.startShift * 5 * MINUTE;
      return { start, end: start + b.minutes * MINUTE, bufferBeforeMinutes: b.before, bufferAfterMinutes: b.after, topicUuid: b.sameTopic ? 'topic' : 'other' };
    });
    const rules: SlotRules = {
      topicUuid: 'topic',
      durationMinutes: s.duration,
      slotIntervalMinutes: s.step,
      bufferBeforeMinutes: s.bufferBefore,
      bufferAfterMinutes: s.bufferAfter,
      minimumNoticeMinutes: s.notice,
      bookingWindowDays: s.window,
      dailyLimit: s.dailyLimit,
    };
    return { host: { username: 'host', availability, busy }, rules, now: rangeStart + s.nowShiftMinutes * MINUTE, zone: s.participantZone, from: s.from, to };
  });

describe('computeSlots against a minute-by-minute oracle', () => {
  it('offers exactly the starts the rules allow, grouped by the participant\'s dates', () => {
    fc.assert(
      fc.property(scenario, ({ host, rules, now, zone, from, to }) => {
        const actual = computeSlots(host, rules, { now, participantTimezone: zone, from, to });
        expect(actual).toEqual(oracle(host, rules, now, zone, from, to));
      }),
      { numRuns: 400 * SCALE },
    );
  }, 60_000 * SCALE);

  it('isSlotAvailable says yes to every offered start and no to every other minute of the range', () => {
    fc.assert(
      fc.property(scenario, fc.array(fc.integer({ min: 0, max: 3 * 1440 - 1 }), { minLength: 20, maxLength: 20 }), ({ host, rules, now, zone, from, to }, probes) => {
        const days = computeSlots(host, rules, { now, participantTimezone: zone, from, to });
        const offered = new Set(days.flatMap((day) => day.slots.map((slot) => Date.parse(slot.start))));
        for (const start of offered) expect(isSlotAvailable(host, rules, now, start)).toBe(true);
        const rangeStart = DateTime.fromISO(from, { zone }).toMillis();
        const rangeEnd = DateTime.fromISO(to, { zone }).plus({ days: 1 }).startOf('day').toMillis();
        for (const probe of probes) {
          const instant = rangeStart + probe * MINUTE;
          if (instant >= rangeEnd) continue;
          expect(isSlotAvailable(host, rules, now, instant)).toBe(offered.has(instant));
        }
      }),
      { numRuns: 2000 * SCALE },
    );
  }, 60_000 * SCALE);
});
