/**
 * "Add to calendar" links for a booked meeting: the template URLs Google Calendar and
 * Outlook on the web open as a pre-filled new event. No account or API: the participant's
 * own calendar does the saving. (Apple Calendar and others take the `.ics` download.)
 */
export interface CalendarLinkEvent {
  title: string;
  /** Epoch milliseconds. */
  start: number;
  end: number;
  details: string;
  location: string;
}

/** 2027-03-10T09:00:00.000Z → "20270310T090000Z", the form Google's `dates` takes. */
function compactUtc(epochMs: number): string {
  return new Date(epochMs)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/**
 * `googleCalendarUrl({ title: 'Consultation', start: Date.UTC(2027, 2, 10, 9), end: Date.UTC(2027, 2, 10, 10), details: '', location: 'Zoom' })`
 * → `https://calendar.google.com/calendar/render?action=TEMPLATE&text=Consultation&dates=20270310T090000Z%2F20270310T100000Z&details=&location=Zoom`
 */
export function googleCalendarUrl(event: CalendarLinkEvent): string {
  const query = new URLSearchParams({
    action: 'TEMPLATE',
    text: event.title,
    dates: `${compactUtc(event.start)}/${compactUtc(event.end)}`,
    details: event.details,
    location: event.location,
  });
  return `https://calendar.google.com/calendar/render?${query.toString().replace(/\+/g, '%20')}`;
}

/**
 * Outlook on the web's compose form (outlook.live.com also serves work accounts' sign-in):
 * `…/calendar/0/deeplink/compose?path=%2Fcalendar%2Faction%2Fcompose&rru=addevent&subject=Consultation&startdt=2027-03-10T09%3A00%3A00Z&enddt=…`
 */
export function outlookCalendarUrl(event: CalendarLinkEvent): string {
  const iso = (epochMs: number) => new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const query = new URLSearchParams({
    path: '/calendar/action/compose',
    rru: 'addevent',
    subject: event.title,
    startdt: iso(event.start),
    enddt: iso(event.end),
    body: event.details,
    location: event.location,
  });
  return `https://outlook.live.com/calendar/0/deeplink/compose?${query.toString().replace(/\+/g, '%20')}`;
}
