import { isMeetingEvent, type DomainEvent, type LocatedEventData, type RescheduledEventData } from '../../domain/events.js';
import { providerOfPlace } from '../../domain/integrations.js';
import { markConfirmationSent } from '../../db/repositories/meetings.js';
import { roomProviderOf } from '../integrations/rooms.js';
import { findRoomPlaces } from '../integrations/apps.js';
import { answeredQuestions } from '../../domain/form.js';
import { participantLocaleOf, type Meeting } from '../../domain/meeting.js';
import { locationWithoutDetails } from '../../domain/place-details.js';
import { alarmMinutesBefore } from '../../domain/reminders.js';
import type { DbOrTrx } from '../../db/database.js';
import { findAccount } from '../../db/repositories/accounts.js';
import { findTopicIncludingDeleted } from '../../db/repositories/meeting-topics.js';
import { bumpSeatInvitation, findSeatAttendees } from '../../db/repositories/seat-invitations.js';
import { findUser } from '../../db/repositories/users.js';
import { newId } from '../../ids.js';
import type { BookingMessagePayload } from '../../mail/booking-message.js';
import { EMAIL_JOB_KIND, type NewJob } from '../../outbox/job-kinds.js';
import type { UseCaseContext } from '../context.js';
import { paidDetailsOf, paymentEmailJobsForEvent } from '../payments/emails.js';
import { manageUrl } from '../meetings/manage-token.js';
import { messageBrandingOf } from '../account/branding.js';
import { translateTopic } from '../../domain/topic-translations.js';

/** The e-mails an event sends, as `email` jobs. */
export async function emailJobsForEvent(trx: DbOrTrx, event: DomainEvent, now: number, ctx: Pick<UseCaseContext, 'publicUrl' | 'secretKey'>): Promise<NewJob[]> {
  // Payment messages (pay link, slot released, refund) have a kind of their own: no invitation.
  if (event.type.startsWith('payment.')) return paymentEmailJobsForEvent(trx, event, now, ctx);
  // An erased participant (no address left) gets nothing: they asked to be forgotten. The host still hears of it.
  const emails = (await emailsForEvent(trx, event, now)).filter((payload) => payload.to.email !== '');
  const branding = emails.length === 0 ? undefined : await messageBrandingOf(trx, ctx.publicUrl, event.accountUuid, emails[0]!.accountName);
  return emails.map((payload) => {
    // The business's look, and its name in the signature.
    if (branding) Object.assign(payload, { branding, accountName: branding.name });
    // Both confirmations carry the meeting's private manage link (nothing stored: it is an HMAC):
    // the host has no page of their own for one meeting, and moving it for the participant is
    // what a host is asked to do most.
    // A guest gets no manage link: the booking is the participant's to move or cancel.
    if (payload.event !== 'cancelled' && payload.recipient !== 'guest') {
      payload.manageUrl = manageUrl(ctx.publicUrl, ctx.secretKey, payload.meeting.uuid);
    }
    return { uuid: newId(now), kind: EMAIL_JOB_KIND, payload };
  });
}

/**
 * Which messages an event sends: a confirmed meeting's invitations, and their cancellation.
 * A meeting whose room is being made (its host's connection works) is confirmed when the room
 * exists (`meeting.located`), or at its deadline (`meeting.confirmation_due`); a room that comes after the confirmation
 * sends an update carrying its link.
 */
async function emailsForEvent(trx: DbOrTrx, event: DomainEvent, now: number): Promise<BookingMessagePayload[]> {
  if (!isMeetingEvent(event)) return [];
  if (event.type === 'meeting.rescheduled') return rescheduledMessages(trx, event.data);
  if (event.type === 'meeting.located') return locatedMessages(trx, event.data);
  if (event.type === 'meeting.confirmation_due') return locatedMessages(trx, { ...event.data, confirmationsSent: false });
  // The room was refused for good: confirmations still waiting for its link go out now (saying the host sends it).
  if (event.type === 'meeting.location_failed') return event.data.confirmationsSent ? [] : locatedMessages(trx, event.data);
  const { meeting, previousStatus } = event.data;
  let kind: BookingMessagePayload['event'] | null = null;
  if ((event.type === 'meeting.scheduled' || event.type === 'meeting.confirmed') && meeting.status === 'confirmed') {
    if (providerOfPlace(meeting.place) !== null) {
      if ((await roomProviderOf(trx, meeting)) !== null) return [];
      // The room job may have found no connection first and sent them (jobs run in any order): once only.
      if (!(await markConfirmationSent(trx, meeting.uuid, now))) return [];
    }
    kind = 'confirmed';
  }
  // Only a confirmed meeting had invitations sent; a pending one never reached a calendar.
  if (event.type === 'meeting.cancelled' && previousStatus === 'confirmed') kind = 'cancelled';
  if (kind === null) return [];
  const messages = await bookingMessages(trx, meeting, kind);
  if (kind !== 'confirmed') return messages;
  return confirmationsOf(trx, meeting, messages);
}

/**
 * A paid booking's confirmation shows the amount paid and the invoice details given; one at a
 * place with rooms and no link yet says the link follows, or, when the provider refused the
 * room for good, that the host will send it.
 */
async function confirmationsOf(trx: DbOrTrx, meeting: Meeting, messages: BookingMessagePayload[]): Promise<BookingMessagePayload[]> {
  const paid = await paidDetailsOf(trx, meeting);
  const noLink = providerOfPlace(meeting.place) !== null && !meeting.location?.url && (await findRoomPlaces(trx, meeting.accountUuid)).includes(meeting.place);
  const missing = !noLink ? {} : meeting.location?.status === 'failed' ? { linkFromHost: true } : { linkFollows: true };
  // What was paid and the invoice details are the participant's business, not their guests'.
  return messages.map((message) => ({ ...message, ...(message.recipient === 'guest' ? {} : paid), ...missing }));
}

/** The room's link arrived (or its deadline passed, `confirmationsSent: false`): the confirmations, or, when they went out already, an updated invitation with the link. */
async function locatedMessages(trx: DbOrTrx, data: LocatedEventData): Promise<BookingMessagePayload[]> {
  const { meeting, confirmationsSent } = data;
  if (meeting.status !== 'confirmed') return [];
  if (!confirmationsSent) return confirmationsOf(trx, meeting, await bookingMessages(trx, meeting, 'confirmed'));
  return bookingMessages(trx, meeting, 'located');
}

/**
 * A moved meeting (only a confirmed one was ever in a calendar): the participant gets the
 * updated invitation; the host too, or, when the meeting moved to another host, the new host
 * an invitation and the previous host a cancellation of the time they had.
 */
async function rescheduledMessages(trx: DbOrTrx, data: RescheduledEventData): Promise<BookingMessagePayload[]> {
  const { meeting, previous } = data;
  if (meeting.status !== 'confirmed') return [];
  const moved = (await bookingMessages(trx, meeting, 'rescheduled')).map((payload) => ({ ...payload, previous: { start: previous.start, end: previous.end } }));
  if (previous.hostUuid === meeting.hostUuid) {
    if (!moved[1]?.group) return moved;
    // A participant of a group meeting moved to another start: the host's invitation of the group they left loses them.
    const [, leftGroup] = await bookingMessages(trx, { ...meeting, start: previous.start, end: previous.end }, 'cancelled');
    return leftGroup ? [...moved, leftGroup] : moved;
  }
  const [participant] = moved;
  const guests = moved.filter((payload) => payload.recipient === 'guest');
  const [, newHost] = await bookingMessages(trx, meeting, 'confirmed');
  const [, previousHost] = await bookingMessages(
    trx,
    { ...meeting, hostUuid: previous.hostUuid, hostUsername: previous.username, start: previous.start, end: previous.end, location: previous.location ?? meeting.location },
    'cancelled',
  );
  return [participant, newHost, previousHost, ...guests].filter((payload): payload is BookingMessagePayload => payload !== undefined);
}

/**
 * The participant's and the host's message about one meeting, each in its reader's zone and
 * language; for a collective meeting, then one for each co-host (the host's message, to them),
 * so every host it holds gets the invitation, its updates and its cancellation.
 */
async function bookingMessages(trx: DbOrTrx, meeting: Meeting, kind: BookingMessagePayload['event']): Promise<BookingMessagePayload[]> {
  const [account, topic, host, ...coHosts] = await Promise.all([
    findAccount(trx, meeting.accountUuid),
    findTopicIncludingDeleted(trx, meeting.topicUuid),
    findUser(trx, meeting.accountUuid, meeting.hostUuid),
    ...(meeting.coHosts ?? []).map((coHost) => findUser(trx, meeting.accountUuid, coHost.uuid)),
  ]);
  if (!account || !topic || !host) return [];
  const organizer = { name: `${host.firstName} ${host.lastName}`, email: host.email };
  const attendee = { name: meeting.participant.name, email: meeting.participant.email };
  // The topic's words in each reader's language (the host reads English), its own where untranslated.
  const participantWords = translateTopic(topic, meeting.participant.lang);
  const hostWords = translateTopic(topic, 'en');
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
      // Events recorded before locations existed carry none.
      location: meeting.location ?? locationWithoutDetails(meeting.place, meeting.participant.phone),
    },
    organizer,
    attendee,
    guests: meeting.guests ?? [],
  };
  // A group meeting: the host's calendar holds one entry for the slot, updated as participants come and go.
  const group = topic.seats > 1 ? await groupInvitationOf(trx, meeting) : undefined;
  // Each reader's calendar raises an alarm at their earliest reminder, so the entry reminds them even offline.
  const alarm = (recipient: 'participant' | 'host') => {
    const minutes = alarmMinutesBefore(topic.reminders, recipient);
    return minutes === null ? {} : { alarmMinutesBefore: minutes };
  };
  const hostMessage: BookingMessagePayload = {
    ...common,
    recipient: 'host',
    to: organizer,
    // The host reads their own language (chosen in the web app or PATCH /users), not the participant's.
    lang: host.language ?? 'en',
    timezone: host.timezone,
    meeting: { ...common.meeting, topicName: hostWords.name },
    answers: answeredQuestions(meeting.form ?? {}, topic.form),
    ...(group ? { group } : {}),
    ...alarm('host'),
  };
  const coHostMessages = coHosts
    .filter((coHost) => coHost !== undefined)
    .map(
      (coHost): BookingMessagePayload => ({
        ...hostMessage,
        to: { name: `${coHost.firstName} ${coHost.lastName}`, email: coHost.email },
        lang: coHost.language ?? 'en',
        timezone: coHost.timezone,
      }),
    );
  const participantMessage: BookingMessagePayload = {
    ...common,
    recipient: 'participant',
    to: attendee,
    lang: meeting.participant.lang,
    ...participantLocaleOf(meeting),
    timezone: meeting.participant.timezone,
    meeting: { ...common.meeting, topicName: participantWords.name },
    ...(participantWords.confirmationMessage !== '' ? { confirmationMessage: participantWords.confirmationMessage } : {}),
    ...alarm('participant'),
  };
  // Each guest reads the participant's message in the participant's language and zone (all termin knows of them).
  const guestMessages = (meeting.guests ?? []).map((guest): BookingMessagePayload => ({ ...participantMessage, recipient: 'guest', to: { name: guest, email: guest } }));
  // The participant first and the host second: rescheduledMessages reads them by position.
  return [
    participantMessage,
    // The host also gets the participant's answers to the topic's questions.
    hostMessage,
    ...coHostMessages,
    ...guestMessages,
  ];
}

/**
 * The host's invitation of the group at the meeting's start, as it is now: the SEQUENCE is
 * raised first (taking the group's row lock), then the confirmed participants are read, so
 * a later update always lists a newer set under a higher number.
 */
async function groupInvitationOf(trx: DbOrTrx, meeting: Meeting): Promise<NonNullable<BookingMessagePayload['group']>> {
  const sequence = await bumpSeatInvitation(trx, meeting.topicUuid, meeting.hostUuid, meeting.start);
  const attendees = await findSeatAttendees(trx, meeting.topicUuid, meeting.hostUuid, meeting.start);
  return { uid: `group-${meeting.topicUuid}-${meeting.hostUuid}-${meeting.start}@termin`, sequence, attendees };
}
