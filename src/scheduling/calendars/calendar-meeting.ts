import type { CalendarMeeting } from '../../calendars/meeting-event.js';
import type { Meeting } from '../../domain/meeting.js';
import { PLACE_LABELS } from '../../i18n/place-labels.js';
import { toSingleLine } from '../../domain/text.js';

/**
 * What the host's own calendar (CalDAV copy, private feed) shows of a meeting: the topic
 * and the participant in the title, how to reach them in the description. Same UID as the
 * invitation (`${uuid}@termin`), so a calendar that also got the invitation shows one event.
 *
 * `{ topic 'Intro call', participant 'Jan Kowalski', place 'zoom' }` → summary
 * `Intro call: Jan Kowalski`, location `Zoom`.
 */
export function toCalendarMeeting(meeting: Meeting, topicName: string): CalendarMeeting {
  const lines = [`Participant: ${toSingleLine(meeting.participant.name)} <${toSingleLine(meeting.participant.email)}>`];
  if (meeting.participant.phone) lines.push(`Phone: ${toSingleLine(meeting.participant.phone)}`);
  if (meeting.note) lines.push('', meeting.note);
  return {
    uuid: meeting.uuid,
    start: meeting.start,
    end: meeting.end,
    summary: `${toSingleLine(topicName)}: ${toSingleLine(meeting.participant.name)}`,
    description: lines.join('\n'),
    // The resolved address, room link or number when the booking had one (place details), else the place.
    location: meeting.location?.text ?? PLACE_LABELS.en[meeting.place] ?? meeting.place,
    sequence: meeting.sequence,
    status:
      meeting.status === 'cancelled' || meeting.status === 'expired' || meeting.status === 'declined'
        ? 'cancelled'
        : meeting.status === 'pending_payment' || meeting.status === 'pending_approval'
          ? 'tentative'
          : 'confirmed',
  };
}
