import fc from 'fast-check';
import { DateTime } from 'luxon';
import { WEEKDAYS, type Availability, type LocalInterval } from './availability.js';
import type { SlotRules } from './slots.js';

/*
 * What the slot engine's property tests (slots.property.test.ts, explain.property.test.ts)
 * build their random hosts from. Test support only: nothing in src/ imports it, and
 * tsconfig.build.json leaves it out of dist/ (fast-check is a dev dependency).
 */

/** A quarter-hour count as a wall-clock time: 38 → '09:30', 96 → '24:00' (allowed as an end). */
export const quarterHourTime = (quarterHours: number) => {
  const minutes = quarterHours * 15;
  return minutes === 1440 ? '24:00' : `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
};

/**
 * Non-overlapping intervals of a day on quarter hours: up to `maxCuts` distinct cut points
 * (quarter-hour counts drawn from `cut`), and each pair of consecutive ones becomes either an
 * interval or a gap, so intervals often touch (`09:00–12:00` + `12:00–13:00`).
 */
export function dayHoursArbitrary(cut: fc.Arbitrary<number>, maxCuts: number): fc.Arbitrary<LocalInterval[]> {
  return fc.tuple(fc.uniqueArray(cut, { minLength: 0, maxLength: maxCuts }), fc.array(fc.boolean(), { minLength: maxCuts, maxLength: maxCuts })).map(([cuts, open]) => {
    const sorted = [...cuts].sort((a, b) => a - b);
    const intervals: LocalInterval[] = [];
    for (let i = 0; i + 1 < sorted.length; i += 1) if (open[i]) intervals.push({ start: quarterHourTime(sorted[i]!), end: quarterHourTime(sorted[i + 1]!) });
    return intervals;
  });
}

/**
 * A host's hours in `zone`: `weekly` from Monday to Sunday, and, when `override` is given, the
 * date `override.shift` days after `from` with `override.hours` instead (none: a day off).
 */
export function hostAvailability(zone: string, weekly: readonly LocalInterval[][], from: string, override: { shift: number; hours: LocalInterval[] } | undefined): Availability {
  return {
    timezone: zone,
    weekly: Object.fromEntries(WEEKDAYS.map((day, i) => [day, weekly[i]!])) as Availability['weekly'],
    overrides: override ? [{ date: DateTime.fromISO(from, { zone: 'UTC' }).plus({ days: override.shift }).toISODate()!, intervals: override.hours }] : [],
  };
}

/** The rules of the topic 'topic' from the values both tests draw (explain.property adds its weekly and monthly limits and seats). */
export function slotRules(s: { duration: number; step: number; bufferBefore: number; bufferAfter: number; notice: number; window: number; dailyLimit: number | null }): SlotRules {
  return {
    topicUuid: 'topic',
    durationMinutes: s.duration,
    slotIntervalMinutes: s.step,
    bufferBeforeMinutes: s.bufferBefore,
    bufferAfterMinutes: s.bufferAfter,
    minimumNoticeMinutes: s.notice,
    bookingWindowDays: s.window,
    dailyLimit: s.dailyLimit,
  };
}
