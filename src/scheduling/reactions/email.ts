import type { DomainEvent } from '../../domain/events.js';
import type { Meeting } from '../../domain/meeting.js';
import type { DbOrTrx } from '../../db/database.js';
import { findAccount } from '../../db/repositories/accounts.js';
import { findTopicIncludingDeleted } from '../../db/repositories/meeting-topics.js';
import type { NewJob } from '../../db/repositories/outbox.js';
import { findUser } from '../../db/repositories/users.js';
import { newId } from '../../ids.js';
import { EMAIL_JOB_KIND, type BookingMessagePayload } from '../../mail/booking-message.js';
import type { MeetingEventData } from '../dispatch-event.js';

/** The e-mails an event sends, as `email` jobs. */
export async function emailJobsForEvent(trx: DbOrTrx, event: DomainEvent, now: number): Promise<NewJob[]> {
  const emails = await emailsForEvent(trx, event);
  return emails.map((payload) => ({ uuid: newId(now), kind: EMAIL_JOB_KIND, payload }));
}

/** Which messages an event sends: a confirmed meeting's invitations, and their cancellation. */
async function emailsForEvent(trx: DbOrTrx, event: DomainEvent): Promise<BookingMessagePayload[]> {
  if (!event.type.startsWith('meeting.')) return [];
  const { meeting, previousStatus } = event.data as unknown as MeetingEventData;
  let kind: BookingMessagePayload['event'] | null = null;
  if ((event.type === 'meeting.scheduled' || event.type === 'meeting.confirmed') && meeting.status === 'confirmed') kind = 'confirmed';
  // Only a confirmed meeting had invitations sent; a pending one never reached a calendar.
  if (event.type === 'meeting.cancelled' && previousStatus === 'confirmed') kind = 'cancelled';
  if (kind === null) return [];
  return bookingMessages(trx, meeting, kind);
}

/** The participant's and the host's message about one meeting, each in its reader's zone and language. */
async function bookingMessages(trx: DbOrTrx, meeting: Meeting, kind: BookingMessagePayload['event']): Promise<BookingMessagePayload[]> {
  const [account, topic, host] = await Promise.all([
    findAccount(trx, meeting.accountUuid),
    findTopicIncludingDeleted(trx, meeting.topicUuid),
    findUser(trx, meeting.accountUuid, meeting.hostUuid),
  ]);
  if (!account || !topic || !host) return [];
  const organizer = { name: `${host.firstName} ${host.lastName}`, email: host.email };
  const attendee = { name: meeting.participant.name, email: meeting.participant.email };
  const common = {
    event: kind,
    accountName: account.name,
    meeting: {
      uuid: meeting.uuid,
      topicName: topic.name,
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
  return [
    { ...common, recipient: 'participant', to: attendee, lang: meeting.participant.lang, timezone: meeting.participant.timezone },
    { ...common, recipient: 'host', to: organizer, lang: 'en', timezone: host.timezone },
  ];
}
