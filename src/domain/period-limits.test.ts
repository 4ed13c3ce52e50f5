import { describe, expect, it } from 'vitest';
import { WEEKDAYS, type Availability } from './availability.js';
import { findFullPeriods, monthOfDay, weekOfDay, type HostLimits } from './period-limits.js';
import { computeSlots, isSlotAvailable, type BusyMeeting, type SlotRules } from './slots.js';
import { parseLocalDate } from './time-zones.js';

const TOPIC = 'topic-a';
const meeting = (iso: string, topicUuid = TOPIC) => ({ start: Date.parse(iso), topicUuid });

describe('weekOfDay and monthOfDay', () => {
  it.each([
    ['2027-03-22', '2027-03-22'], // a Monday is its own week
    ['2027-03-28', '2027-03-22'], // Sunday belongs to the Monday before
    ['2027-03-29', '2027-03-29'],
    ['1970-01-01', '1969-12-29'], // the epoch was a Thursday
    ['2028-01-02', '2027-12-27'], // across a year
  ])('%s is in the week of Monday %s', (date, monday) => {
    expect(weekOfDay(parseLocalDate(date))).toBe(parseLocalDate(monday));
  });

  it.each([
    ['1970-01-01', 0],
    ['2027-03-31', 686],
    ['2027-04-01', 687],
    ['2028-02-29', 697],
    ['1969-12-31', -1],
  ])('%s is month %i since 1970-01', (date, month) => {
    expect(monthOfDay(parseLocalDate(date))).toBe(month);
  });
});

describe('findFullPeriods', () => {
  const full = (busy: { start: number; topicUuid: string }[], limits: { weeklyLimit?: number; monthlyLimit?: number }, zone: string, host: HostLimits | null = null) =>
    findFullPeriods(busy, { topicUuid: TOPIC, ...limits }, zone, host);

  it('costs nothing when no limit applies', () => {
    expect(full([meeting('2027-03-22T09:00Z')], {}, 'Europe/Warsaw')).toBeNull();
  });

  // Europe/Warsaw goes to summer time on Sunday 2027-03-28 (02:00 → 03:00): a 167-hour week.
  // America/New_York on Sunday 2027-03-14. Each row: meetings, the limit, a start, full?
  it.each([
    {
      name: 'Warsaw: two in the DST week fill it, to its very last minute (Sunday 23:59 CEST)',
      zone: 'Europe/Warsaw',
      busy: ['2027-03-22T08:00Z', '2027-03-28T21:30Z'], // Mon 09:00 CET, Sun 23:30 CEST
      start: '2027-03-28T21:59Z',
      full: true,
    },
    {
      name: 'Warsaw: Monday 00:00 CEST after the DST week is a new week',
      zone: 'Europe/Warsaw',
      busy: ['2027-03-22T08:00Z', '2027-03-28T21:30Z'],
      start: '2027-03-28T22:00Z',
      full: false,
    },
    {
      name: 'Warsaw: Sunday 23:30 CEST is 21:30 UTC, still the week the UTC calendar would also say',
      zone: 'Europe/Warsaw',
      busy: ['2027-03-22T08:00Z', '2027-03-24T08:00Z'],
      start: '2027-03-28T21:30Z',
      full: true,
    },
    {
      name: 'New York: Sunday 21:00 EDT (Monday 01:00 UTC) is still the DST week in New York',
      zone: 'America/New_York',
      busy: ['2027-03-08T14:00Z', '2027-03-10T14:00Z'], // Mon and Wed 09:00 EST
      start: '2027-03-15T01:00Z',
      full: true,
    },
    {
      name: 'New York: Monday 00:00 EDT (04:00 UTC) starts the next week',
      zone: 'America/New_York',
      busy: ['2027-03-08T14:00Z', '2027-03-14T23:00Z'], // Mon 09:00 EST, Sun 19:00 EDT
      start: '2027-03-15T04:00Z',
      full: false,
    },
    {
      name: 'New York: a meeting on Sunday night EDT counts in the week it is local to, not the UTC one',
      zone: 'America/New_York',
      busy: ['2027-03-08T14:00Z', '2027-03-15T03:00Z'], // Mon 09:00 EST, Sun 23:00 EDT = Monday UTC
      start: '2027-03-12T14:00Z',
      full: true,
    },
  ])('weekly limit 2 — $name', ({ zone, busy, start, full: expected }) => {
    const check = full(
      busy.map((iso) => meeting(iso)),
      { weeklyLimit: 2 },
      zone,
    );
    expect(check?.(Date.parse(start))).toBe(expected);
  });

  it('counts only the topic’s meetings for its own limits, every meeting but remote events for the host’s', () => {
    const busy = [meeting('2027-03-22T08:00Z', 'other-topic'), meeting('2027-03-23T08:00Z', 'external:cal-1'), meeting('2027-03-24T08:00Z')];
    const wed = Date.parse('2027-03-25T08:00Z');
    expect(full(busy, { weeklyLimit: 2 }, 'Europe/Warsaw')?.(wed)).toBe(false);
    const host: HostLimits = { timezone: 'Europe/Warsaw', daily: null, weekly: 2 };
    expect(full(busy, {}, 'Europe/Warsaw', host)?.(wed)).toBe(true);
    expect(full(busy, {}, 'Europe/Warsaw', { ...host, weekly: 3 })?.(wed)).toBe(false);
  });

  it('counts the host’s daily limit in the host’s zone, whatever zone the topic’s hours use', () => {
    // 23:30 UTC on the 22nd is already the 23rd in Warsaw.
    const busy = [meeting('2027-03-22T23:30Z', 'other-topic')];
    const host: HostLimits = { timezone: 'Europe/Warsaw', daily: 1, weekly: null };
    expect(full(busy, {}, 'UTC', host)?.(Date.parse('2027-03-23T08:00Z'))).toBe(true);
    expect(full(busy, {}, 'UTC', host)?.(Date.parse('2027-03-22T08:00Z'))).toBe(false);
  });

  it.each([
    ['2027-03-31T21:59Z', true], // 23:59 CEST on 31 March
    ['2027-03-31T22:00Z', false], // 00:00 CEST on 1 April
    ['2027-02-28T22:59Z', false], // 23:59 CET on 28 February
  ])('monthly limit 1 in Warsaw with a meeting on 1 March: %s full? %s', (start, expected) => {
    expect(full([meeting('2027-03-01T08:00Z')], { monthlyLimit: 1 }, 'Europe/Warsaw')?.(Date.parse(start))).toBe(expected);
  });
});

describe('the engine with period limits', () => {
  const hours: Availability = {
    timezone: 'Europe/Warsaw',
    weekly: Object.fromEntries(WEEKDAYS.map((day) => [day, [{ start: '09:00', end: '11:00' }]])) as Availability['weekly'],
    overrides: [],
  };
  const rules = (extra: Partial<SlotRules>): SlotRules => ({
    topicUuid: TOPIC,
    durationMinutes: 60,
    slotIntervalMinutes: 60,
    bufferBeforeMinutes: 0,
    bufferAfterMinutes: 0,
    minimumNoticeMinutes: 0,
    bookingWindowDays: 365,
    dailyLimit: null,
    ...extra,
  });
  const busy = (iso: string, topicUuid = TOPIC): BusyMeeting => ({
    start: Date.parse(iso),
    end: Date.parse(iso) + 3_600_000,
    bufferBeforeMinutes: 0,
    bufferAfterMinutes: 0,
    topicUuid,
  });
  const now = Date.parse('2027-03-01T00:00Z');
  const offeredDates = (calendar: Parameters<typeof computeSlots>[0], slotRules: SlotRules) =>
    computeSlots(calendar, slotRules, { now, participantTimezone: 'Europe/Warsaw', from: '2027-03-22', to: '2027-03-29' })
      .filter((day) => day.slots.length > 0)
      .map((day) => day.date);

  it('offers nothing else in a full DST week, and the booking check agrees on every hour', () => {
    const calendar = { username: 'anna', availability: hours, busy: [busy('2027-03-22T08:00Z'), busy('2027-03-28T07:00Z')] };
    const weekly = rules({ weeklyLimit: 2 });
    expect(offeredDates(calendar, weekly)).toEqual(['2027-03-29']);
    for (let t = Date.parse('2027-03-22T00:00Z'); t < Date.parse('2027-03-30T00:00Z'); t += 3_600_000) {
      const offered = computeSlots(calendar, weekly, { now, participantTimezone: 'UTC', from: '2027-03-22', to: '2027-03-29' }).some((day) =>
        day.slots.some((slot) => Date.parse(slot.start) === t),
      );
      expect(isSlotAvailable(calendar, weekly, now, t)).toBe(offered);
    }
  });

  it('applies the host’s own weekly limit to a topic without limits of its own', () => {
    const calendar = {
      username: 'anna',
      availability: hours,
      busy: [busy('2027-03-22T08:00Z', 'other-topic')],
      limits: { timezone: 'Europe/Warsaw', daily: null, weekly: 1 },
    };
    expect(offeredDates(calendar, rules({}))).toEqual(['2027-03-29']);
    expect(offeredDates({ ...calendar, limits: null }, rules({})).length).toBe(8);
  });
});
