import ical, { ICalEventStatus, type ICalCalendar } from 'ical-generator';

/**
 * What a host's calendar shows of one meeting. Deliberately not the service's Meeting:
 * the caller maps (topic and attendee into `summary`, a place label into `location`,
 * the manage page into `url`), so these renderers never change with the schema.
 */
export interface CalendarMeeting {
  uuid: string;
  /** Epoch milliseconds. */
  start: number;
  end: number;
  summary: string;
  description?: string | null | undefined;
  location?: string | null | undefined;
  url?: string | null | undefined;
  /** Raised on every change so calendar apps replace their copy (RFC 5545 SEQUENCE). */
  sequence: number;
  status: CalendarMeetingStatus;
}

export type CalendarMeetingStatus = 'confirmed' | 'tentative' | 'cancelled';

export interface RenderOptions {
  /** DTSTAMP; now by default. */
  stamp?: Date | undefined;
}

const PROD_ID = { company: 'termin', product: 'termin', language: 'EN' } as const;

const STATUS: Record<CalendarMeetingStatus, ICalEventStatus> = {
  confirmed: ICalEventStatus.CONFIRMED,
  tentative: ICalEventStatus.TENTATIVE,
  cancelled: ICalEventStatus.CANCELLED,
};

/** The UID of a meeting everywhere termin writes it (invitations, CalDAV, feeds), so they all name one event. */
export function meetingEventUid(uuid: string): string {
  return `${uuid}@termin`;
}

/**
 * One VEVENT in a VCALENDAR, for a PUT into the host's CalDAV calendar: times in UTC, no
 * METHOD (RFC 4791 forbids it in stored objects).
 *
 * @example
 * renderMeetingEvent({ uuid: 'b1…', start: Date.UTC(2027, 2, 10, 9), end: Date.UTC(2027, 2, 10, 10),
 *   summary: 'Consultation: Ann Lee', sequence: 0, status: 'confirmed' })
 * // BEGIN:VCALENDAR … UID:b1…@termin SEQUENCE:0 DTSTART:20270310T090000Z DTEND:20270310T100000Z … STATUS:CONFIRMED …
 */
export function renderMeetingEvent(meeting: CalendarMeeting, options: RenderOptions = {}): string {
  const calendar = ical({ prodId: PROD_ID });
  addMeetingEvent(calendar, meeting, options.stamp ?? new Date());
  return calendar.toString();
}

/** Adds one meeting to a calendar being built; shared with the feed. */
export function addMeetingEvent(calendar: ICalCalendar, meeting: CalendarMeeting, stamp: Date): void {
  calendar.createEvent({
    id: meetingEventUid(meeting.uuid),
    sequence: meeting.sequence,
    start: new Date(meeting.start),
    end: new Date(meeting.end),
    stamp,
    summary: meeting.summary,
    description: meeting.description ?? null,
    location: meeting.location ?? null,
    url: meeting.url ?? null,
    status: STATUS[meeting.status],
  });
}
