import { HAS_RADICALE } from '../helpers.js';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaldavCalendar } from '../../src/calendars/caldav.js';
import { CalendarAuthError, CalendarNotFoundError, CalendarUnreachableError } from '../../src/calendars/errors.js';
import { meetingEventUid, renderMeetingEvent, type CalendarMeeting } from '../../src/calendars/meeting-event.js';
import { startRadicale, type RadicaleServer } from '../fakes/radicale.js';

const MARCH_2027 = { from: Date.parse('2027-03-01T00:00:00Z'), to: Date.parse('2027-04-01T00:00:00Z') };
const HOST_ZONE = 'Europe/Warsaw';

function calendarText(...lines: string[]): string {
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Someone else//Their client//EN', ...lines, 'END:VCALENDAR', ''].join('\r\n');
}

/** New York as Apple Calendar and Thunderbird send it along with an event. */
const NEW_YORK = [
  'BEGIN:VTIMEZONE',
  'TZID:America/New_York',
  'BEGIN:DAYLIGHT',
  'TZOFFSETFROM:-0500',
  'TZOFFSETTO:-0400',
  'TZNAME:EDT',
  'DTSTART:20070311T020000',
  'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU',
  'END:DAYLIGHT',
  'BEGIN:STANDARD',
  'TZOFFSETFROM:-0400',
  'TZOFFSETTO:-0500',
  'TZNAME:EST',
  'DTSTART:20071104T020000',
  'RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU',
  'END:STANDARD',
  'END:VTIMEZONE',
];

/** What other clients put in the host's calendar: one object per event, as CalDAV stores them. */
const SEEDED: Record<string, string> = {
  'single.ics': calendarText('BEGIN:VEVENT', 'UID:single', 'DTSTAMP:20270101T000000Z', 'DTSTART:20270303T090000Z', 'DTEND:20270303T100000Z', 'SUMMARY:Dentist', 'END:VEVENT'),
  // Mondays 12:00 Warsaw: the 15th moved to Tuesday 16th 14:00, the 22nd removed.
  'weekly.ics': calendarText(
    'BEGIN:VEVENT',
    'UID:weekly',
    'DTSTAMP:20270101T000000Z',
    'DTSTART;TZID=Europe/Warsaw:20270301T120000',
    'DTEND;TZID=Europe/Warsaw:20270301T130000',
    'RRULE:FREQ=WEEKLY;COUNT=5',
    'EXDATE;TZID=Europe/Warsaw:20270322T120000',
    'SUMMARY:Team lunch',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'UID:weekly',
    'DTSTAMP:20270101T000000Z',
    'RECURRENCE-ID;TZID=Europe/Warsaw:20270315T120000',
    'DTSTART;TZID=Europe/Warsaw:20270316T140000',
    'DTEND;TZID=Europe/Warsaw:20270316T150000',
    'SUMMARY:Team lunch (moved)',
    'END:VEVENT',
  ),
  'all-day.ics': calendarText(
    'BEGIN:VEVENT',
    'UID:all-day',
    'DTSTAMP:20270101T000000Z',
    'DTSTART;VALUE=DATE:20270305',
    'DTEND;VALUE=DATE:20270306',
    'SUMMARY:Conference',
    'END:VEVENT',
  ),
  'new-york.ics': calendarText(
    ...NEW_YORK,
    'BEGIN:VEVENT',
    'UID:new-york',
    'DTSTAMP:20270101T000000Z',
    'DTSTART;TZID=America/New_York:20270318T090000',
    'DTEND;TZID=America/New_York:20270318T100000',
    'SUMMARY:Call with New York',
    'END:VEVENT',
  ),
  'free.ics': calendarText(
    'BEGIN:VEVENT',
    'UID:free',
    'DTSTAMP:20270101T000000Z',
    'DTSTART:20270304T090000Z',
    'DTEND:20270304T100000Z',
    'TRANSP:TRANSPARENT',
    'SUMMARY:Focus time (free)',
    'END:VEVENT',
  ),
  'april.ics': calendarText('BEGIN:VEVENT', 'UID:april', 'DTSTAMP:20270101T000000Z', 'DTSTART:20270402T090000Z', 'DTEND:20270402T100000Z', 'END:VEVENT'),
};

const asIso = (intervals: { start: number; end: number }[]) => intervals.map((i) => `${new Date(i.start).toISOString()}/${new Date(i.end).toISOString()}`);

function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

describe.runIf(HAS_RADICALE)('CalDAV calendar against Radicale', () => {
  let radicale: RadicaleServer;
  let busyUrl: string;
  let writesUrl: string;

  beforeAll(async () => {
    radicale = await startRadicale();
    busyUrl = await radicale.createCalendar('busy');
    writesUrl = await radicale.createCalendar('writes');
    for (const [name, text] of Object.entries(SEEDED)) {
      const response = await fetch(new URL(name, busyUrl), {
        method: 'PUT',
        headers: { authorization: basic(radicale.username, radicale.password), 'content-type': 'text/calendar; charset=utf-8' },
        body: text,
      });
      expect(response.status, `${name}: ${await response.text()}`).toBe(201);
    }
  });

  afterAll(async () => {
    await radicale?.stop();
  });

  const calendar = (url: string, password = radicale.password) => createCaldavCalendar({ url, username: radicale.username, password });

  it('reads exactly the busy intervals: recurrence with a moved and a removed instance, all-day, New York, not the free one', async () => {
    const busy = await calendar(busyUrl).fetchBusy(MARCH_2027, HOST_ZONE);
    expect(asIso(busy)).toEqual([
      '2027-03-01T11:00:00.000Z/2027-03-01T12:00:00.000Z', // weekly, 12:00 CET
      '2027-03-03T09:00:00.000Z/2027-03-03T10:00:00.000Z', // single
      '2027-03-04T23:00:00.000Z/2027-03-05T23:00:00.000Z', // all-day, Warsaw midnights
      '2027-03-08T11:00:00.000Z/2027-03-08T12:00:00.000Z', // weekly
      '2027-03-16T13:00:00.000Z/2027-03-16T14:00:00.000Z', // the 15th, moved
      '2027-03-18T13:00:00.000Z/2027-03-18T14:00:00.000Z', // 09:00 EDT
      '2027-03-29T10:00:00.000Z/2027-03-29T11:00:00.000Z', // weekly, 12:00 CEST; the 22nd is gone
    ]);
  });

  it('asks the server for the range only', async () => {
    const busy = await calendar(busyUrl).fetchBusy({ from: Date.parse('2027-03-18T00:00:00Z'), to: Date.parse('2027-03-19T00:00:00Z') }, HOST_ZONE);
    expect(asIso(busy)).toEqual(['2027-03-18T13:00:00.000Z/2027-03-18T14:00:00.000Z']);
  });

  it('writes a meeting, moves it with a second put of the same UID, and deletes it', async () => {
    const writes = calendar(writesUrl);
    const meeting: CalendarMeeting = {
      uuid: '0b4f3a52-6c1e-4d0e-9a57-1f2d3c4b5a69',
      start: Date.parse('2027-03-10T09:00:00Z'),
      end: Date.parse('2027-03-10T10:00:00Z'),
      summary: 'Consultation: Ann Lee',
      location: 'Zoom',
      url: 'https://termin.example/manage/abc',
      sequence: 0,
      status: 'confirmed',
    };
    const uid = meetingEventUid(meeting.uuid);

    await writes.putEvent(uid, renderMeetingEvent(meeting));
    expect(asIso(await writes.fetchBusy(MARCH_2027, HOST_ZONE))).toEqual(['2027-03-10T09:00:00.000Z/2027-03-10T10:00:00.000Z']);
    const stored = await fetch(new URL(`${uid}.ics`, writesUrl), { headers: { authorization: basic(radicale.username, radicale.password) } });
    expect(stored.status).toBe(200);
    expect(await stored.text()).toContain(`UID:${uid}`);

    const moved = { ...meeting, start: Date.parse('2027-03-11T14:00:00Z'), end: Date.parse('2027-03-11T15:00:00Z'), sequence: 1 };
    await writes.putEvent(uid, renderMeetingEvent(moved));
    expect(asIso(await writes.fetchBusy(MARCH_2027, HOST_ZONE))).toEqual(['2027-03-11T14:00:00.000Z/2027-03-11T15:00:00.000Z']);

    await writes.deleteEvent(uid);
    expect(await writes.fetchBusy(MARCH_2027, HOST_ZONE)).toEqual([]);
    await expect(writes.deleteEvent(uid)).resolves.toBeUndefined();
  });

  it('stores an event whose UID is not file-safe under a stable name', async () => {
    const writes = calendar(writesUrl);
    const uid = 'weird uid/with slashes?and=query';
    const text = calendarText('BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20270101T000000Z', 'DTSTART:20270320T080000Z', 'DTEND:20270320T083000Z', 'END:VEVENT');
    await writes.putEvent(uid, text);
    await writes.putEvent(uid, text);
    expect(asIso(await writes.fetchBusy(MARCH_2027, HOST_ZONE))).toEqual(['2027-03-20T08:00:00.000Z/2027-03-20T08:30:00.000Z']);
    await writes.deleteEvent(uid);
    expect(await writes.fetchBusy(MARCH_2027, HOST_ZONE)).toEqual([]);
  });

  it('sends every request through the fetch it is given', async () => {
    const seen: string[] = [];
    const recording: typeof fetch = (input, init) => {
      seen.push(`${init?.method ?? 'GET'} ${String(input)}`);
      return fetch(input, init);
    };
    const writes = createCaldavCalendar({ url: writesUrl, username: radicale.username, password: radicale.password, fetch: recording });
    await writes.putEvent('through-fetch', calendarText('BEGIN:VEVENT', 'UID:through-fetch', 'DTSTAMP:20270101T000000Z', 'DTSTART:20270301T080000Z', 'END:VEVENT'));
    await writes.fetchBusy(MARCH_2027, HOST_ZONE);
    await writes.deleteEvent('through-fetch');
    expect(seen).toEqual([`PUT ${writesUrl}through-fetch.ics`, `REPORT ${writesUrl}`, `DELETE ${writesUrl}through-fetch.ics`]);
  });

  it('reports a wrong password as CalendarAuthError, without the password', async () => {
    const wrong = calendar(busyUrl, 'not-the-password');
    for (const attempt of [() => wrong.fetchBusy(MARCH_2027, HOST_ZONE), () => wrong.putEvent('x', 'y'), () => wrong.deleteEvent('x')]) {
      const error = await attempt().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CalendarAuthError);
      expect((error as Error).message).toContain('HTTP 401');
      expect((error as Error).message).not.toContain('not-the-password');
    }
  });

  it('reports a missing collection as CalendarNotFoundError', async () => {
    const missing = calendar(new URL('no-such-calendar/', busyUrl).href);
    await expect(missing.fetchBusy(MARCH_2027, HOST_ZONE)).rejects.toBeInstanceOf(CalendarNotFoundError);
  });
});

describe.runIf(HAS_RADICALE)('CalDAV calendar when the server is gone', () => {
  it('reports a stopped Radicale as CalendarUnreachableError, without the password', async () => {
    const radicale = await startRadicale({ password: 'secret-password' });
    const url = await radicale.createCalendar('work');
    await radicale.stop();
    const gone = createCaldavCalendar({ url, username: radicale.username, password: radicale.password });
    for (const attempt of [() => gone.fetchBusy(MARCH_2027, HOST_ZONE), () => gone.putEvent('x', 'y'), () => gone.deleteEvent('x')]) {
      const error = await attempt().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CalendarUnreachableError);
      expect((error as Error).message).toContain('ECONNREFUSED');
      expect((error as Error).message).not.toContain('secret-password');
    }
  });

  it('gives up on a server that never answers, as CalendarUnreachableError', async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    try {
      const stuck = createCaldavCalendar({ url: `http://127.0.0.1:${port}/alice/work/`, username: 'alice', password: 'pw', timeoutMs: 200 });
      const error = await stuck.fetchBusy(MARCH_2027, HOST_ZONE).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CalendarUnreachableError);
      expect((error as Error).message).toContain('timed out after 200 ms');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
