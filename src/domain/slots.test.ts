import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { WEEKDAYS, type Availability, type LocalInterval } from './availability.js';
import { computeBusyWindow, computeSlots, formatInstant, isSlotAvailable, parseInstant, pickSlotRules, type BusyMeeting, type HostCalendar, type SlotRules } from './slots.js';

const TOPIC = 'topic-a';
const OTHER_TOPIC = 'topic-b';

function rules(overrides: Partial<SlotRules> = {}): SlotRules {
  return {
    topicUuid: TOPIC,
    durationMinutes: 30,
    slotIntervalMinutes: 30,
    bufferBeforeMinutes: 0,
    bufferAfterMinutes: 0,
    minimumNoticeMinutes: 0,
    bookingWindowDays: 730,
    dailyLimit: null,
    ...overrides,
  };
}

/** The same hours every day of the week, unless `days` says otherwise. */
function availability(timezone: string, hours: LocalInterval[], extra: Partial<Availability> = {}): Availability {
  return {
    timezone,
    weekly: Object.fromEntries(WEEKDAYS.map((day) => [day, hours])) as Availability['weekly'],
    overrides: [],
    ...extra,
  };
}

function host(av: Availability, busy: BusyMeeting[] = []): HostCalendar {
  return { username: 'anna', availability: av, busy };
}

function meeting(start: string, minutes: number, extra: Partial<BusyMeeting> = {}): BusyMeeting {
  const ms = Date.parse(start);
  return { start: ms, end: ms + minutes * 60_000, bufferBeforeMinutes: 0, bufferAfterMinutes: 0, topicUuid: TOPIC, ...extra };
}

// Before every date in these tables, and close enough that the 730-day window covers them.
const LONG_AGO = Date.parse('2026-12-01T00:00:00Z');

/**
 * Slot starts per participant date, as `{ date: ['HH:MM…Z', …] }` for compact tables. On
 * the way it checks that the booking check agrees on every minute of the range, so each
 * table row also tests `isSlotAvailable` (a rule dropped from only one of them shows).
 */
function slotsByDate(calendar: HostCalendar, slotRules: SlotRules, zone: string, from: string, to = from, now = LONG_AGO): Record<string, string[]> {
  const days = computeSlots(calendar, slotRules, { now, participantTimezone: zone, from, to });
  const offered = new Set(days.flatMap((day) => day.slots.map((slot) => Date.parse(slot.start))));
  const rangeStart = DateTime.fromISO(from, { zone }).toMillis();
  const rangeEnd = DateTime.fromISO(to, { zone }).plus({ days: 1 }).startOf('day').toMillis();
  const disagreements: string[] = [];
  let minutes = 0;
  for (let t = rangeStart; t < rangeEnd; t += 60_000, minutes += 1) {
    if (isSlotAvailable(calendar, slotRules, now, t) !== offered.has(t)) disagreements.push(new Date(t).toISOString());
  }
  expect(minutes).toBeGreaterThanOrEqual(23 * 60);
  expect(disagreements, 'minutes where isSlotAvailable disagrees with computeSlots').toEqual([]);
  return Object.fromEntries(days.map((day) => [day.date, day.slots.map((slot) => slot.start)]));
}

/** `'2027-04-04T14:30:00.000Z'` in Australia/Lord_Howe → `'01:30+11:00'`: wall time and offset, unambiguous in an overlap. */
function wallTime(iso: string, zone: string): string {
  return DateTime.fromISO(iso, { zone }).toFormat('HH:mmZZ');
}

describe('computeSlots: daylight-saving days of the host', () => {
  it.each([
    // [zone, date, hours, expected number of 60-minute slots, first slot, last slot]
    ['Europe/Warsaw', '2027-03-28', { start: '00:00', end: '06:00' }, 5, '2027-03-27T23:00:00.000Z', '2027-03-28T03:00:00.000Z'],
    ['Europe/Warsaw', '2027-10-31', { start: '00:00', end: '06:00' }, 7, '2027-10-30T22:00:00.000Z', '2027-10-31T04:00:00.000Z'],
    ['America/New_York', '2027-03-14', { start: '00:00', end: '06:00' }, 5, '2027-03-14T05:00:00.000Z', '2027-03-14T09:00:00.000Z'],
    ['America/New_York', '2027-11-07', { start: '00:00', end: '06:00' }, 7, '2027-11-07T04:00:00.000Z', '2027-11-07T10:00:00.000Z'],
    ['Europe/Warsaw', '2027-07-01', { start: '00:00', end: '06:00' }, 6, '2027-06-30T22:00:00.000Z', '2027-07-01T03:00:00.000Z'],
  ])('%s on %s: hours %o give %i real hours', (zone, date, hours, count, first, last) => {
    const calendar = host(availability(zone, [hours]));
    const slots = slotsByDate(calendar, rules({ durationMinutes: 60, slotIntervalMinutes: 60 }), zone, date)[date]!;
    expect(slots).toHaveLength(count);
    expect(slots[0]).toBe(first);
    expect(slots.at(-1)).toBe(last);
  });

  it('starts an interval that begins inside the spring-forward gap at the jump, on its wall-clock grid', () => {
    // 02:30 does not exist in Warsaw on 2027-03-28: clocks go from 02:00 to 03:00.
    const calendar = host(availability('Europe/Warsaw', [{ start: '02:30', end: '05:00' }]));
    const slots = slotsByDate(calendar, rules(), 'Europe/Warsaw', '2027-03-28')['2027-03-28']!;
    expect(slots[0]).toBe('2027-03-28T01:00:00.000Z'); // 03:00 CEST
    expect(slots.at(-1)).toBe('2027-03-28T02:30:00.000Z'); // 04:30 CEST
  });

  it('keeps intervals apart when one ends inside the gap (they never overlap as instants)', () => {
    // New York, 2027-03-14: 02:00 → 03:00. "until 02:30" ends at the jump, before 03:15.
    const calendar = host(
      availability('America/New_York', [
        { start: '00:00', end: '02:30' },
        { start: '03:15', end: '03:30' },
      ]),
    );
    const slotRules = rules({ durationMinutes: 15, slotIntervalMinutes: 10 });
    const slots = slotsByDate(calendar, slotRules, 'America/New_York', '2027-03-14')['2027-03-14']!;
    expect(slots.at(-2)).toBe('2027-03-14T06:40:00.000Z'); // 01:40 EST, ends 01:55
    expect(slots.at(-1)).toBe('2027-03-14T07:15:00.000Z'); // 03:15 EDT
    for (const start of slots) expect(isSlotAvailable(calendar, slotRules, LONG_AGO, Date.parse(start))).toBe(true);
  });

  it('keeps 09:00–17:00 at 09:00 local before and after the change', () => {
    const calendar = host(availability('America/New_York', [{ start: '09:00', end: '17:00' }]));
    const days = slotsByDate(calendar, rules(), 'America/New_York', '2027-03-13', '2027-03-15');
    expect(days['2027-03-13']![0]).toBe('2027-03-13T14:00:00.000Z'); // EST, UTC−5
    expect(days['2027-03-15']![0]).toBe('2027-03-15T13:00:00.000Z'); // EDT, UTC−4
    expect(days['2027-03-14']).toHaveLength(16);
  });
});

describe("computeSlots: the grid follows the host's wall clock across clock changes", () => {
  // Lord Howe: 2027-04-04 02:00 (+11:00) → 01:30 (+10:30), so 01:30–01:59 happens twice;
  // 2027-10-03 02:00 (+10:30) → 02:30 (+11:00), so 02:00–02:29 never happens.
  // Warsaw: 2027-03-28 02:00 → 03:00, 2027-10-31 03:00 → 02:00. New York: 2027-03-14 02:00 → 03:00, 2027-11-07 02:00 → 01:00.
  it.each([
    [
      'Lord Howe fall-back, hourly',
      'Australia/Lord_Howe',
      '2027-04-04',
      { start: '00:00', end: '06:00' },
      60,
      ['00:00+11:00', '01:00+11:00', '02:00+10:30', '03:00+10:30', '04:00+10:30', '05:00+10:30'],
    ],
    [
      'Lord Howe fall-back, every 30 minutes: 01:30 twice',
      'Australia/Lord_Howe',
      '2027-04-04',
      { start: '00:00', end: '04:00' },
      30,
      ['00:00+11:00', '00:30+11:00', '01:00+11:00', '01:30+11:00', '01:30+10:30', '02:00+10:30', '02:30+10:30', '03:00+10:30', '03:30+10:30'],
    ],
    [
      'Lord Howe spring-forward, hourly: 02:00 does not exist',
      'Australia/Lord_Howe',
      '2027-10-03',
      { start: '00:00', end: '06:00' },
      60,
      ['00:00+10:30', '01:00+10:30', '03:00+11:00', '04:00+11:00', '05:00+11:00'],
    ],
    [
      'Lord Howe spring-forward, every 30 minutes',
      'Australia/Lord_Howe',
      '2027-10-03',
      { start: '00:00', end: '04:00' },
      30,
      ['00:00+10:30', '00:30+10:30', '01:00+10:30', '01:30+10:30', '02:30+11:00', '03:00+11:00', '03:30+11:00'],
    ],
    [
      'Warsaw spring-forward, every 45 minutes: 02:15 does not exist',
      'Europe/Warsaw',
      '2027-03-28',
      { start: '00:00', end: '06:00' },
      45,
      ['00:00+01:00', '00:45+01:00', '01:30+01:00', '03:00+02:00', '03:45+02:00', '04:30+02:00', '05:15+02:00'],
    ],
    [
      'Warsaw fall-back, every 45 minutes: 02:15 twice',
      'Europe/Warsaw',
      '2027-10-31',
      { start: '00:00', end: '06:00' },
      45,
      ['00:00+02:00', '00:45+02:00', '01:30+02:00', '02:15+02:00', '02:15+01:00', '03:00+01:00', '03:45+01:00', '04:30+01:00', '05:15+01:00'],
    ],
    [
      'New York spring-forward, every 45 minutes',
      'America/New_York',
      '2027-03-14',
      { start: '00:00', end: '06:00' },
      45,
      ['00:00-05:00', '00:45-05:00', '01:30-05:00', '03:00-04:00', '03:45-04:00', '04:30-04:00', '05:15-04:00'],
    ],
    [
      'New York fall-back, every 45 minutes: 01:30 twice',
      'America/New_York',
      '2027-11-07',
      { start: '00:00', end: '06:00' },
      45,
      ['00:00-04:00', '00:45-04:00', '01:30-04:00', '01:30-05:00', '02:15-05:00', '03:00-05:00', '03:45-05:00', '04:30-05:00', '05:15-05:00'],
    ],
    [
      'an interval from 00:45 that crosses the Lord Howe fall-back',
      'Australia/Lord_Howe',
      '2027-04-04',
      { start: '00:45', end: '03:00' },
      45,
      ['00:45+11:00', '01:30+11:00', '01:30+10:30', '02:15+10:30'],
    ],
    [
      'an interval from 01:10 that crosses the New York spring-forward',
      'America/New_York',
      '2027-03-14',
      { start: '01:10', end: '05:00' },
      45,
      ['01:10-05:00', '01:55-05:00', '03:25-04:00', '04:10-04:00'],
    ],
    [
      'an interval that starts inside the gap: its bound is the jump, its grid stays on 02:30 + k hours',
      'Europe/Warsaw',
      '2027-03-28',
      { start: '02:30', end: '05:00' },
      60,
      ['03:30+02:00', '04:30+02:00'],
    ],
    [
      'an interval that starts inside the overlap (first 01:45): the repeated 01:30–01:44 is before its grid',
      'Australia/Lord_Howe',
      '2027-04-04',
      { start: '01:45', end: '03:00' },
      15,
      ['01:45+11:00', '01:45+10:30', '02:00+10:30', '02:15+10:30', '02:30+10:30', '02:45+10:30'],
    ],
    [
      'an interval that ends inside the overlap (first 01:45): the repeated 01:30 is after its end',
      'Australia/Lord_Howe',
      '2027-04-04',
      { start: '01:00', end: '01:45' },
      15,
      ['01:00+11:00', '01:15+11:00', '01:30+11:00'],
    ],
  ])('%s', (_name, zone, date, hours, minutes, expected) => {
    const calendar = host(availability(zone, [hours]));
    // A duration of at most 30 minutes, so every grid time that exists fits in the hours.
    const slotRules = rules({ durationMinutes: Math.min(minutes, 30), slotIntervalMinutes: minutes });
    const slots = slotsByDate(calendar, slotRules, zone, date)[date]!;
    expect(slots.map((slot) => wallTime(slot, zone))).toEqual(expected);
    expect([...slots].sort()).toEqual([...new Set(slots)]); // distinct and in time order
  });
});

describe('computeSlots: participants in other zones', () => {
  const warsaw = host(availability('Europe/Warsaw', [{ start: '09:00', end: '17:00' }]));

  it.each([
    // Host 09:00–17:00 Warsaw (UTC+1 in January) = 08:00–16:00 UTC.
    ['Asia/Tokyo', { '2027-01-12': 14, '2027-01-13': 2 }], // UTC+9: 17:00–01:00, the last two slots cross midnight
    ['Asia/Kolkata', { '2027-01-12': 16, '2027-01-13': 0 }], // UTC+5:30: 13:30–21:30
    ['Pacific/Kiritimati', { '2027-01-12': 4, '2027-01-13': 12 }], // UTC+14: 22:00–06:00, mostly the next date
    ['America/Los_Angeles', { '2027-01-12': 16, '2027-01-13': 0 }], // UTC−8: 00:00–08:00
  ])('%s sees the slots of 2027-01-12 under its own dates', (zone, counts) => {
    const only12th = host({
      ...warsaw.availability,
      overrides: [
        { date: '2027-01-11', intervals: [] },
        { date: '2027-01-13', intervals: [] },
        { date: '2027-01-14', intervals: [] },
      ],
    });
    const days = slotsByDate(only12th, rules(), zone, '2027-01-12', '2027-01-13');
    expect(Object.fromEntries(Object.entries(days).map(([date, slots]) => [date, slots.length]))).toEqual(counts);
  });

  it('lists every date of the range once, in order, empty ones too', () => {
    const days = computeSlots(warsaw, rules(), { now: LONG_AGO, participantTimezone: 'UTC', from: '2027-01-08', to: '2027-01-11' });
    expect(days.map((day) => day.date)).toEqual(['2027-01-08', '2027-01-09', '2027-01-10', '2027-01-11']);
    expect(days.map((day) => day.slots.length)).toEqual([16, 16, 16, 16]);
  });

  it('starts a participant date at 01:00 where clocks jump at midnight (Santiago)', () => {
    const utcHost = host(availability('UTC', [{ start: '00:00', end: '24:00' }]));
    const days = slotsByDate(utcHost, rules({ durationMinutes: 60, slotIntervalMinutes: 60 }), 'America/Santiago', '2027-09-04', '2027-09-05');
    expect(days['2027-09-04']!.length).toBe(24);
    expect(days['2027-09-05']!.length).toBe(23);
    expect(days['2027-09-05']![0]).toBe('2027-09-05T04:00:00.000Z'); // 01:00 local, the first moment of the date
  });

  it('handles a participant whose own clocks change inside the range', () => {
    // Los Angeles springs forward on 2027-03-14; its dates stay whole and in order.
    const utcHost = host(availability('UTC', [{ start: '00:00', end: '24:00' }]));
    const days = slotsByDate(utcHost, rules({ durationMinutes: 60, slotIntervalMinutes: 60 }), 'America/Los_Angeles', '2027-03-13', '2027-03-15');
    expect([days['2027-03-13']!.length, days['2027-03-14']!.length, days['2027-03-15']!.length]).toEqual([24, 23, 24]);
  });
});

describe('computeSlots: topic rules', () => {
  const nine2five = availability('UTC', [{ start: '09:00', end: '17:00' }]);
  const nine2one = availability('UTC', [{ start: '09:00', end: '13:00' }]);

  // Host 09:00–13:00 UTC, one 10:00–11:00 meeting of another topic; every slot of the day is listed.
  it.each([
    ['no buffers: a 10:00–11:00 meeting blocks 10:00 and 10:30', {}, {}, ['09:00', '09:30', '11:00', '11:30', '12:00', '12:30']],
    ["the slot's own buffer after keeps it off the meeting", { bufferAfterMinutes: 15 }, {}, ['09:00', '11:00', '11:30', '12:00', '12:30']],
    ["the slot's own buffer before keeps it after the meeting's end", { bufferBeforeMinutes: 15 }, {}, ['09:00', '09:30', '11:30', '12:00', '12:30']],
    [
      "the slot's buffer before may reach back to the meeting's end (touching) and before the hours",
      { bufferBeforeMinutes: 30 },
      {},
      ['09:00', '09:30', '11:30', '12:00', '12:30'],
    ],
    [
      "the slot's buffer before, on a 15-minute grid",
      { bufferBeforeMinutes: 20, slotIntervalMinutes: 15 },
      {},
      ['09:00', '09:15', '09:30', '11:30', '11:45', '12:00', '12:15', '12:30'],
    ],
    ["the meeting's own buffer after keeps a later slot away", {}, { bufferAfterMinutes: 30 }, ['09:00', '09:30', '11:30', '12:00', '12:30']],
    [
      "the meeting's own buffer after, on a 15-minute grid; touching is fine",
      { slotIntervalMinutes: 15 },
      { bufferAfterMinutes: 15 },
      ['09:00', '09:15', '09:30', '11:15', '11:30', '11:45', '12:00', '12:15', '12:30'],
    ],
    [
      "the slot's buffer before and the meeting's buffer after add up; touching is fine",
      { bufferBeforeMinutes: 15, slotIntervalMinutes: 15 },
      { bufferAfterMinutes: 15 },
      ['09:00', '09:15', '09:30', '11:30', '11:45', '12:00', '12:15', '12:30'],
    ],
    ["the meeting's buffers block around it", {}, { bufferBeforeMinutes: 30, bufferAfterMinutes: 30 }, ['09:00', '11:30', '12:00', '12:30']],
    ['buffers of both sides add up; touching is fine', { bufferAfterMinutes: 15 }, { bufferBeforeMinutes: 15 }, ['09:00', '11:00', '11:30', '12:00', '12:30']],
  ])('%s', (_name, slotRules, meetingBuffers, expected) => {
    const calendar = host(nine2one, [meeting('2027-01-04T10:00:00Z', 60, { topicUuid: OTHER_TOPIC, ...meetingBuffers })]);
    const slots = slotsByDate(calendar, rules(slotRules), 'UTC', '2027-01-04')['2027-01-04']!;
    expect(slots.map((s) => s.slice(11, 16))).toEqual(expected);
  });

  it('keeps a long meeting blocking after a short one inside it ends', () => {
    const calendar = host(nine2one, [
      meeting('2027-01-04T09:15:00Z', 105, { topicUuid: OTHER_TOPIC }), // 09:15–11:00
      meeting('2027-01-04T09:30:00Z', 15), // 09:30–09:45, inside it
      meeting('2027-01-04T12:00:00Z', 15, { bufferAfterMinutes: 15 }), // blocks 12:00–12:30
    ]);
    const slots = slotsByDate(calendar, rules({ durationMinutes: 15, slotIntervalMinutes: 15 }), 'UTC', '2027-01-04')['2027-01-04']!;
    expect(slots.map((s) => s.slice(11, 16))).toEqual(['09:00', '11:00', '11:15', '11:30', '11:45', '12:30', '12:45']);
  });

  it('honours the minimum notice and the booking window, measured from now', () => {
    const now = Date.parse('2027-01-04T10:10:00Z');
    const days = slotsByDate(host(nine2five), rules({ minimumNoticeMinutes: 120, bookingWindowDays: 1 }), 'UTC', '2027-01-04', '2027-01-06', now);
    expect(days['2027-01-04']![0]).toBe('2027-01-04T12:30:00.000Z');
    expect(days['2027-01-05']!.at(-1)).toBe('2027-01-05T10:00:00.000Z'); // now + 24 h = 10:10
    expect(days['2027-01-06']).toEqual([]);
  });

  it('never offers a slot in the past', () => {
    const now = Date.parse('2027-01-04T12:00:00Z');
    expect(slotsByDate(host(nine2five), rules(), 'UTC', '2027-01-04', '2027-01-04', now)['2027-01-04']![0]).toBe('2027-01-04T12:00:00.000Z');
  });

  it('counts the daily limit per host-local day and per topic', () => {
    const calendar = host(availability('Asia/Tokyo', [{ start: '09:00', end: '17:00' }]), [
      meeting('2027-01-04T00:00:00Z', 30), // 09:00 Tokyo on the 4th
      meeting('2027-01-04T01:00:00Z', 30), // 10:00 Tokyo on the 4th
      meeting('2027-01-05T00:00:00Z', 30, { topicUuid: OTHER_TOPIC }), // another topic on the 5th
    ]);
    const days = slotsByDate(calendar, rules({ dailyLimit: 2 }), 'Asia/Tokyo', '2027-01-04', '2027-01-05');
    expect(days['2027-01-04']).toEqual([]);
    expect(days['2027-01-05']!.length).toBe(15);
  });

  it('offers a slot interval shorter than the duration on its grid', () => {
    const days = slotsByDate(host(availability('UTC', [{ start: '09:00', end: '11:00' }])), rules({ durationMinutes: 60, slotIntervalMinutes: 15 }), 'UTC', '2027-01-04');
    expect(days['2027-01-04']!.map((s) => s.slice(11, 16))).toEqual(['09:00', '09:15', '09:30', '09:45', '10:00']);
  });

  it('applies date overrides: a day off, and special hours', () => {
    const calendar = host({
      ...nine2five,
      overrides: [
        { date: '2027-12-24', intervals: [] },
        { date: '2027-12-27', intervals: [{ start: '10:00', end: '12:00' }] },
      ],
    });
    const days = slotsByDate(calendar, rules(), 'UTC', '2027-12-24', '2027-12-27');
    expect(days['2027-12-24']).toEqual([]);
    expect(days['2027-12-25']).toHaveLength(16);
    expect(days['2027-12-27']!.map((s) => s.slice(11, 16))).toEqual(['10:00', '10:30', '11:00', '11:30']);
  });

  it('takes 24:00 as the end of the day and lets a meeting run on into touching hours after midnight', () => {
    const calendar = host({
      ...availability('Europe/Warsaw', []),
      weekly: { ...availability('Europe/Warsaw', []).weekly, monday: [{ start: '22:00', end: '24:00' }], tuesday: [{ start: '00:00', end: '01:00' }] },
    });
    const days = slotsByDate(calendar, rules({ durationMinutes: 90, slotIntervalMinutes: 30 }), 'Europe/Warsaw', '2027-01-04', '2027-01-05');
    // Monday 22:00, 22:30, 23:00, 23:30 (ends 01:00 Tuesday); Tuesday 00:00 does not fit.
    expect(days['2027-01-04']!.map((s) => s.slice(11, 16))).toEqual(['21:00', '21:30', '22:00', '22:30']);
    expect(days['2027-01-05']).toEqual([]);
  });

  it("starts each interval's grid at its own start", () => {
    const calendar = host(
      availability('UTC', [
        { start: '09:10', end: '10:10' },
        { start: '13:00', end: '14:00' },
      ]),
    );
    const days = slotsByDate(calendar, rules(), 'UTC', '2027-01-04');
    expect(days['2027-01-04']!.map((s) => s.slice(11, 16))).toEqual(['09:10', '09:40', '13:00', '13:30']);
  });
});

describe('isSlotAvailable agrees with computeSlots', () => {
  const calendar = host(availability('Europe/Warsaw', [{ start: '09:00', end: '17:00' }]), [meeting('2027-03-29T08:00:00Z', 30)]);
  const slotRules = rules({ bufferAfterMinutes: 10, bookingWindowDays: 60 });
  const now = Date.parse('2027-03-20T00:00:00Z');

  // [case, start, expected, slots computeSlots offers on that UTC date: none would make `some` below vacuous]
  it.each([
    ['an offered slot', '2027-03-29T09:00:00.000Z', true, 14],
    ['a time off the grid', '2027-03-29T09:10:00.000Z', false, 14],
    ['a slot overlapping a meeting', '2027-03-29T08:00:00.000Z', false, 14],
    ['a slot whose buffer overlaps the meeting', '2027-03-29T07:30:00.000Z', false, 14],
    ['a slot that starts as the meeting ends (touching)', '2027-03-29T08:30:00.000Z', true, 14],
    ['outside the host hours', '2027-03-29T17:00:00.000Z', false, 14],
    ['the last slot of the day', '2027-03-29T14:30:00.000Z', true, 14],
    ['a Sunday', '2027-03-28T09:00:00.000Z', true, 16],
    ['beyond the booking window', '2028-06-01T08:00:00.000Z', false, 0],
  ])('%s', (_name, start, expected, count) => {
    expect(isSlotAvailable(calendar, slotRules, now, Date.parse(start))).toBe(expected);
    const slots = computeSlots(calendar, slotRules, { now, participantTimezone: 'UTC', from: start.slice(0, 10), to: start.slice(0, 10) })[0]!.slots;
    expect(slots).toHaveLength(count);
    expect(slots.some((s) => s.start === start)).toBe(expected);
  });
});

describe('computeBusyWindow', () => {
  it('reaches far enough for the longest meeting, all buffers and whole host days', () => {
    const window = computeBusyWindow(rules({ durationMinutes: 720, bufferBeforeMinutes: 720 }), 1_000_000_000_000, 1_000_086_400_000, 720);
    expect(window.from).toBeLessThanOrEqual(1_000_000_000_000 - 2 * 86_400_000);
    expect(window.to).toBeGreaterThanOrEqual(1_000_086_400_000 + 2 * 86_400_000);
  });
});

describe('formatInstant', () => {
  it.each(['2027-03-29T07:00:00.000Z', '1999-12-31T23:59:00.000Z', '2027-01-01T00:00:00.000Z', '2027-06-01T12:34:56.789Z', '1969-07-20T20:17:00.000Z'])(
    'formats %s as toISOString does',
    (iso) => {
      expect(formatInstant(Date.parse(iso))).toBe(iso);
    },
  );
});

describe('parseInstant', () => {
  it.each([
    '2027-03-29T07:00:00.000Z',
    '1999-12-31T23:59:00.000Z',
    '2027-01-01T00:00:00.000Z',
    '2027-06-01T12:34:56.789Z',
    '1969-07-20T20:17:00.000Z',
    '2027-03-29T07:00Z',
    'not a date',
    // Month ends, leap days and days that do not exist, as V8 reads them.
    '2028-02-29T10:00:00.000Z',
    '2027-02-29T10:00:00.000Z',
    '2027-02-30T10:00:00.000Z',
    '2100-02-29T10:00:00.000Z',
    '2000-02-29T10:00:00.000Z',
    '2027-04-31T10:00:00.000Z',
    '2027-12-31T23:59:00.000Z',
    '2027-13-01T10:00:00.000Z',
    '2027-00-10T10:00:00.000Z',
    '2027-01-00T10:00:00.000Z',
    '2027-01-01T24:00:00.000Z',
    '2027-01-01T10:60:00.000Z',
    '2027-0a-01T10:00:00.000Z',
    '0001-01-01T00:00:00.000Z',
  ])('reads %s as Date.parse does', (iso) => {
    expect(parseInstant(iso)).toEqual(Date.parse(iso));
  });

  it('reads back every minute formatInstant writes, over leap days and decades', () => {
    for (let ms = Date.parse('2023-12-30T00:00:00.000Z'), i = 0; i < 200_000; i += 1, ms += 7 * 60_000 + 86_400_000 * (i % 3)) {
      const iso = formatInstant(ms);
      if (parseInstant(iso) !== ms) throw new Error(`${iso}: ${parseInstant(iso)} ≠ ${ms}`);
    }
  });
});

describe('pickSlotRules', () => {
  it("takes a topic's slot rules and nothing else of it, so a cached schedule's key changes only when a rule does", () => {
    const topic = {
      uuid: 'topic-1',
      name: 'Intro call',
      description: 'Changes to this do not change any slot',
      durationMinutes: 30,
      slotIntervalMinutes: 15,
      bufferBeforeMinutes: 5,
      bufferAfterMinutes: 10,
      minimumNoticeMinutes: 120,
      bookingWindowDays: 30,
      dailyLimit: null,
    };
    expect(pickSlotRules(topic)).toEqual({
      topicUuid: 'topic-1',
      durationMinutes: 30,
      slotIntervalMinutes: 15,
      bufferBeforeMinutes: 5,
      bufferAfterMinutes: 10,
      minimumNoticeMinutes: 120,
      bookingWindowDays: 30,
      dailyLimit: null,
    });
  });
});
