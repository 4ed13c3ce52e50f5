import { describe, expect, it } from 'vitest';
import { calendarLinks, googleCalendarUrl, outlookCalendarUrl } from './calendar-links.js';

describe('calendarLinks', () => {
  const event = {
    title: 'Konsultacja: Anna & Co',
    start: Date.parse('2027-03-29T07:00:00Z'),
    end: Date.parse('2027-03-29T07:30:00Z'),
    location: 'ul. Prosta 1, Warszawa',
    details: 'Reschedule or cancel: http://termin.test/booking/abc?x=1&y=2',
  };

  it("fills Google Calendar's template with UTC times and every field encoded", () => {
    const google = new URL(calendarLinks(event).google);
    expect(google.origin + google.pathname).toBe('https://calendar.google.com/calendar/render');
    expect(Object.fromEntries(google.searchParams)).toEqual({
      action: 'TEMPLATE',
      text: event.title,
      dates: '20270329T070000Z/20270329T073000Z',
      details: event.details,
      location: event.location,
    });
  });

  it("fills Outlook on the web's compose link with ISO instants", () => {
    const outlook = new URL(calendarLinks(event).outlook);
    expect(outlook.origin + outlook.pathname).toBe('https://outlook.live.com/calendar/0/deeplink/compose');
    expect(Object.fromEntries(outlook.searchParams)).toEqual({
      path: '/calendar/action/compose',
      rru: 'addevent',
      subject: event.title,
      startdt: '2027-03-29T07:00:00Z',
      enddt: '2027-03-29T07:30:00Z',
      body: event.details,
      location: event.location,
    });
  });

  it('leaves out what the meeting does not have', () => {
    const links = calendarLinks({ ...event, location: null, details: undefined });
    expect(new URL(links.google).searchParams.has('location')).toBe(false);
    expect(new URL(links.outlook).searchParams.has('body')).toBe(false);
  });
});

const withEverything = {
  title: 'Konsultacja: Olga & Ann',
  start: Date.UTC(2027, 2, 10, 9, 30),
  end: Date.UTC(2027, 2, 10, 10, 15),
  details: 'Join: https://zoom.us/j/1?pwd=a+b\nManage: https://termin.example/booking/x.y',
  location: 'ul. Żółta 1, Kraków',
};

describe('add-to-calendar links', () => {
  it('Google Calendar: a TEMPLATE with UTC dates, every field read back unchanged', () => {
    const url = new URL(googleCalendarUrl(withEverything));
    expect(url.origin + url.pathname).toBe('https://calendar.google.com/calendar/render');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      action: 'TEMPLATE',
      text: withEverything.title,
      dates: '20270310T093000Z/20270310T101500Z',
      details: withEverything.details,
      location: withEverything.location,
    });
    // Spaces as %20: some calendar apps show a literal + otherwise.
    expect(url.search).not.toContain('+');
  });

  it('Outlook on the web: the compose deeplink with ISO UTC times', () => {
    const url = new URL(outlookCalendarUrl(withEverything));
    expect(url.origin + url.pathname).toBe('https://outlook.live.com/calendar/0/deeplink/compose');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      path: '/calendar/action/compose',
      rru: 'addevent',
      subject: withEverything.title,
      startdt: '2027-03-10T09:30:00Z',
      enddt: '2027-03-10T10:15:00Z',
      body: withEverything.details,
      location: withEverything.location,
    });
  });
});
