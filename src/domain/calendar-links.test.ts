import { describe, expect, it } from 'vitest';
import { googleCalendarUrl, outlookCalendarUrl } from './calendar-links.js';

const event = {
  title: 'Konsultacja: Olga & Ann',
  start: Date.UTC(2027, 2, 10, 9, 30),
  end: Date.UTC(2027, 2, 10, 10, 15),
  details: 'Join: https://zoom.us/j/1?pwd=a+b\nManage: https://termin.example/booking/x.y',
  location: 'ul. Żółta 1, Kraków',
};

describe('add-to-calendar links', () => {
  it('Google Calendar: a TEMPLATE with UTC dates, every field read back unchanged', () => {
    const url = new URL(googleCalendarUrl(event));
    expect(url.origin + url.pathname).toBe('https://calendar.google.com/calendar/render');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      action: 'TEMPLATE',
      text: event.title,
      dates: '20270310T093000Z/20270310T101500Z',
      details: event.details,
      location: event.location,
    });
    // Spaces as %20: some calendar apps show a literal + otherwise.
    expect(url.search).not.toContain('+');
  });

  it('Outlook on the web: the compose deeplink with ISO UTC times', () => {
    const url = new URL(outlookCalendarUrl(event));
    expect(url.origin + url.pathname).toBe('https://outlook.live.com/calendar/0/deeplink/compose');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      path: '/calendar/action/compose',
      rru: 'addevent',
      subject: event.title,
      startdt: '2027-03-10T09:30:00Z',
      enddt: '2027-03-10T10:15:00Z',
      body: event.details,
      location: event.location,
    });
  });
});
