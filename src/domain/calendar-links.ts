/**
 * "Add to calendar" links for one meeting, for people whose mail program or browser does not
 * offer to add the invitation: Google Calendar's and Outlook on the web's documented "new
 * event" templates, filled with the meeting. No account or API: the participant's own
 * calendar does the saving (Apple Calendar and others take the `.ics`). Pure; shared by
 * e-mails and pages.
 *
 * `calendarLinks({ title: 'Consultation', start, end, location: 'https://zoom.us/j/1', details: '…' }).google`
 * → `https://calendar.google.com/calendar/render?action=TEMPLATE&text=Consultation&dates=20270329T070000Z%2F20270329T073000Z&…`
 */
export interface CalendarEventLinkInput {
  title: string;
  /** Epoch milliseconds. */
  start: number;
  end: number;
  location?: string | null | undefined;
  details?: string | null | undefined;
}

export interface CalendarLinks {
  google: string;
  outlook: string;
}

export function calendarLinks(event: CalendarEventLinkInput): CalendarLinks {
  return { google: googleCalendarUrl(event), outlook: outlookCalendarUrl(event) };
}

/** Google Calendar's TEMPLATE with UTC `dates`. */
export function googleCalendarUrl(event: CalendarEventLinkInput): string {
  const query = new URLSearchParams({ action: 'TEMPLATE', text: event.title, dates: `${compactUtc(event.start)}/${compactUtc(event.end)}` });
  if (event.details) query.set('details', event.details);
  if (event.location) query.set('location', event.location);
  return `https://calendar.google.com/calendar/render?${withPercentSpaces(query)}`;
}

/** Outlook on the web's compose deeplink (outlook.live.com also serves work accounts' sign-in), ISO UTC times. */
export function outlookCalendarUrl(event: CalendarEventLinkInput): string {
  const query = new URLSearchParams({ path: '/calendar/action/compose', rru: 'addevent', subject: event.title, startdt: isoSeconds(event.start), enddt: isoSeconds(event.end) });
  if (event.details) query.set('body', event.details);
  if (event.location) query.set('location', event.location);
  return `https://outlook.live.com/calendar/0/deeplink/compose?${withPercentSpaces(query)}`;
}

/** Spaces as %20, not +: some calendar apps show a literal + otherwise. */
function withPercentSpaces(query: URLSearchParams): string {
  return query.toString().replace(/\+/g, '%20');
}

/** 2027-03-29T07:00:00.000Z → 20270329T070000Z, the form Google's `dates` takes. */
function compactUtc(instant: number): string {
  return new Date(instant)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/** 2027-03-29T07:00:00.000Z → 2027-03-29T07:00:00Z */
function isoSeconds(instant: number): string {
  return new Date(instant).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
