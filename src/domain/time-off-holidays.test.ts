import { describe, expect, it } from 'vitest';
import { WEEKDAYS, validateAvailability, type Availability } from './availability.js';
import { holidayOn, isHolidayCountry, publicHolidaysOf } from './holidays.js';
import { computeSlots, explainSlot, isSlotAvailable, type Exclusion, type HostCalendar, type SlotRules } from './slots.js';
import { validateTimeOff } from './time-off.js';

/**
 * Time off and public holidays in the slot engine, on Warsaw's clock-change days
 * (2027-03-28, Easter Sunday too: 02:00 CET → 03:00 CEST; 2027-10-31: 03:00 CEST → 02:00 CET).
 */
const at = (iso: string) => Date.parse(iso);
const hours = (extra: Partial<Availability> = {}): Availability => ({
  timezone: 'Europe/Warsaw',
  weekly: Object.fromEntries(WEEKDAYS.map((day) => [day, [{ start: '08:00', end: '12:00' }]])) as Availability['weekly'],
  overrides: [],
  ...extra,
});
const rules: SlotRules = {
  topicUuid: 'topic',
  durationMinutes: 60,
  slotIntervalMinutes: 60,
  bufferBeforeMinutes: 0,
  bufferAfterMinutes: 0,
  minimumNoticeMinutes: 0,
  bookingWindowDays: 400,
  dailyLimit: null,
};
const NOW = at('2027-03-01T00:00:00Z');
const host = (extra: Partial<HostCalendar> = {}): HostCalendar => ({ username: 'anna', availability: hours(), busy: [], ...extra });
const startsOn = (calendar: HostCalendar, date: string) =>
  computeSlots(calendar, rules, { now: NOW, participantTimezone: 'Europe/Warsaw', from: date, to: date })[0]!.slots.map((slot) => slot.start);

describe('public holidays', () => {
  it("takes the country's public holidays from date-holidays, not observances or school days", () => {
    const polish = publicHolidaysOf('PL', 2027);
    expect(polish.get('2027-03-28')).toBe('Easter Sunday');
    expect(polish.get('2027-11-11')).toBe('Independence Day');
    // Good Friday is a school holiday in Poland, Valentine's Day an observance: both workdays.
    expect(polish.has('2027-03-26')).toBe(false);
    expect(polish.has('2027-02-14')).toBe(false);
    expect(isHolidayCountry('PL')).toBe(true);
    expect(isHolidayCountry('XX')).toBe(false);
  });

  it.each([
    { name: 'a holiday is a day off on the spring-forward day (Easter Sunday 2027)', extra: { holidays: 'PL' }, date: '2027-03-28', offered: [] as string[] },
    {
      name: 'without a country the spring-forward day keeps its hours, 08:00–12:00 CEST',
      extra: {},
      date: '2027-03-28',
      offered: ['2027-03-28T06:00:00.000Z', '2027-03-28T07:00:00.000Z', '2027-03-28T08:00:00.000Z', '2027-03-28T09:00:00.000Z'],
    },
    {
      name: 'a holiday exception is worked',
      extra: { holidays: 'PL', holidayExceptions: ['2027-03-28'] },
      date: '2027-03-28',
      offered: ['2027-03-28T06:00:00.000Z', '2027-03-28T07:00:00.000Z', '2027-03-28T08:00:00.000Z', '2027-03-28T09:00:00.000Z'],
    },
    {
      name: "an override of the date wins over the holiday (the host's own choice)",
      extra: { holidays: 'PL', overrides: [{ date: '2027-11-11', intervals: [{ start: '10:00', end: '11:00' }] }] },
      date: '2027-11-11',
      offered: ['2027-11-11T09:00:00.000Z'],
    },
    { name: 'another country keeps its own calendar: Independence Day is no holiday in Germany', extra: { holidays: 'DE' }, date: '2027-11-11', offered: null },
  ])('$name', ({ extra, date, offered }) => {
    const calendar = host({ availability: hours(extra) });
    const starts = startsOn(calendar, date);
    if (offered === null) expect(starts).toHaveLength(4);
    else expect(starts).toEqual(offered);
  });

  it('explains a holiday as HOLIDAY, naming it', () => {
    const calendar = host({ availability: hours({ holidays: 'PL' }) });
    const expected: Exclusion = { code: 'HOLIDAY', date: '2027-03-28', name: 'Easter Sunday' };
    expect(explainSlot(calendar, rules, NOW, at('2027-03-28T07:00:00Z'))).toEqual([expected]);
    expect(isSlotAvailable(calendar, rules, NOW, at('2027-03-28T07:00:00Z'))).toBe(false);
  });

  it('refuses a country the library does not know and a malformed exception', () => {
    expect(validateAvailability(hours({ holidays: 'XX', holidayExceptions: ['2027-02-30'] }))).toEqual([
      { path: '/holidays', message: expect.stringContaining('ISO 3166') },
      { path: '/holidayExceptions/0', message: 'must be a real calendar date (YYYY-MM-DD)' },
    ]);
    expect(holidayOn({ holidays: null }, '2027-11-11')).toBeNull();
  });
});

describe('time off', () => {
  // Across the fall-back night: Saturday 12:00 CEST to Monday 09:00 CET.
  const away = { start: at('2027-10-30T10:00:00Z'), end: at('2027-11-01T08:00:00Z') };

  it.each([
    { date: '2027-10-30', offered: ['2027-10-30T06:00:00.000Z', '2027-10-30T07:00:00.000Z', '2027-10-30T08:00:00.000Z', '2027-10-30T09:00:00.000Z'] },
    { date: '2027-10-31', offered: [] as string[] },
    // Monday 08:00 CET is 07:00Z, inside; 09:00 CET (08:00Z) is the end, free again.
    { date: '2027-11-01', offered: ['2027-11-01T08:00:00.000Z', '2027-11-01T09:00:00.000Z', '2027-11-01T10:00:00.000Z'] },
  ])('offers nothing that overlaps time off across the fall-back night: $date', ({ date, offered }) => {
    expect(startsOn(host({ timeOff: [away] }), date)).toEqual(offered);
  });

  it('explains an overlap as TIME_OFF with the span, and a meeting ending at its start is fine', () => {
    const calendar = host({ timeOff: [away] });
    expect(explainSlot(calendar, rules, NOW, at('2027-10-31T08:00:00Z'))).toEqual([{ code: 'TIME_OFF', start: away.start, end: away.end }]);
    expect(explainSlot(calendar, rules, NOW, at('2027-10-30T09:00:00Z'))).toEqual([]);
  });

  it('validates the span and the reason', () => {
    const now = at('2027-01-04T00:00:00Z');
    expect(validateTimeOff({ start: at('2027-02-02T00:00:00Z'), end: at('2027-02-01T00:00:00Z') }, now)).toEqual([{ path: '/end', message: 'must be after start' }]);
    expect(validateTimeOff({ start: at('2026-12-01T00:00:00Z'), end: at('2026-12-02T00:00:00Z') }, now)).toEqual([{ path: '/end', message: 'must be in the future' }]);
    expect(validateTimeOff({ start: at('2027-02-01T00:00:00Z'), end: at('2028-03-01T00:00:00Z') }, now)[0]?.path).toBe('/end');
    expect(validateTimeOff({ start: at('2027-02-01T00:00:00Z'), end: at('2027-02-02T00:00:00Z'), reason: 'x'.repeat(501) }, now)[0]?.path).toBe('/reason');
  });
});
