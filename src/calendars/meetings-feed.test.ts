import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { extractBusyIntervals } from './busy-time.js';
import { renderMeetingEvent, type CalendarMeeting } from './meeting-event.js';
import { renderMeetingsFeed } from './meetings-feed.js';

const MEETINGS: CalendarMeeting[] = [
  {
    uuid: '11111111-1111-4111-8111-111111111111',
    start: Date.parse('2027-03-27T09:00:00Z'),
    end: Date.parse('2027-03-27T09:30:00Z'),
    summary: 'Consultation: Ann Lee',
    description: 'First visit,\nbring papers; thanks',
    location: 'Zoom',
    url: 'https://termin.example/manage/abc',
    sequence: 0,
    status: 'confirmed',
  },
  {
    // Across Warsaw's spring-forward night: UTC times need no zone.
    uuid: '22222222-2222-4222-8222-222222222222',
    start: Date.parse('2027-03-28T00:30:00Z'),
    end: Date.parse('2027-03-28T01:30:00Z'),
    summary: 'Night shift handover',
    sequence: 3,
    status: 'tentative',
  },
  {
    uuid: '33333333-3333-4333-8333-333333333333',
    start: Date.parse('2027-04-02T14:00:00Z'),
    end: Date.parse('2027-04-02T15:00:00Z'),
    summary: 'Cancelled call',
    sequence: 2,
    status: 'cancelled',
  },
];

const STAMP = new Date('2027-03-01T12:00:00Z');

function events(text: string): { calendar: ICAL.Component; events: Map<string, ICAL.Component> } {
  const calendar = new ICAL.Component(ICAL.parse(text));
  const byUid = new Map(calendar.getAllSubcomponents('vevent').map((event) => [String(event.getFirstPropertyValue('uid')), event]));
  return { calendar, events: byUid };
}

const ms = (event: ICAL.Component, name: string) => (event.getFirstPropertyValue(name) as ICAL.Time).toJSDate().getTime();

describe('renderMeetingsFeed', () => {
  const text = renderMeetingsFeed({ calendarName: 'termin: Ann Lee, Dentistry', meetings: MEETINGS }, { stamp: STAMP });
  const { calendar, events: byUid } = events(text);

  it('is a PUBLISH calendar with a name and a refresh interval subscribers understand', () => {
    expect(calendar.getFirstPropertyValue('method')).toBe('PUBLISH');
    // TEXT escaping (RFC 5545 3.3.11); ical.js leaves X- values raw, calendar apps unescape them.
    expect(calendar.getFirstPropertyValue('x-wr-calname')).toBe('termin: Ann Lee\\, Dentistry');
    expect(text).toContain('REFRESH-INTERVAL;VALUE=DURATION:PT1H\r\n');
    expect(text).toContain('X-PUBLISHED-TTL:PT1H\r\n');
  });

  it('holds every meeting given, with its UID, times in UTC, sequence and status', () => {
    expect(byUid.size).toBe(MEETINGS.length);
    for (const meeting of MEETINGS) {
      const event = byUid.get(`${meeting.uuid}@termin`);
      expect(event, meeting.uuid).toBeDefined();
      expect(ms(event!, 'dtstart')).toBe(meeting.start);
      expect(ms(event!, 'dtend')).toBe(meeting.end);
      expect((event!.getFirstPropertyValue('dtstart') as ICAL.Time).zone).toBe(ICAL.Timezone.utcTimezone);
      expect(event!.getFirstPropertyValue('summary')).toBe(meeting.summary);
      expect(event!.getFirstPropertyValue('sequence')).toBe(meeting.sequence);
      expect(event!.getFirstPropertyValue('status')).toBe(meeting.status.toUpperCase());
    }
    const first = byUid.get(`${MEETINGS[0]!.uuid}@termin`)!;
    expect(first.getFirstPropertyValue('description')).toBe(MEETINGS[0]!.description);
    expect(first.getFirstPropertyValue('location')).toBe('Zoom');
    expect(first.getFirstPropertyValue('url')).toBe('https://termin.example/manage/abc');
  });

  it('reads back as busy time exactly where the meetings are, less the cancelled one', () => {
    const busy = extractBusyIntervals(text, { from: Date.parse('2027-03-01T00:00:00Z'), to: Date.parse('2027-05-01T00:00:00Z') }, 'Europe/Warsaw');
    expect(busy).toEqual(MEETINGS.filter((m) => m.status !== 'cancelled').map(({ start, end }) => ({ start, end })));
  });

  it('keeps a line break in the calendar name from starting a new property', () => {
    const hostile = renderMeetingsFeed({ calendarName: 'Ann\r\nX-INJECTED:1', meetings: [] }, { stamp: STAMP });
    expect(hostile).not.toMatch(/^X-INJECTED/m);
    expect(events(hostile).calendar.getFirstPropertyValue('x-wr-calname')).toBe('Ann\\nX-INJECTED:1');
  });

  it('renders an empty feed', () => {
    expect(events(renderMeetingsFeed({ calendarName: 'Empty', meetings: [] })).events.size).toBe(0);
  });
});

describe('renderMeetingEvent', () => {
  it('is one VEVENT without METHOD (CalDAV forbids it in stored objects)', () => {
    const text = renderMeetingEvent(MEETINGS[0]!, { stamp: STAMP });
    const { calendar, events: byUid } = events(text);
    expect(calendar.getFirstPropertyValue('method')).toBeNull();
    expect([...byUid.keys()]).toEqual([`${MEETINGS[0]!.uuid}@termin`]);
    const event = byUid.get(`${MEETINGS[0]!.uuid}@termin`)!;
    expect(ms(event, 'dtstart')).toBe(MEETINGS[0]!.start);
    expect(ms(event, 'dtend')).toBe(MEETINGS[0]!.end);
    expect(ms(event, 'dtstamp')).toBe(STAMP.getTime());
    expect(text).toContain('DTSTART:20270327T090000Z\r\n');
  });
});
