import ical, { ICalCalendarMethod } from 'ical-generator';
import { addMeetingEvent, type CalendarMeeting, type RenderOptions } from './meeting-event.js';

export interface MeetingsFeed {
  /** Shown as the subscribed calendar's name (X-WR-CALNAME). */
  calendarName: string;
  meetings: readonly CalendarMeeting[];
  /** How often subscribers should fetch again, in seconds; one hour by default. */
  refreshSeconds?: number | undefined;
}

export const DEFAULT_FEED_REFRESH_SECONDS = 3600;

/**
 * A METHOD:PUBLISH calendar of meetings for subscription by URL: Google Calendar, Outlook
 * and Apple Calendar read X-WR-CALNAME for the name and REFRESH-INTERVAL / X-PUBLISHED-TTL
 * for how often to come back (Google refreshes on its own schedule whatever it says).
 * Every meeting given is rendered, with the same UID as its invitation and CalDAV copy.
 *
 * @example
 * renderMeetingsFeed({ calendarName: 'termin: Ann Lee', meetings: [meeting] })
 * // BEGIN:VCALENDAR … METHOD:PUBLISH … X-WR-CALNAME:termin: Ann Lee … REFRESH-INTERVAL;VALUE=DURATION:PT1H …
 */
export function renderMeetingsFeed(feed: MeetingsFeed, options: RenderOptions = {}): string {
  const calendar = ical({
    prodId: { company: 'termin', product: 'termin', language: 'EN' },
    method: ICalCalendarMethod.PUBLISH,
    // ical-generator writes the name as is; escaped here so a comma or line break in a
    // host's name cannot break the property or start a new one.
    name: escapeText(feed.calendarName),
    ttl: feed.refreshSeconds ?? DEFAULT_FEED_REFRESH_SECONDS,
  });
  const stamp = options.stamp ?? new Date();
  for (const meeting of feed.meetings) addMeetingEvent(calendar, meeting, stamp);
  return calendar.toString();
}

/** RFC 5545 3.3.11 TEXT escaping. */
function escapeText(text: string): string {
  return text
    .replace(/\\/g, '\\\\')
    .replace(/;/g, '\\;')
    .replace(/,/g, '\\,')
    .replace(/\r\n|\r|\n/g, '\\n');
}
