import { actorOf, recordAuditEvent } from '../audit/record-audit.js';
import { toIso } from '../../domain/representations.js';
import { NotFoundError, SlotUnavailableError, ValidationError } from '../../domain/errors.js';
import { findTopicHost, type MeetingTopic } from '../../domain/meeting-topic.js';
import { meetingHostUuids, meetingHosts, statusAt, type Meeting, type MeetingStatus } from '../../domain/meeting.js';
import { isSeatAvailable } from '../../domain/seats.js';
import { createKyselyReads } from '../../db/fast-reads.js';
import { bumpCalendarVersions } from '../../db/repositories/busy-time.js';
import { findTopic } from '../../db/repositories/meeting-topics.js';
import { findMeeting, lockHost, moveMeeting } from '../../db/repositories/meetings.js';
import { inTransaction } from '../../db/transaction.js';
import { resolveScheduleRange, validateScheduleRangeInput } from '../../domain/schedule-range.js';
import { bookingCalendarSpan, computeTopicSchedule, loadHostCalendar, slotRulesOf, withoutMeeting, type Schedule } from './calculate.js';
import type { UseCaseContext } from '../context.js';
import type { RescheduledEventData } from '../../domain/events.js';
import { requireMeetingManager, type MeetingActor } from '../meetings/meetings.js';
import { recordEvents } from '../record-events.js';
import { resolveLocations } from '../topics/place-details.js';

export interface RescheduleInput {
  start: string;
  /** Another host of the topic; the same host when left out. */
  username?: string | undefined;
}

/** `meeting.rescheduled`: the meeting as it is now, and where it was. */
/** Only these move; a cancelled or expired meeting is gone from every calendar. */
const MOVABLE: readonly MeetingStatus[] = ['confirmed', 'pending_payment'];

/** The week (`offset` days from today, a multiple of 7) or month a move's calendar shows, in the viewer's zone. */
export interface MoveScheduleInput {
  timezone: string;
  offset: number;
  month?: number | undefined;
  year?: number | undefined;
}

/**
 * The free slots a meeting may move to: its topic's schedule for the week or month asked,
 * with the meeting itself not blocking while it still holds its slot (a meeting that no longer
 * does is left in: leaving it out would drop another booking's time that looks the same). An
 * individual topic: the meeting's host; a team topic: the team view (any host may take it).
 * The host's web app (after checking the member may manage the meeting) and the participant's
 * manage page (after checking the token) both ask here; the move itself is rescheduleMeeting,
 * which checks the slot again under the host's lock.
 */
export async function scheduleForMeetingMove(
  ctx: Pick<UseCaseContext, 'db' | 'reads' | 'scheduleCache'>,
  meeting: Meeting,
  input: MoveScheduleInput,
  now: number,
): Promise<Schedule> {
  const rangeInput = { now, timezone: input.timezone, offset: input.offset, month: input.month, year: input.year };
  const errors = validateScheduleRangeInput(rangeInput);
  if (errors.length > 0) throw new ValidationError(errors);
  const topic = await ctx.reads.findTopic(meeting.accountUuid, meeting.topicUuid);
  if (!topic) throw new NotFoundError('meeting topic');
  const username = topic.teamUuid === null ? meeting.hostUsername : undefined;
  const exclude = MOVABLE.includes(statusAt(meeting, now))
    ? {
        uuid: meeting.uuid,
        hostUuid: meeting.hostUuid,
        coHostUuids: (meeting.coHosts ?? []).map((host) => host.uuid),
        topicUuid: meeting.topicUuid,
        start: meeting.start,
        end: meeting.end,
      }
    : undefined;
  return computeTopicSchedule(ctx, ctx.reads, topic, username, input.timezone, resolveScheduleRange(rangeInput), now, exclude);
}
const UTC_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z$/;

/**
 * Moves a meeting to a new start (and, for a topic with several hosts, maybe another host),
 * keeping its uuid, status and everything the participant gave. The new time must be a slot
 * the calculation would offer if this meeting did not exist: the same rule as a booking,
 * with the meeting left out of its own host's busy time, so moving it by a quarter of an
 * hour within its own span is fine.
 *
 * Race-free like a booking: the old and the new host are locked in uuid order (no deadlock
 * with a booking or another move), the meeting is read again under the locks, and the
 * update is conditional on where it was read. Of two moves into one slot, one wins and the
 * other sees its meeting there (409). Records `meeting.rescheduled` (its history, and the
 * updated invitations: same UID, SEQUENCE + 1).
 *
 * `guard` runs on the meeting as read under the locks (the manage link's notice window).
 */
export async function rescheduleMeeting(
  ctx: Pick<UseCaseContext, 'now' | 'db'>,
  actor: MeetingActor,
  meetingUuid: string,
  input: RescheduleInput,
  guard?: (meeting: Meeting, topic: MeetingTopic, now: number) => void,
): Promise<Meeting> {
  const start = UTC_INSTANT.test(input.start) ? Date.parse(input.start) : Number.NaN;
  if (Number.isNaN(start)) throw new ValidationError([{ path: '/start', message: 'must be a UTC date-time in ISO 8601 format, e.g. 2027-03-29T07:00:00.000Z' }]);

  return inTransaction(ctx.db, async (trx) => {
    const now = ctx.now();
    const found = await findMeeting(trx, actor.accountUuid, meetingUuid);
    if (!found) throw new NotFoundError('meeting');
    await requireMeetingManager(trx, actor, found);
    const topic = await findTopic(trx, found.accountUuid, found.topicUuid);
    if (!topic) throw new NotFoundError('meeting topic (it was deleted, so its meetings cannot move)');
    // A collective meeting moves with all its hosts: `username` may name any of them, and its named host stays.
    const collective = (found.coHosts ?? []).length > 0;
    if (collective && input.username !== undefined && !meetingHosts(found).some((host) => host.username === input.username)) {
      throw new NotFoundError(`host "${input.username}" of this meeting (/username)`);
    }
    const target = collective ? { uuid: found.hostUuid, username: found.hostUsername } : findTopicHost(topic, input.username ?? found.hostUsername, '/username');
    const locked = [...new Set([...meetingHostUuids(found), target.uuid])].sort();
    for (const hostUuid of locked) await lockHost(trx, hostUuid);

    const meeting = (await findMeeting(trx, actor.accountUuid, meetingUuid))!;
    // Moved to yet another host between the first read and the locks: its calendar is not held.
    if (!locked.includes(meeting.hostUuid)) throw new SlotUnavailableError([{ path: '/start', message: 'the meeting changed meanwhile; try again' }]);
    const status = statusAt(meeting, now);
    if (!MOVABLE.includes(status)) {
      throw new ValidationError([{ path: '', message: `The meeting is ${status}: only confirmed meetings and meetings pending payment can be moved` }]);
    }
    guard?.(meeting, topic, now);
    if (start === meeting.start && target.uuid === meeting.hostUuid) return { ...meeting, status };

    // A meeting keeps the length chosen when booked, while the topic still offers it.
    const length = (meeting.end - meeting.start) / 60_000;
    const booked = topic.durations.includes(length) ? { ...topic, durationMinutes: length } : topic;
    const rules = slotRulesOf(booked);
    const end = start + booked.durationMinutes * 60_000;
    const span = bookingCalendarSpan(rules, start, end);
    // Every host the meeting holds at its new time (one, or all of a collective meeting's), each without the meeting itself.
    const holders = collective ? meetingHosts(meeting) : [target];
    for (const holder of holders) {
      const loaded = await loadHostCalendar(createKyselyReads(trx), holder, rules, span.from, span.to, now);
      const calendar = holder.uuid === meeting.hostUuid || collective ? withoutMeeting(loaded, meeting) : loaded;
      if (!isSeatAvailable(calendar, rules, now, start)) throw new SlotUnavailableError([{ path: '/start', message: 'is not an available slot' }]);
    }

    // Another host: where it happens is resolved again (their own room first); the same host keeps it.
    const location = target.uuid === meeting.hostUuid ? meeting.location : (await resolveLocations(trx, topic, meeting.place, [target.uuid], meeting.participant.phone))[0]!;
    const moved = await moveMeeting(trx, {
      uuid: meeting.uuid,
      fromStart: meeting.start,
      fromHostUuid: meeting.hostUuid,
      status: meeting.status,
      start,
      end,
      hostUuid: target.uuid,
      now,
      location: target.uuid === meeting.hostUuid ? undefined : location,
    });
    if (!moved) throw new SlotUnavailableError([{ path: '/start', message: 'the meeting changed meanwhile; try again' }]);
    await bumpCalendarVersions(trx, locked);
    const result: Meeting = { ...meeting, status, start, end, hostUuid: target.uuid, hostUsername: target.username, location, sequence: meeting.sequence + 1, updatedAt: now };
    const data: RescheduledEventData = {
      meeting: result,
      previousStatus: status,
      previous: { start: meeting.start, end: meeting.end, hostUuid: meeting.hostUuid, username: meeting.hostUsername, location: meeting.location },
    };
    await recordEvents(trx, [{ accountUuid: meeting.accountUuid, type: 'meeting.rescheduled', subjectUuid: meeting.uuid, data: { ...data } }], now);
    const details = { fromStart: toIso(meeting.start), toStart: toIso(start), fromHostUuid: meeting.hostUuid, toHostUuid: target.uuid };
    await recordAuditEvent(trx, {
      accountUuid: meeting.accountUuid,
      action: 'meeting.moved',
      actor: actorOf(actor),
      target: { type: 'meeting', uuid: meeting.uuid },
      details,
      now,
    });
    return result;
  });
}
