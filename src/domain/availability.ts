import type { FieldError } from './errors.js';
import { isHolidayCountry } from './holidays.js';
import { isValidTimeZone, parseLocalDate } from './time-zones.js';

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** Local wall-clock `HH:MM`; `end` may be `24:00`, the end of the day. */
export interface LocalInterval {
  start: string;
  end: string;
}
export type WeeklyHours = Record<Weekday, LocalInterval[]>;
/** Replaces the weekly hours of one host-local date; no intervals: a day off. */
export interface DateOverride {
  date: string;
  intervals: LocalInterval[];
}
export interface Availability {
  timezone: string;
  weekly: WeeklyHours;
  overrides: DateOverride[];
  /** An ISO 3166 country whose public holidays are days off here (see holidays.ts); absent or null: none. */
  holidays?: string | null;
  /** Local dates of those holidays worked anyway. */
  holidayExceptions?: string[];
}

/** Most holiday exceptions one schedule keeps. */
export const MAX_HOLIDAY_EXCEPTIONS = 366;

/** What every new user starts with: `createDefaultAvailability('Europe/Warsaw')` → Mon–Fri 09:00–17:00 there. */
export function createDefaultAvailability(timezone: string): Availability {
  const workday = (): LocalInterval[] => [{ start: '09:00', end: '17:00' }];
  return {
    timezone,
    weekly: { monday: workday(), tuesday: workday(), wednesday: workday(), thursday: workday(), friday: workday(), saturday: [], sunday: [] },
    overrides: [],
  };
}

const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** `'09:30'` → 570, `'24:00'` → 1440 when allowed; NaN when malformed. */
export function parseLocalTime(time: string, allowEndOfDay = false): number {
  if (allowEndOfDay && time === '24:00') return 1440;
  const match = TIME.exec(time);
  return match ? Number(match[1]) * 60 + Number(match[2]) : Number.NaN;
}

/**
 * Every problem of an availability, with JSON Pointer paths: `[]` when valid.
 * `validateAvailability({ timezone: 'Mars/Base', … })` → `[{ path: '/timezone', … }]`.
 */
export function validateAvailability(input: Availability): FieldError[] {
  const errors: FieldError[] = [];
  if (!isValidTimeZone(input.timezone)) errors.push({ path: '/timezone', message: 'must be a valid IANA time zone' });
  for (const day of WEEKDAYS) errors.push(...validateIntervals(input.weekly[day] ?? [], `/weekly/${day}`));
  const seen = new Set<string>();
  input.overrides.forEach((override, index) => {
    if (Number.isNaN(parseLocalDate(override.date))) errors.push({ path: `/overrides/${index}/date`, message: 'must be a real calendar date (YYYY-MM-DD)' });
    else if (seen.has(override.date)) errors.push({ path: `/overrides/${index}/date`, message: 'duplicates an earlier override' });
    seen.add(override.date);
    errors.push(...validateIntervals(override.intervals, `/overrides/${index}/intervals`));
  });
  if (input.holidays !== undefined && input.holidays !== null && !isHolidayCountry(input.holidays)) {
    errors.push({ path: '/holidays', message: 'must be an ISO 3166 country code with public holidays known to termin (e.g. "PL")' });
  }
  const exceptions = input.holidayExceptions ?? [];
  if (exceptions.length > MAX_HOLIDAY_EXCEPTIONS) errors.push({ path: '/holidayExceptions', message: `must have at most ${MAX_HOLIDAY_EXCEPTIONS} dates` });
  exceptions.forEach((date, index) => {
    if (Number.isNaN(parseLocalDate(date))) errors.push({ path: `/holidayExceptions/${index}`, message: 'must be a real calendar date (YYYY-MM-DD)' });
  });
  return errors;
}

function validateIntervals(intervals: LocalInterval[], path: string): FieldError[] {
  const errors: FieldError[] = [];
  const parsed: { start: number; end: number; index: number }[] = [];
  intervals.forEach((interval, index) => {
    const start = parseLocalTime(interval.start);
    const end = parseLocalTime(interval.end, true);
    if (Number.isNaN(start)) errors.push({ path: `${path}/${index}/start`, message: 'must be a time HH:MM from 00:00 to 23:59' });
    if (Number.isNaN(end)) errors.push({ path: `${path}/${index}/end`, message: 'must be a time HH:MM from 00:00 to 24:00' });
    if (Number.isNaN(start) || Number.isNaN(end)) return;
    if (start >= end) errors.push({ path: `${path}/${index}`, message: 'must start before it ends' });
    else parsed.push({ start, end, index });
  });
  parsed.sort((a, b) => a.start - b.start);
  // Compare with the interval reaching furthest so far: in 09–17, 10–11, 12–13 both later ones overlap the first.
  for (let i = 1, reach = 0; i < parsed.length; i += 1) {
    if (parsed[i - 1]!.end > parsed[reach]!.end) reach = i - 1;
    const previous = parsed[reach]!;
    const current = parsed[i]!;
    if (current.start < previous.end) {
      const later = Math.max(previous.index, current.index);
      const earlier = Math.min(previous.index, current.index);
      errors.push({ path: `${path}/${later}`, message: `overlaps ${path}/${earlier}` });
    }
  }
  return errors;
}

/**
 * Intervals in time order and overrides in date order, as stored and echoed. Holidays are
 * kept only when a country is named or an exception given: hours without them read and
 * echo exactly as before public holidays existed.
 */
export function normalizeAvailability(availability: Availability): Availability {
  const sortIntervals = (intervals: LocalInterval[]) => intervals.map(({ start, end }) => ({ start, end })).sort((a, b) => parseLocalTime(a.start) - parseLocalTime(b.start));
  const exceptions = [...new Set(availability.holidayExceptions ?? [])].sort();
  const holidays = availability.holidays
    ? { holidays: availability.holidays, holidayExceptions: exceptions }
    : exceptions.length > 0
      ? { holidays: null, holidayExceptions: exceptions }
      : {};
  return {
    timezone: availability.timezone,
    weekly: Object.fromEntries(WEEKDAYS.map((day) => [day, sortIntervals(availability.weekly[day] ?? [])])) as WeeklyHours,
    overrides: availability.overrides
      .map((override) => ({ date: override.date, intervals: sortIntervals(override.intervals) }))
      .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0)),
    ...holidays,
  };
}
