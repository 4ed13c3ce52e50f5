import { describe, expect, it } from 'vitest';
import { calendarLinks } from './calendar-links.js';

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
      startdt: '2027-03-29T07:00:00.000Z',
      enddt: '2027-03-29T07:30:00.000Z',
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
