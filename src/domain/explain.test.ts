import { describe, expect, it } from 'vitest';
import { WEEKDAYS, type Availability } from './availability.js';
import { EXTERNAL_BUSY_PREFIX } from './period-limits.js';
import { explainSeat } from './seats.js';
import { computeSlots, type BusyMeeting, type Exclusion, type HostCalendar, type SlotRules } from './slots.js';

/**
 * Each reason code of the explanation, with its context, mostly on Warsaw's clock-change
 * days (2027-03-28: 02:00 CET → 03:00 CEST; 2027-10-31: 03:00 CEST → 02:00 CET).
 */
const at = (iso: string) => Date.parse(iso);
const allDay = (): Availability => ({
  timezone: 'Europe/Warsaw',
  weekly: Object.fromEntries(WEEKDAYS.map((day) => [day, [{ start: '00:00', end: '24:00' }]])) as Availability['weekly'],
  overrides: [],
});
const rules = (extra: Partial<SlotRules> = {}): SlotRules => ({
  topicUuid: 'topic',
  durationMinutes: 60,
  slotIntervalMinutes: 60,
  bufferBeforeMinutes: 0,
  bufferAfterMinutes: 0,
  minimumNoticeMinutes: 0,
  bookingWindowDays: 400,
  dailyLimit: null,
  ...extra,
});
const meeting = (uuid: string, start: string, end: string, extra: Partial<BusyMeeting> = {}): BusyMeeting => ({
  uuid,
  start: at(start),
  end: at(end),
  bufferBeforeMinutes: 0,
  bufferAfterMinutes: 0,
  topicUuid: 'topic',
  ...extra,
});
const NOW = at('2027-03-01T00:00:00Z');

interface Case {
  name: string;
  host?: Partial<HostCalendar>;
  rules?: Partial<SlotRules>;
  now?: number;
  start: string;
  expected: Exclusion[];
}

const CASES: Case[] = [
  {
    name: 'OUTSIDE_HOURS: 90 minutes from 03:00 CEST overrun 01:00–04:00 on the spring-forward day (two real hours)',
    host: { availability: { ...allDay(), weekly: { ...allDay().weekly, sunday: [{ start: '01:00', end: '04:00' }] } } },
    rules: { durationMinutes: 90 },
    start: '2027-03-28T01:00:00Z',
    expected: [{ code: 'OUTSIDE_HOURS', date: '2027-03-28', hours: [{ start: '01:00', end: '04:00' }] }],
  },
  {
    name: 'DAY_OFF: the repeated 02:30 of the fall-back day, an override with no hours',
    host: { availability: { ...allDay(), overrides: [{ date: '2027-10-31', intervals: [] }] } },
    start: '2027-10-31T01:30:00Z',
    expected: [{ code: 'DAY_OFF', date: '2027-10-31' }],
  },
  {
    name: 'MEETING: the first 02:00 (CEST) of the fall-back day is taken; the second is free',
    host: { busy: [meeting('m1', '2027-10-31T00:00:00Z', '2027-10-31T01:00:00Z')] },
    start: '2027-10-31T00:00:00Z',
    expected: [{ code: 'MEETING', meetingUuid: 'm1', start: at('2027-10-31T00:00:00Z'), end: at('2027-10-31T01:00:00Z') }],
  },
  {
    name: 'BUFFER: 30 minutes after a meeting that ends at 05:00 CEST, right after the jump',
    host: { busy: [meeting('m2', '2027-03-28T02:00:00Z', '2027-03-28T03:00:00Z', { bufferAfterMinutes: 30, topicUuid: 'other' })] },
    rules: { bufferBeforeMinutes: 10 },
    start: '2027-03-28T03:00:00Z',
    expected: [{ code: 'BUFFER', meetingUuid: 'm2', start: at('2027-03-28T02:00:00Z'), end: at('2027-03-28T03:00:00Z'), bufferBeforeMinutes: 10, bufferAfterMinutes: 30 }],
  },
  {
    name: 'CALENDAR_EVENT: a remote span inside the last CET hour, no title',
    host: {
      busy: [{ start: at('2027-03-28T00:30:00Z'), end: at('2027-03-28T00:45:00Z'), bufferBeforeMinutes: 0, bufferAfterMinutes: 0, topicUuid: `${EXTERNAL_BUSY_PREFIX}cal-1` }],
    },
    start: '2027-03-28T00:00:00Z',
    expected: [{ code: 'CALENDAR_EVENT', calendarUuid: 'cal-1', from: at('2027-03-28T00:30:00Z'), to: at('2027-03-28T00:45:00Z') }],
  },
  {
    name: 'MINIMUM_NOTICE: two hours of notice across the spring-forward jump',
    now: at('2027-03-27T23:00:00Z'),
    rules: { minimumNoticeMinutes: 120 },
    start: '2027-03-28T00:00:00Z',
    expected: [{ code: 'MINIMUM_NOTICE', earliest: at('2027-03-28T01:00:00Z') }],
  },
  {
    name: 'BOOKING_WINDOW: a one-day window ends at midnight UTC, 01:00 CET',
    now: at('2027-03-27T00:00:00Z'),
    rules: { bookingWindowDays: 1 },
    start: '2027-03-28T01:00:00Z',
    expected: [{ code: 'BOOKING_WINDOW', latest: at('2027-03-28T00:00:00Z') }],
  },
  {
    name: 'DAILY_LIMIT: 00:30 CET on the 28th counts for that day, 23:30 CET on the 27th does not',
    host: { busy: [meeting('d1', '2027-03-27T23:30:00Z', '2027-03-28T00:30:00Z'), meeting('d0', '2027-03-27T22:30:00Z', '2027-03-27T23:30:00Z')] },
    rules: { dailyLimit: 1 },
    start: '2027-03-28T10:00:00Z',
    expected: [{ code: 'DAILY_LIMIT', scope: 'topic', limit: 1, count: 1 }],
  },
  {
    name: 'WEEKLY_LIMIT: Sunday 22:00 CEST is still the week of Monday the 22nd',
    host: { busy: [meeting('w1', '2027-03-22T09:00:00Z', '2027-03-22T10:00:00Z')] },
    rules: { weeklyLimit: 1 },
    start: '2027-03-28T20:00:00Z',
    expected: [{ code: 'WEEKLY_LIMIT', scope: 'topic', limit: 1, count: 1 }],
  },
  {
    name: 'MONTHLY_LIMIT and the host’s own weekly limit, both reported, on the fall-back day',
    host: {
      busy: [meeting('o1', '2027-10-01T09:00:00Z', '2027-10-01T10:00:00Z'), meeting('o2', '2027-10-26T09:00:00Z', '2027-10-26T10:00:00Z', { topicUuid: 'other' })],
      limits: { timezone: 'Europe/Warsaw', daily: null, weekly: 1 },
    },
    rules: { monthlyLimit: 1 },
    start: '2027-10-31T12:00:00Z',
    expected: [
      { code: 'MONTHLY_LIMIT', scope: 'topic', limit: 1, count: 1 },
      { code: 'WEEKLY_LIMIT', scope: 'host', limit: 1, count: 1 },
    ],
  },
  {
    name: 'OFF_GRID: 02:30 CEST lies between the two 02:00s of the fall-back day',
    start: '2027-10-31T00:30:00Z',
    expected: [{ code: 'OFF_GRID', previous: at('2027-10-31T00:00:00Z'), next: at('2027-10-31T01:00:00Z') }],
  },
  {
    name: 'SEATS_FULL: two seats, two holders',
    host: { busy: [meeting('s1', '2027-03-28T10:00:00Z', '2027-03-28T11:00:00Z'), meeting('s2', '2027-03-28T10:00:00Z', '2027-03-28T11:00:00Z')] },
    rules: { seats: 2 },
    start: '2027-03-28T10:00:00Z',
    expected: [{ code: 'SEATS_FULL', seats: 2 }],
  },
  {
    name: 'HOST_INACTIVE: a deactivated host at an otherwise free start',
    host: { inactive: true },
    start: '2027-03-28T10:00:00Z',
    expected: [{ code: 'HOST_INACTIVE' }],
  },
  {
    name: 'every reason at once, not the first: off the grid, before the notice, in a meeting',
    host: { busy: [meeting('m3', '2027-03-28T00:00:00Z', '2027-03-28T01:00:00Z')] },
    now: at('2027-03-28T00:00:00Z'),
    rules: { minimumNoticeMinutes: 60 },
    start: '2027-03-28T00:15:00Z',
    expected: [
      { code: 'OFF_GRID', previous: at('2027-03-28T00:00:00Z'), next: at('2027-03-28T01:00:00Z') },
      { code: 'MINIMUM_NOTICE', earliest: at('2027-03-28T01:00:00Z') },
      { code: 'MEETING', meetingUuid: 'm3', start: at('2027-03-28T00:00:00Z'), end: at('2027-03-28T01:00:00Z') },
    ],
  },
];

describe('explainSeat', () => {
  it.each(CASES)('$name', ({ host, rules: extra, now = NOW, start, expected }) => {
    const calendar: HostCalendar = { username: 'anna', availability: allDay(), busy: [], ...host };
    const topic = rules(extra);
    expect(explainSeat(calendar, topic, now, at(start))).toEqual(expected);
    // The month view agrees: the start is not offered.
    const offered = computeSlots(calendar, topic, { now, participantTimezone: 'UTC', from: start.slice(0, 10), to: start.slice(0, 10) }).flatMap((day) =>
      day.slots.map((slot) => slot.start),
    );
    expect(offered).not.toContain(new Date(at(start)).toISOString());
  });

  it('gives no reason for a start the month view offers (the second 02:00 of the fall-back day)', () => {
    const calendar: HostCalendar = { username: 'anna', availability: allDay(), busy: [meeting('m1', '2027-10-31T00:00:00Z', '2027-10-31T01:00:00Z')] };
    expect(explainSeat(calendar, rules(), NOW, at('2027-10-31T01:00:00Z'))).toEqual([]);
  });
});
