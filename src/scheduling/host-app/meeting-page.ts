import { ForbiddenError, NotFoundError } from '../../domain/errors.js';
import { isMeetingEvent, type EventType, type ReminderEventData } from '../../domain/events.js';
import { answeredQuestions, type AnsweredQuestion } from '../../domain/form.js';
import { meetingHostUuids, type Meeting, type MeetingStatus } from '../../domain/meeting.js';
import { selectEventsOfSubject } from '../../db/repositories/events.js';
import { findTopicIncludingDeleted } from '../../db/repositories/meeting-topics.js';
import type { StoredPayment } from '../../db/repositories/payments.js';
import { findUser } from '../../db/repositories/users.js';
import type { Principal, UseCaseContext } from '../context.js';
import { getMeeting, listMeetings, requireMeetingManager } from '../meetings/meetings.js';
import { paymentsOfMeetings } from '../payments/view.js';
import { listMeetingTopics } from '../topics/meeting-topics.js';

export interface PastMeetings {
  meetings: Meeting[];
  /** The name of each meeting's topic, by uuid (a deleted topic is missing). */
  topicNames: ReadonlyMap<string, string>;
  /** The cursor of the next (older) page; null on the last. */
  nextCursor: string | null;
}

/**
 * The signed-in host's meetings that have started, latest first, `limit` a page, older ones
 * through the cursor: those that took place or were meant to (no-shows included) and those
 * cancelled, each shown with its status, as the contract's "meetings that have started" says.
 * Requests never confirmed (declined, expired, still pending) were never meetings to look
 * back on. The same list `GET /meetings?username=…&to=now&status=confirmed,cancelled` gives
 * the host's key, the other way round.
 */
export async function listPastOfHost(ctx: Pick<UseCaseContext, 'now' | 'db'>, principal: Principal, input: { cursor?: string | undefined; limit?: number }): Promise<PastMeetings> {
  const to = new Date(ctx.now()).toISOString();
  const page = await listMeetings(ctx, principal, {
    username: principal.username,
    to,
    status: ['confirmed', 'cancelled'],
    newestFirst: true,
    limit: input.limit ?? 20,
    cursor: input.cursor,
  });
  const topics = await listMeetingTopics(ctx, principal, {});
  return { meetings: page.meetings, topicNames: new Map(topics.map((topic) => [topic.uuid, topic.name])), nextCursor: page.nextCursor };
}

/** One entry of a meeting's history: what happened when, each the cause of the messages it sends. */
export interface MeetingHistoryEntry {
  at: number;
  type: EventType;
  /** The meeting's status once it happened (a booking confirmed at once, or held for payment); null for a payment's events. */
  status: MeetingStatus | null;
  /** A reminder's event: which one, and what became of it. */
  reminder: ReminderEventData['reminder'] | null;
}

export interface MeetingDetails {
  meeting: Meeting;
  /** Null when the topic is gone for good. */
  topicName: string | null;
  /** "First Last" of each host the meeting holds, its named host first. */
  hostNames: string[];
  /** The participant's answers, in the topic's question order. */
  answers: AnsweredQuestion[];
  payment: StoredPayment | null;
  /** The meeting's and its payment's recorded events, oldest first. */
  history: MeetingHistoryEntry[];
}

/**
 * Everything the web app shows of one meeting, for whoever may manage it (its host or a
 * co-host, an admin of its team or of the host's teams: requireMeetingManager). Anyone else
 * is told it does not exist, as another account is: a page never confirms that a colleague's
 * meeting is there.
 */
export async function getMeetingDetails(ctx: Pick<UseCaseContext, 'now' | 'db'>, principal: Principal, meetingUuid: string): Promise<MeetingDetails> {
  const meeting = await getMeeting(ctx, principal, meetingUuid);
  try {
    await requireMeetingManager(ctx.db, principal, meeting);
  } catch (error) {
    if (error instanceof ForbiddenError) throw new NotFoundError('meeting');
    throw error;
  }
  const [topic, hosts, payments] = await Promise.all([
    findTopicIncludingDeleted(ctx.db, meeting.topicUuid),
    Promise.all(meetingHostUuids(meeting).map((uuid) => findUser(ctx.db, meeting.accountUuid, uuid))),
    paymentsOfMeetings(ctx, [meeting]),
  ]);
  const payment = payments.get(meeting.bookingUuid) ?? null;
  const events = [...(await selectEventsOfSubject(ctx.db, meeting.uuid)), ...(payment ? await selectEventsOfSubject(ctx.db, payment.uuid) : [])];
  const history = events
    .filter((event) => event.type !== 'meeting.confirmation_due')
    .sort((a, b) => a.occurredAt - b.occurredAt)
    .map((event) => ({
      at: event.occurredAt,
      type: event.type,
      status: isMeetingEvent(event) ? event.data.meeting.status : null,
      reminder: event.type.startsWith('meeting.reminder_') ? (event.data as ReminderEventData).reminder : null,
    }));
  return {
    meeting,
    topicName: topic?.name ?? null,
    hostNames: hosts.flatMap((host) => (host ? [`${host.firstName} ${host.lastName}`] : [])),
    answers: answeredQuestions(meeting.form, topic?.form ?? []),
    payment,
    history,
  };
}
