/**
 * "Add to calendar" links for one meeting, for people whose mail program does not offer to
 * add the attached invitation: Google Calendar's and Outlook on the web's documented
 * "new event" templates, filled with the meeting. Pure; shared by e-mails and pages.
 *
 * `calendarLinks({ title: 'Consultation', start, end, location: 'https://zoom.us/j/1', details: '…' }).google`
 * → `https://calendar.google.com/calendar/render?action=TEMPLATE&text=Consultation&dates=20270329T070000Z%2F20270329T073000Z&…`
 */
export interface CalendarEventLinkInput {
  title: string;
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
  const google = new URL('https://calendar.google.com/calendar/render');
  google.searchParams.set('action', 'TEMPLATE');
  google.searchParams.set('text', event.title);
  google.searchParams.set('dates', `${compactUtc(event.start)}/${compactUtc(event.end)}`);
  if (event.details) google.searchParams.set('details', event.details);
  if (event.location) google.searchParams.set('location', event.location);
  const outlook = new URL('https://outlook.live.com/calendar/0/deeplink/compose');
  outlook.searchParams.set('path', '/calendar/action/compose');
  outlook.searchParams.set('rru', 'addevent');
  outlook.searchParams.set('subject', event.title);
  outlook.searchParams.set('startdt', new Date(event.start).toISOString());
  outlook.searchParams.set('enddt', new Date(event.end).toISOString());
  if (event.details) outlook.searchParams.set('body', event.details);
  if (event.location) outlook.searchParams.set('location', event.location);
  return { google: google.toString(), outlook: outlook.toString() };
}

/** 2027-03-29T07:00:00.000Z → 20270329T070000Z, the form Google's `dates` takes. */
function compactUtc(instant: number): string {
  return new Date(instant)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}
