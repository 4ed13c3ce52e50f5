import { describe, expect, it } from 'vitest';
import { resolveScheduleRange, validateScheduleRangeInput } from './schedule-range.js';

const at = (iso: string) => Date.parse(iso);

describe('resolveScheduleRange', () => {
  it.each([
    ['7 dates from today', { now: at('2027-03-10T12:00:00Z'), timezone: 'UTC', offset: 0 }, '2027-03-10', '2027-03-16'],
    ['offset moves by weeks', { now: at('2027-03-10T12:00:00Z'), timezone: 'UTC', offset: 14 }, '2027-03-24', '2027-03-30'],
    ["today is the participant's today (already tomorrow in Tokyo)", { now: at('2027-01-01T23:30:00Z'), timezone: 'Asia/Tokyo', offset: 0 }, '2027-01-02', '2027-01-08'],
    ['…and still yesterday in Los Angeles', { now: at('2027-01-01T07:30:00Z'), timezone: 'America/Los_Angeles', offset: 0 }, '2026-12-31', '2027-01-06'],
    ['a week across the year end', { now: at('2027-12-29T12:00:00Z'), timezone: 'UTC', offset: 0 }, '2027-12-29', '2028-01-04'],
    ['month 5 is May of this year', { now: at('2027-03-10T12:00:00Z'), timezone: 'UTC', offset: 0, month: 5 }, '2027-05-01', '2027-05-31'],
    ['month 14 is February of next year (leap)', { now: at('2027-03-10T12:00:00Z'), timezone: 'UTC', offset: 0, month: 14 }, '2028-02-01', '2028-02-29'],
    ['month 12 is December', { now: at('2027-03-10T12:00:00Z'), timezone: 'UTC', offset: 0, month: 12 }, '2027-12-01', '2027-12-31'],
    ['month 13 is January of next year', { now: at('2027-03-10T12:00:00Z'), timezone: 'UTC', offset: 0, month: 13 }, '2028-01-01', '2028-01-31'],
    ['month counts from `year`', { now: at('2027-03-10T12:00:00Z'), timezone: 'UTC', offset: 0, month: 2, year: 2029 }, '2029-02-01', '2029-02-28'],
    [
      "the current year is the participant's (New Year in Kiritimati)",
      { now: at('2027-12-31T11:00:00Z'), timezone: 'Pacific/Kiritimati', offset: 0, month: 1 },
      '2028-01-01',
      '2028-01-31',
    ],
    ['offset does not move a month view', { now: at('2027-03-10T12:00:00Z'), timezone: 'UTC', offset: 21, month: 4 }, '2027-04-01', '2027-04-30'],
  ])('%s', (_name, input, from, to) => {
    expect(resolveScheduleRange(input)).toEqual({ from, to });
  });
});

describe('validateScheduleRangeInput', () => {
  const now = at('2027-03-10T12:00:00Z');
  it.each([
    [{ offset: 5 }, '/offset', 'must be a multiple of 7'],
    [{ offset: -7 }, '/offset', 'must be an integer of at least 0'],
    [{ offset: 1.5 }, '/offset', 'must be an integer of at least 0'],
    [{ month: 0 }, '/month', 'must be an integer from 1 to 1200'],
    [{ year: 1800 }, '/year', 'must be an integer from 1970 to 9999'],
    [{ timezone: 'Nowhere/Land' }, '/timezone', 'must be a valid IANA time zone'],
  ])('%j → %s', (patch, path, message) => {
    expect(validateScheduleRangeInput({ now, timezone: 'UTC', offset: 0, ...patch })).toEqual([{ path, message }]);
  });
  it('checks offset even when month is given', () => {
    expect(validateScheduleRangeInput({ now, timezone: 'UTC', offset: 3, month: 4 })).toEqual([{ path: '/offset', message: 'must be a multiple of 7' }]);
  });
  it('reports a month reaching past the year 9999 at /month', () => {
    expect(validateScheduleRangeInput({ now, timezone: 'UTC', offset: 0, month: 1200, year: 9999 })).toEqual([{ path: '/month', message: 'reaches past the year 9999' }]);
  });
  it('refuses a month reaching past the year 9999', () => {
    expect(() => resolveScheduleRange({ now, timezone: 'UTC', offset: 0, month: 1200, year: 9999 })).toThrow(/9999/);
  });
});
