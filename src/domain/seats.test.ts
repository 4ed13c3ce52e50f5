import { describe, expect, it } from 'vitest';
import { WEEKDAYS, type Availability, type LocalInterval } from './availability.js';
import { computeSeatedSlotsWithStarts, countSeatHolders, isSeatAvailable } from './seats.js';
import { computeSlots, type BusyMeeting, type HostCalendar, type SlotRules } from './slots.js';

const TOPIC = 'class';
const LONG_AGO = Date.parse('2026-12-01T00:00:00Z');

function rules(overrides: Partial<SlotRules> = {}): SlotRules {
  return {
    topicUuid: TOPIC,
    durationMinutes: 60,
    slotIntervalMinutes: 60,
    bufferBeforeMinutes: 0,
    bufferAfterMinutes: 0,
    minimumNoticeMinutes: 0,
    bookingWindowDays: 730,
    dailyLimit: null,
    seats: 3,
    ...overrides,
  };
}

function host(zone: string, hours: LocalInterval[], busy: BusyMeeting[] = []): HostCalendar {
  const availability: Availability = { timezone: zone, weekly: Object.fromEntries(WEEKDAYS.map((day) => [day, hours])) as Availability['weekly'], overrides: [] };
  return { username: 'anna', availability, busy };
}

function held(start: string, count: number, minutes = 60, topicUuid = TOPIC): BusyMeeting[] {
  const ms = Date.parse(start);
  return Array.from({ length: count }, () => ({ start: ms, end: ms + minutes * 60_000, bufferBeforeMinutes: 0, bufferAfterMinutes: 0, topicUuid }));
}

/** `{ 'HH:MMZ': seatsLeft }` of one participant date, compact for tables. */
function seatsByStart(calendar: HostCalendar, slotRules: SlotRules, zone: string, date: string): Record<string, number | undefined> {
  const { days, starts } = computeSeatedSlotsWithStarts(calendar, slotRules, { now: LONG_AGO, participantTimezone: zone, from: date, to: date });
  // The numeric starts stay in step with the text ones, in time order.
  expect(starts[0]).toEqual(days[0]!.slots.map((slot) => Date.parse(slot.start)));
  expect([...starts[0]!].sort((a, b) => a - b)).toEqual(starts[0]);
  // Offered exactly where the booking check says so.
  for (const slot of days[0]!.slots) expect(isSeatAvailable(calendar, slotRules, LONG_AGO, Date.parse(slot.start))).toBe(true);
  return Object.fromEntries(days[0]!.slots.map((slot) => [slot.start.slice(11, 16), slot.seatsLeft]));
}

describe('computeSeatedSlotsWithStarts: a slot stays offered until its seats are held', () => {
  const hours = [{ start: '09:00', end: '12:00' }];
  it.each([
    ['nobody holds a seat', [], { '09:00': 3, '10:00': 3, '11:00': 3 }],
    ['one of three seats held at 10:00', held('2027-03-03T10:00:00Z', 1), { '09:00': 3, '10:00': 2, '11:00': 3 }],
    ['two held', held('2027-03-03T10:00:00Z', 2), { '09:00': 3, '10:00': 1, '11:00': 3 }],
    ['all three held: full, not offered', held('2027-03-03T10:00:00Z', 3), { '09:00': 3, '11:00': 3 }],
    // A group of the topic at another start blocks what overlaps it: the host leads one group at a time.
    ['a 30-minute-later group blocks both neighbours', held('2027-03-03T10:30:00Z', 1), { '09:00': 3, '10:30': 2 }],
    // Another topic's meeting at the same start is no seat holder: it blocks.
    ['another topic at 10:00', held('2027-03-03T10:00:00Z', 1, 60, 'other'), { '09:00': 3, '11:00': 3 }],
    // A meeting of the topic of another length (booked before the duration changed) holds no seat.
    ['the topic at 10:00 but 30 minutes long', held('2027-03-03T10:00:00Z', 1, 30), { '09:00': 3, '11:00': 3 }],
  ])('%s', (_name, busy, expected) => {
    const slotRules = rules({ slotIntervalMinutes: 30 });
    const result = seatsByStart(host('UTC', hours, busy), slotRules, 'UTC', '2027-03-03');
    // With a 30-minute grid the free hours also offer the half hours no group touches.
    const whole = Object.fromEntries(Object.entries(result).filter(([start, left]) => start.endsWith(':00') || left !== 3));
    expect(whole).toEqual(expected);
  });

  it('with one seat is exactly the engine: no seatsLeft, a holder blocks its own start', () => {
    const calendar = host('UTC', hours, held('2027-03-03T10:00:00Z', 1));
    const slotRules = rules({ seats: 1 });
    const query = { now: LONG_AGO, participantTimezone: 'UTC', from: '2027-03-03', to: '2027-03-03' };
    expect(computeSeatedSlotsWithStarts(calendar, slotRules, query).days).toEqual(computeSlots(calendar, slotRules, query));
    expect(seatsByStart(calendar, slotRules, 'UTC', '2027-03-03')).toEqual({ '09:00': undefined, '11:00': undefined });
  });

  it('counts a group once against the daily limit', () => {
    // Limit 2 a day: two participants at 09:00 are one meeting of the host's day, so 10:00 and 11:00 stay open.
    const one = seatsByStart(host('UTC', hours, held('2027-03-03T09:00:00Z', 2)), rules({ dailyLimit: 2 }), 'UTC', '2027-03-03');
    expect(one).toEqual({ '09:00': 1, '10:00': 3, '11:00': 3 });
    // Two groups reach the limit: only the held starts still take participants.
    const two = seatsByStart(host('UTC', hours, [...held('2027-03-03T09:00:00Z', 2), ...held('2027-03-03T11:00:00Z', 1)]), rules({ dailyLimit: 2 }), 'UTC', '2027-03-03');
    expect(two).toEqual({ '09:00': 1, '11:00': 2 });
  });

  it('keeps the notice: a held start sooner than the notice is not offered', () => {
    const calendar = host('UTC', hours, held('2027-03-03T10:00:00Z', 1));
    const now = Date.parse('2027-03-03T09:30:00Z');
    const { days } = computeSeatedSlotsWithStarts(calendar, rules({ minimumNoticeMinutes: 60 }), { now, participantTimezone: 'UTC', from: '2027-03-03', to: '2027-03-03' });
    expect(days[0]!.slots.map((slot) => [slot.start.slice(11, 16), slot.seatsLeft])).toEqual([['11:00', 3]]);
    expect(isSeatAvailable(calendar, rules({ minimumNoticeMinutes: 60 }), now, Date.parse('2027-03-03T10:00:00Z'))).toBe(false);
  });
});

describe('computeSeatedSlotsWithStarts: clock changes', () => {
  it('tells the two 01:00s of a New York fall-back night apart', () => {
    // 2027-11-07: 02:00 EDT → 01:00 EST, so 01:00 happens at 05:00Z and again at 06:00Z.
    const calendar = host('America/New_York', [{ start: '00:00', end: '03:00' }], held('2027-11-07T05:00:00Z', 2));
    const result = seatsByStart(calendar, rules(), 'America/New_York', '2027-11-07');
    expect(result).toEqual({ '04:00': 3, '05:00': 1, '06:00': 3, '07:00': 3 });
  });

  it('puts a held slot under its participant date across a spring-forward night', () => {
    // Warsaw 2027-03-28: 02:00 → 03:00. A group at 03:00 CEST (01:00Z) is on the 28th for a Warsaw participant.
    const calendar = host('Europe/Warsaw', [{ start: '00:00', end: '05:00' }], held('2027-03-28T01:00:00Z', 1));
    const result = seatsByStart(calendar, rules(), 'Europe/Warsaw', '2027-03-28');
    expect(result).toEqual({ '23:00': 3, '00:00': 3, '01:00': 2, '02:00': 3 });
  });
});

describe('isSeatAvailable', () => {
  it.each([
    [0, true],
    [4, true],
    [5, false],
    [7, false],
  ])('5 seats, %i held → %s', (count, expected) => {
    const calendar = host('UTC', [{ start: '09:00', end: '12:00' }], held('2027-03-03T10:00:00Z', count));
    expect(isSeatAvailable(calendar, rules({ seats: 5 }), LONG_AGO, Date.parse('2027-03-03T10:00:00Z'))).toBe(expected);
  });

  it('refuses a start off the grid even with seats left', () => {
    const calendar = host('UTC', [{ start: '09:00', end: '12:00' }], held('2027-03-03T10:00:00Z', 1));
    expect(isSeatAvailable(calendar, rules(), LONG_AGO, Date.parse('2027-03-03T10:15:00Z'))).toBe(false);
  });
});

describe('countSeatHolders', () => {
  it('counts only meetings of the topic with its length, by start', () => {
    const busy = [...held('2027-03-03T09:00:00Z', 3), ...held('2027-03-03T10:00:00Z', 1, 60, 'other'), ...held('2027-03-03T11:00:00Z', 1, 45)];
    expect([...countSeatHolders(busy, rules())]).toEqual([[Date.parse('2027-03-03T09:00:00Z'), 3]]);
  });
});
