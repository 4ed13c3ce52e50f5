import type { Account } from '../domain/account.js';
import type { Meeting } from '../domain/meeting.js';
import type { MeetingTopic } from '../domain/meeting-topic.js';
import type { DbOrTrx } from '../db/database.js';
import { enqueueMessages } from '../db/repositories/outbox.js';
import { findUser } from '../db/repositories/users.js';
import { newId } from '../ids.js';
import { BOOKING_MESSAGE_KIND, type BookingMessagePayload } from '../mail/booking-message.js';

/**
 * Queues the participant's and the host's message for each meeting, in the caller's
 * transaction: they exist exactly when the booking (or cancellation) committed.
 */
export async function enqueueBookingMessages(
  trx: DbOrTrx,
  booking: { account: Account; topic: Pick<MeetingTopic, 'name'>; meetings: Meeting[]; kind: BookingMessagePayload['event'] },
  now: number,
): Promise<void> {
  // A booking's dates usually share one host: look each host up once.
  const hosts = new Map<string, Awaited<ReturnType<typeof findUser>>>();
  const queued: { uuid: string; kind: string; payload: BookingMessagePayload }[] = [];
  for (const meeting of booking.meetings) {
    if (!hosts.has(meeting.hostUuid)) hosts.set(meeting.hostUuid, await findUser(trx, booking.account.uuid, meeting.hostUuid));
    const host = hosts.get(meeting.hostUuid);
    if (!host) continue;
    const organizer = { name: `${host.firstName} ${host.lastName}`, email: host.email };
    const attendee = { name: meeting.participant.name, email: meeting.participant.email };
    const common = {
      event: booking.kind,
      accountName: booking.account.name,
      meeting: {
        uuid: meeting.uuid,
        topicName: booking.topic.name,
        start: meeting.start,
        end: meeting.end,
        place: meeting.place,
        sequence: meeting.sequence,
        note: meeting.note,
        cancelReason: meeting.cancelReason,
        phone: meeting.participant.phone,
      },
      organizer,
      attendee,
    };
    const messages: BookingMessagePayload[] = [
      { ...common, recipient: 'participant', to: attendee, lang: meeting.participant.lang, timezone: meeting.participant.timezone },
      { ...common, recipient: 'host', to: organizer, lang: 'en', timezone: host.timezone },
    ];
    for (const payload of messages) queued.push({ uuid: newId(now), kind: BOOKING_MESSAGE_KIND, payload });
  }
  await enqueueMessages(trx, queued, now);
}
