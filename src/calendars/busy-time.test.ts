import { describe, expect, it } from 'vitest';
import { extractBusyIntervals, wallToInstant } from './busy-time.js';
import { CalendarBadResponseError } from './errors.js';

/** Wraps VEVENT lines (and VTIMEZONEs) in a VCALENDAR, CRLF-separated as on the wire. */
function ics(...lines: string[]): string {
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//termin//tests//EN', ...lines, 'END:VCALENDAR', ''].join('\r\n');
}

function event(...props: string[]): string[] {
  return ['BEGIN:VEVENT', `DTSTAMP:20260101T000000Z`, ...props, 'END:VEVENT'];
}

const range = (from: string, to: string) => ({ from: Date.parse(from), to: Date.parse(to) });
const asIso = (intervals: { start: number; end: number }[]) => intervals.map((i) => `${new Date(i.start).toISOString()}/${new Date(i.end).toISOString()}`);

/** A zone with a made-up name, defined only by its VTIMEZONE: UTC+3 in winter, UTC+5 from the last Sunday of March. */
const CUSTOM_ZONE = [
  'BEGIN:VTIMEZONE',
  'TZID:Termin Test Time',
  'BEGIN:STANDARD',
  'DTSTART:19701025T030000',
  'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU',
  'TZOFFSETFROM:+0500',
  'TZOFFSETTO:+0300',
  'END:STANDARD',
  'BEGIN:DAYLIGHT',
  'DTSTART:19700329T020000',
  'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
  'TZOFFSETFROM:+0300',
  'TZOFFSETTO:+0500',
  'END:DAYLIGHT',
  'END:VTIMEZONE',
];

const MARCH_2027 = range('2027-03-01T00:00:00Z', '2027-04-01T00:00:00Z');

interface Case {
  name: string;
  text: string;
  range?: { from: number; to: number };
  zone?: string;
  expected: string[];
}

const cases: Case[] = [
  {
    name: 'a single event in UTC',
    text: ics(...event('UID:a', 'DTSTART:20270310T090000Z', 'DTEND:20270310T100000Z')),
    expected: ['2027-03-10T09:00:00.000Z/2027-03-10T10:00:00.000Z'],
  },
  {
    name: 'a TZID naming an IANA zone the file does not define (New York, EST)',
    text: ics(...event('UID:a', 'DTSTART;TZID=America/New_York:20270310T090000', 'DTEND;TZID=America/New_York:20270310T100000')),
    expected: ['2027-03-10T14:00:00.000Z/2027-03-10T15:00:00.000Z'],
  },
  {
    name: 'a TZID with an old Lightning prefix',
    text: ics(...event('UID:a', 'DTSTART;TZID=/mozilla.org/20050126_1/America/New_York:20270320T090000', 'DURATION:PT30M')),
    expected: ['2027-03-20T13:00:00.000Z/2027-03-20T13:30:00.000Z'],
  },
  {
    name: 'a VTIMEZONE in the file, before and after its own DST change',
    text: ics(
      ...CUSTOM_ZONE,
      ...event('UID:a', 'DTSTART;TZID=Termin Test Time:20270327T120000', 'DTEND;TZID=Termin Test Time:20270327T130000'),
      ...event('UID:b', 'DTSTART;TZID=Termin Test Time:20270329T120000', 'DTEND;TZID=Termin Test Time:20270329T130000'),
    ),
    expected: ['2027-03-27T09:00:00.000Z/2027-03-27T10:00:00.000Z', '2027-03-29T07:00:00.000Z/2027-03-29T08:00:00.000Z'],
  },
  {
    name: 'a VTIMEZONE wins over the IANA zone of the same name',
    text: ics(
      ...CUSTOM_ZONE.map((line) => line.replace('Termin Test Time', 'Europe/Warsaw')),
      ...event('UID:a', 'DTSTART;TZID=Europe/Warsaw:20270310T120000', 'DTEND;TZID=Europe/Warsaw:20270310T130000'),
    ),
    expected: ['2027-03-10T09:00:00.000Z/2027-03-10T10:00:00.000Z'],
  },
  {
    name: 'floating times are read in the host zone',
    text: ics(...event('UID:a', 'DTSTART:20270310T090000', 'DTEND:20270310T100000')),
    zone: 'Asia/Kolkata',
    expected: ['2027-03-10T03:30:00.000Z/2027-03-10T04:30:00.000Z'],
  },
  {
    name: 'a two-day all-day event blocks the host’s local midnights',
    text: ics(...event('UID:a', 'DTSTART;VALUE=DATE:20270310', 'DTEND;VALUE=DATE:20270312')),
    expected: ['2027-03-09T23:00:00.000Z/2027-03-11T23:00:00.000Z'],
  },
  {
    name: 'an all-day event on the spring-forward day lasts 23 hours (Warsaw, 28 March 2027)',
    text: ics(...event('UID:a', 'DTSTART;VALUE=DATE:20270328')),
    expected: ['2027-03-27T23:00:00.000Z/2027-03-28T22:00:00.000Z'],
  },
  {
    name: 'a weekly series keeps its wall-clock time across New York’s DST change (14 March 2027)',
    text: ics(...event('UID:a', 'DTSTART;TZID=America/New_York:20270301T090000', 'DTEND;TZID=America/New_York:20270301T100000', 'RRULE:FREQ=WEEKLY;COUNT=3')),
    expected: ['2027-03-01T14:00:00.000Z/2027-03-01T15:00:00.000Z', '2027-03-08T14:00:00.000Z/2027-03-08T15:00:00.000Z', '2027-03-15T13:00:00.000Z/2027-03-15T14:00:00.000Z'],
  },
  {
    name: 'a daily 02:30 falls into the spring-forward gap and is read with the offset before it (03:30 EDT)',
    text: ics(...event('UID:a', 'DTSTART;TZID=America/New_York:20270313T023000', 'DURATION:PT15M', 'RRULE:FREQ=DAILY;COUNT=3')),
    expected: ['2027-03-13T07:30:00.000Z/2027-03-13T07:45:00.000Z', '2027-03-14T07:30:00.000Z/2027-03-14T07:45:00.000Z', '2027-03-15T06:30:00.000Z/2027-03-15T06:45:00.000Z'],
  },
  {
    name: 'a time that occurs twice on the fall-back day is its first occurrence (01:30 EDT)',
    text: ics(...event('UID:a', 'DTSTART;TZID=America/New_York:20271107T013000', 'DURATION:PT30M')),
    range: range('2027-11-01T00:00:00Z', '2027-12-01T00:00:00Z'),
    expected: ['2027-11-07T05:30:00.000Z/2027-11-07T06:00:00.000Z'],
  },
  {
    name: 'DURATION in days is a day on the clock (23 hours across the Warsaw change), hours are exact',
    text: ics(...event('UID:a', 'DTSTART;TZID=Europe/Warsaw:20270327T120000', 'DURATION:P1D'), ...event('UID:b', 'DTSTART;TZID=Europe/Warsaw:20270327T120000', 'DURATION:PT24H')),
    expected: ['2027-03-27T11:00:00.000Z/2027-03-28T10:00:00.000Z', '2027-03-27T11:00:00.000Z/2027-03-28T11:00:00.000Z'],
  },
  {
    name: 'DTEND gives every occurrence the same exact length, even across a DST change',
    text: ics(...event('UID:a', 'DTSTART;TZID=Europe/Warsaw:20270320T230000', 'DTEND;TZID=Europe/Warsaw:20270321T010000', 'RRULE:FREQ=WEEKLY;COUNT=2')),
    expected: ['2027-03-20T22:00:00.000Z/2027-03-21T00:00:00.000Z', '2027-03-27T22:00:00.000Z/2027-03-28T00:00:00.000Z'],
  },
  {
    name: 'a weekly series with one instance moved, one cancelled by override and one removed by EXDATE',
    text: ics(
      ...event(
        'UID:series',
        'DTSTART;TZID=Europe/Warsaw:20270302T100000',
        'DTEND;TZID=Europe/Warsaw:20270302T110000',
        'RRULE:FREQ=WEEKLY;UNTIL=20270330T090000Z',
        'EXDATE;TZID=Europe/Warsaw:20270309T100000',
      ),
      ...event('UID:series', 'RECURRENCE-ID;TZID=Europe/Warsaw:20270316T100000', 'DTSTART;TZID=Europe/Warsaw:20270317T150000', 'DTEND;TZID=Europe/Warsaw:20270317T153000'),
      ...event('UID:series', 'RECURRENCE-ID:20270323T090000Z', 'DTSTART:20270323T090000Z', 'DTEND:20270323T100000Z', 'STATUS:CANCELLED'),
    ),
    expected: [
      '2027-03-02T09:00:00.000Z/2027-03-02T10:00:00.000Z',
      '2027-03-17T14:00:00.000Z/2027-03-17T14:30:00.000Z',
      // UNTIL is inclusive: 30 March 10:00 CEST is 08:00Z, before 09:00Z.
      '2027-03-30T08:00:00.000Z/2027-03-30T09:00:00.000Z',
    ],
  },
  {
    name: 'an override without an end keeps the series’ length; a free override frees its instance',
    text: ics(
      ...event('UID:s', 'DTSTART:20270301T100000Z', 'DTEND:20270301T120000Z', 'RRULE:FREQ=DAILY;COUNT=3'),
      ...event('UID:s', 'RECURRENCE-ID:20270302T100000Z', 'DTSTART:20270302T150000Z'),
      ...event('UID:s', 'RECURRENCE-ID:20270303T100000Z', 'DTSTART:20270303T100000Z', 'DTEND:20270303T120000Z', 'TRANSP:TRANSPARENT'),
    ),
    expected: ['2027-03-01T10:00:00.000Z/2027-03-01T12:00:00.000Z', '2027-03-02T15:00:00.000Z/2027-03-02T17:00:00.000Z'],
  },
  {
    name: 'a busy override of a free series is busy; an override without its series stands alone',
    text: ics(
      ...event('UID:s', 'DTSTART:20270301T100000Z', 'DTEND:20270301T110000Z', 'RRULE:FREQ=DAILY;COUNT=3', 'TRANSP:TRANSPARENT'),
      ...event('UID:s', 'RECURRENCE-ID:20270302T100000Z', 'DTSTART:20270302T100000Z', 'DTEND:20270302T110000Z', 'TRANSP:OPAQUE'),
      ...event('UID:lonely', 'RECURRENCE-ID:20270305T100000Z', 'DTSTART:20270305T100000Z', 'DTEND:20270305T103000Z'),
    ),
    expected: ['2027-03-02T10:00:00.000Z/2027-03-02T11:00:00.000Z', '2027-03-05T10:00:00.000Z/2027-03-05T10:30:00.000Z'],
  },
  {
    name: 'RDATE adds date-times and periods; EXDATE removes a rule’s instance',
    text: ics(
      ...event(
        'UID:a',
        'DTSTART:20270301T080000Z',
        'DTEND:20270301T090000Z',
        'RDATE:20270310T080000Z,20270311T080000Z',
        'RDATE;VALUE=PERIOD:20270312T120000Z/PT3H',
        'RRULE:FREQ=MONTHLY;COUNT=2',
        'EXDATE:20270401T080000Z',
      ),
    ),
    range: range('2027-03-01T00:00:00Z', '2027-05-01T00:00:00Z'),
    expected: [
      '2027-03-01T08:00:00.000Z/2027-03-01T09:00:00.000Z',
      '2027-03-10T08:00:00.000Z/2027-03-10T09:00:00.000Z',
      '2027-03-11T08:00:00.000Z/2027-03-11T09:00:00.000Z',
      '2027-03-12T12:00:00.000Z/2027-03-12T15:00:00.000Z',
    ],
  },
  {
    name: 'an all-day weekly series with an EXDATE date',
    text: ics(...event('UID:a', 'DTSTART;VALUE=DATE:20270301', 'RRULE:FREQ=WEEKLY;UNTIL=20270315', 'EXDATE;VALUE=DATE:20270308')),
    zone: 'UTC',
    expected: ['2027-03-01T00:00:00.000Z/2027-03-02T00:00:00.000Z', '2027-03-15T00:00:00.000Z/2027-03-16T00:00:00.000Z'],
  },
  {
    name: 'transparent and cancelled events are free',
    text: ics(
      ...event('UID:a', 'DTSTART:20270310T090000Z', 'DTEND:20270310T100000Z', 'TRANSP:TRANSPARENT'),
      ...event('UID:b', 'DTSTART:20270311T090000Z', 'DTEND:20270311T100000Z', 'STATUS:CANCELLED'),
      ...event('UID:c', 'DTSTART:20270312T090000Z', 'DTEND:20270312T100000Z', 'TRANSP:OPAQUE', 'STATUS:CONFIRMED'),
    ),
    expected: ['2027-03-12T09:00:00.000Z/2027-03-12T10:00:00.000Z'],
  },
  {
    name: 'without DTEND or DURATION a date-time lasts no time and a date one day',
    text: ics(...event('UID:a', 'DTSTART:20270310T090000Z'), ...event('UID:b', 'DTSTART;VALUE=DATE:20270311')),
    zone: 'UTC',
    expected: ['2027-03-10T09:00:00.000Z/2027-03-10T09:00:00.000Z', '2027-03-11T00:00:00.000Z/2027-03-12T00:00:00.000Z'],
  },
  {
    name: 'only what overlaps the range, including an event that began before it',
    text: ics(
      ...event('UID:a', 'DTSTART:20270228T230000Z', 'DTEND:20270301T010000Z'),
      ...event('UID:b', 'DTSTART:20270228T220000Z', 'DTEND:20270301T000000Z'),
      ...event('UID:c', 'DTSTART:20270401T000000Z', 'DTEND:20270401T010000Z'),
    ),
    expected: ['2027-02-28T23:00:00.000Z/2027-03-01T01:00:00.000Z'],
  },
  {
    name: 'an endless daily series from years back yields just the range’s days',
    text: ics(...event('UID:a', 'DTSTART:20200101T120000Z', 'DTEND:20200101T130000Z', 'RRULE:FREQ=DAILY')),
    range: range('2027-03-01T00:00:00Z', '2027-03-03T00:00:00Z'),
    expected: ['2027-03-01T12:00:00.000Z/2027-03-01T13:00:00.000Z', '2027-03-02T12:00:00.000Z/2027-03-02T13:00:00.000Z'],
  },
  {
    name: 'a rule that never matches (30 February) leaves only DTSTART and ends',
    text: ics(...event('UID:a', 'DTSTART:20270301T120000Z', 'DURATION:PT1H', 'RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30')),
    range: range('2027-03-01T00:00:00Z', '2030-01-01T00:00:00Z'),
    expected: ['2027-03-01T12:00:00.000Z/2027-03-01T13:00:00.000Z'],
  },
  {
    name: 'a broken event is skipped, the others still count',
    text: ics(
      ...event('UID:a', 'DTSTART:20270310T090000Z', 'DTEND:20270310T100000Z', 'RRULE:FREQ=SOMETIMES'),
      ...event('UID:b', 'DTSTART:20270311T090000Z', 'DTEND:20270311T100000Z'),
    ),
    expected: ['2027-03-11T09:00:00.000Z/2027-03-11T10:00:00.000Z'],
  },
];

/** Outlook's export of Warsaw time: a Windows zone name, defined only by the file's VTIMEZONE. */
const OUTLOOK_CET = [
  'BEGIN:VTIMEZONE',
  'TZID:Central European Standard Time',
  'BEGIN:STANDARD',
  'DTSTART:16010101T030000',
  'TZOFFSETFROM:+0200',
  'TZOFFSETTO:+0100',
  'RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10',
  'END:STANDARD',
  'BEGIN:DAYLIGHT',
  'DTSTART:16010101T020000',
  'TZOFFSETFROM:+0100',
  'TZOFFSETTO:+0200',
  'RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3',
  'END:DAYLIGHT',
  'END:VTIMEZONE',
];

/** Mondays 09:00 in Warsaw through March 2027; the clocks go forward on Sunday the 28th. */
const WARSAW_MONDAYS = [
  '2027-03-01T08:00:00.000Z/2027-03-01T09:00:00.000Z',
  '2027-03-08T08:00:00.000Z/2027-03-08T09:00:00.000Z',
  '2027-03-15T08:00:00.000Z/2027-03-15T09:00:00.000Z',
  '2027-03-22T08:00:00.000Z/2027-03-22T09:00:00.000Z',
  '2027-03-29T07:00:00.000Z/2027-03-29T08:00:00.000Z',
];

/**
 * Exporters commonly end a series with UNTIL equal to its last occurrence's start (Outlook
 * always does). UNTIL is inclusive (RFC 5545 3.3.10), so that occurrence is busy time: were
 * it dropped, the host would be offered a slot they are in fact busy in.
 */
const untilOnLastStartCases: Case[] = [
  {
    name: 'Outlook: a VTIMEZONE zone, UNTIL in UTC on the last start, after the DST change (29 March 09:00 CEST = 07:00Z)',
    text: ics(
      ...OUTLOOK_CET,
      ...event(
        'UID:outlook',
        'DTSTART;TZID=Central European Standard Time:20270301T090000',
        'DTEND;TZID=Central European Standard Time:20270301T100000',
        'RRULE:FREQ=WEEKLY;UNTIL=20270329T070000Z;INTERVAL=1;BYDAY=MO;WKST=MO',
      ),
    ),
    // A host elsewhere: the times are the file's zone's, not the host's.
    zone: 'America/New_York',
    expected: WARSAW_MONDAYS,
  },
  {
    name: 'an IANA TZID the file does not define, UNTIL in UTC on the last start, after New York’s DST change (15 March 09:00 EDT = 13:00Z)',
    text: ics(
      ...event('UID:ny', 'DTSTART;TZID=America/New_York:20270301T090000', 'DTEND;TZID=America/New_York:20270301T100000', 'RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20270315T130000Z'),
    ),
    expected: ['2027-03-01T14:00:00.000Z/2027-03-01T15:00:00.000Z', '2027-03-08T14:00:00.000Z/2027-03-08T15:00:00.000Z', '2027-03-15T13:00:00.000Z/2027-03-15T14:00:00.000Z'],
  },
  {
    name: 'UNTIL written as local time of DTSTART’s zone (no Z, seen in the wild) on the last start',
    text: ics(...event('UID:local', 'DTSTART;TZID=Europe/Warsaw:20270301T090000', 'DTEND;TZID=Europe/Warsaw:20270301T100000', 'RRULE:FREQ=WEEKLY;UNTIL=20270329T090000')),
    zone: 'UTC',
    expected: WARSAW_MONDAYS,
  },
  {
    name: 'a date-only UNTIL on a timed series keeps that day’s occurrence',
    text: ics(...event('UID:date', 'DTSTART;TZID=Europe/Warsaw:20270301T090000', 'DTEND;TZID=Europe/Warsaw:20270301T100000', 'RRULE:FREQ=WEEKLY;UNTIL=20270329')),
    expected: WARSAW_MONDAYS,
  },
  {
    name: 'an all-day series (Google’s shape: date UNTIL on the last date) keeps its last day, a 23-hour one after the change in the host’s zone',
    text: ics(...event('UID:allday', 'DTSTART;VALUE=DATE:20270322', 'DTEND;VALUE=DATE:20270323', 'RRULE:FREQ=WEEKLY;WKST=MO;UNTIL=20270329;BYDAY=MO')),
    expected: ['2027-03-21T23:00:00.000Z/2027-03-22T23:00:00.000Z', '2027-03-28T22:00:00.000Z/2027-03-29T22:00:00.000Z'],
  },
];

describe('extractBusyIntervals: a series whose UNTIL is its last start', () => {
  it.each(untilOnLastStartCases)('$name', ({ text, range: r, zone, expected }) => {
    expect(asIso(extractBusyIntervals(text, r ?? MARCH_2027, zone ?? 'Europe/Warsaw'))).toEqual(expected);
  });

  it('a second earlier ends the series before that occurrence', () => {
    const text = ics(...event('UID:a', 'DTSTART;TZID=Europe/Warsaw:20270301T090000', 'DTEND;TZID=Europe/Warsaw:20270301T100000', 'RRULE:FREQ=WEEKLY;UNTIL=20270329T065959Z'));
    expect(asIso(extractBusyIntervals(text, MARCH_2027, 'Europe/Warsaw'))).toEqual(WARSAW_MONDAYS.slice(0, 4));
  });
});

describe('extractBusyIntervals', () => {
  it.each(cases)('$name', ({ text, range: r, zone, expected }) => {
    expect(asIso(extractBusyIntervals(text, r ?? MARCH_2027, zone ?? 'Europe/Warsaw'))).toEqual(expected);
  });

  it('stops a secondly rule without end at the range', () => {
    const text = ics(...event('UID:a', 'DTSTART:20270310T000000Z', 'DURATION:PT1S', 'RRULE:FREQ=SECONDLY'));
    const busy = extractBusyIntervals(text, range('2027-03-10T00:00:00Z', '2027-03-10T00:01:00Z'), 'UTC');
    expect(busy).toHaveLength(60);
    expect(busy.every((b, i) => i === 0 || b.start > busy[i - 1]!.start)).toBe(true);
  });

  it('caps a rule that would generate too many occurrences before the range', () => {
    const text = ics(...event('UID:a', 'DTSTART:20200101T000000Z', 'DURATION:PT1S', 'RRULE:FREQ=SECONDLY'));
    expect(extractBusyIntervals(text, range('2027-03-10T00:00:00Z', '2027-03-10T00:01:00Z'), 'UTC')).toEqual([]);
  });

  it('refuses text that is not iCalendar', () => {
    expect(() => extractBusyIntervals('<html>Sign in</html>', MARCH_2027, 'UTC')).toThrow(CalendarBadResponseError);
  });

  it('reads an empty calendar as no busy time', () => {
    expect(extractBusyIntervals(ics(), MARCH_2027, 'UTC')).toEqual([]);
  });
});

describe('wallToInstant', () => {
  it.each([
    ['an ordinary time', 'Europe/Warsaw', [2027, 3, 10, 12, 0, 0], '2027-03-10T11:00:00.000Z'],
    ['a time in the spring-forward gap', 'Europe/Warsaw', [2027, 3, 28, 2, 30, 0], '2027-03-28T01:30:00.000Z'],
    ['a time that occurs twice', 'Europe/Warsaw', [2027, 10, 31, 2, 30, 0], '2027-10-31T00:30:00.000Z'],
    ['a half-hour zone', 'Asia/Kolkata', [2027, 3, 10, 12, 0, 0], '2027-03-10T06:30:00.000Z'],
  ] as const)('%s', (_name, zone, [y, mo, d, h, mi, s], expected) => {
    expect(new Date(wallToInstant(zone, y, mo, d, h, mi, s)).toISOString()).toBe(expected);
  });
});
