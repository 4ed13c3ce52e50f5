import { ValidationError, type FieldError } from './errors.js';
import { formatLocalDate, isValidTimeZone, localEpochDay } from './time-zones.js';

export interface ScheduleRangeInput {
  now: number;
  timezone: string;
  offset: number;
  month?: number | undefined;
  year?: number | undefined;
}

/** Inclusive local dates. */
export interface DateRange {
  from: string;
  to: string;
}

const MAX_OFFSET_DAYS = 3640;
const MAX_MONTH = 1200;

/** The request rules of the range: `{ offset: 5 }` → `[{ path: '/offset', message: 'must be a multiple of 7' }]`. */
export function validateScheduleRangeInput(input: ScheduleRangeInput): FieldError[] {
  const errors: FieldError[] = [];
  if (!isValidTimeZone(input.timezone)) errors.push({ path: '/timezone', message: 'must be a valid IANA time zone' });
  if (!Number.isInteger(input.offset) || input.offset < 0) errors.push({ path: '/offset', message: 'must be an integer of at least 0' });
  else if (input.offset % 7 !== 0) errors.push({ path: '/offset', message: 'must be a multiple of 7' });
  else if (input.offset > MAX_OFFSET_DAYS) errors.push({ path: '/offset', message: `must be at most ${MAX_OFFSET_DAYS}` });
  if (input.month !== undefined && (!Number.isInteger(input.month) || input.month < 1 || input.month > MAX_MONTH)) {
    errors.push({ path: '/month', message: `must be an integer from 1 to ${MAX_MONTH}` });
  }
  if (input.year !== undefined && (!Number.isInteger(input.year) || input.year < 1970 || input.year > 9999)) {
    errors.push({ path: '/year', message: 'must be an integer from 1970 to 9999' });
  } else if (input.month !== undefined && errors.length === 0) {
    const baseYear = input.year ?? new Date(localEpochDay(input.timezone, input.now) * 86_400_000).getUTCFullYear();
    if (baseYear + Math.floor((input.month - 1) / 12) > 9999) errors.push({ path: '/month', message: 'reaches past the year 9999' });
  }
  return errors;
}

/**
 * The local dates a schedule covers. With `month`: that whole month, counted from January
 * of `year` (default: this year in `timezone`), so 14 is February of the next year.
 * Otherwise: 7 dates from today in `timezone` plus `offset` days.
 * `resolveScheduleRange({ now: Date.parse('2027-01-01T23:30Z'), timezone: 'Asia/Tokyo', offset: 0 })`
 * → `{ from: '2027-01-02', to: '2027-01-08' }` (it is already the 2nd in Tokyo).
 */
export function resolveScheduleRange(input: ScheduleRangeInput): DateRange {
  const errors = validateScheduleRangeInput(input);
  if (errors.length > 0) throw new ValidationError(errors);
  const today = localEpochDay(input.timezone, input.now);
  if (input.month === undefined) return { from: formatLocalDate(today + input.offset), to: formatLocalDate(today + input.offset + 6) };
  const baseYear = input.year ?? new Date(today * 86_400_000).getUTCFullYear();
  const year = baseYear + Math.floor((input.month - 1) / 12);
  const month = (input.month - 1) % 12;
  if (year > 9999) throw new ValidationError([{ path: '/month', message: 'reaches past the year 9999' }]);
  const first = Date.UTC(year, month, 1) / 86_400_000;
  const last = Date.UTC(year, month + 1, 0) / 86_400_000;
  return { from: formatLocalDate(first), to: formatLocalDate(last) };
}
