import { ProviderError, type RoomRequest } from '../../integrations/ports.js';
import type { LocatedEventData, LocationFailedEventData, MeetingEventData } from '../../domain/events.js';
import { type IntegrationProvider, providerOfPlace } from '../../domain/integrations.js';
import type { Meeting } from '../../domain/meeting.js';
import { failedLocation, locationWithoutDetails, type MeetingLocation } from '../../domain/place-details.js';
import { toSingleLine } from '../../domain/text.js';
import type { DbOrTrx } from '../../db/database.js';
import { findConnection, findConnectionOfUser } from '../../db/repositories/connections.js';
import { findTopicIncludingDeleted } from '../../db/repositories/meeting-topics.js';
import { findMeeting, findMeetingsWaitingForRooms, markConfirmationSent, setMeetingLocation } from '../../db/repositories/meetings.js';
import {
  claimStaleRoom,
  deleteMeetingRoom,
  findMeetingRoom,
  forgetFailedRoom,
  markRoomFailed,
  type MeetingRoom,
  recordRoomCreating,
  storeRoomCreated,
  storeRoomMoved,
} from '../../db/repositories/meeting-rooms.js';
import { findUser } from '../../db/repositories/users.js';
import { inTransaction } from '../../db/transaction.js';
import { newId } from '../../ids.js';
import { DeferJobError, type JobHandler } from '../../outbox/job-handler.js';
import { CONFERENCE_ROOM_JOB_KIND, type ConferenceRoomPayload, type NewJob } from '../../outbox/job-kinds.js';
import { ConnectionUnusableError, withAccessToken } from './provider-access.js';
import type { UseCaseContext } from '../context.js';
import { recordEvents } from '../record-events.js';

/**
 * Each meeting at a place with rooms (Zoom, Google Meet, Microsoft Teams, Webex) gets its own
 * room, made through its host's connection from the outbox, never while booking: the job
 * brings the room in line with the meeting as it is when it runs (made for a confirmed
 * meeting, moved with it, deleted when it is cancelled or leaves the host), so jobs of one
 * meeting may run late, twice or out of order. The room is recorded before the provider is
 * asked, under the attempt's id, and an attempt that finds such a record adopts its room
 * (`findRoom`) rather than making a second; a room is stored only by the attempt that still
 * holds the record, so an attempt that stalled past its lease deletes the room it made late:
 * at most one room's link ever reaches the participant. Transient faults are retried by the
 * outbox (a provider's Retry-After honoured); a refusal a retry cannot change is final: the
 * meeting's location says `failed` and why, `meeting.location_failed` tells the webhooks and
 * the host, and a confirmation still waiting goes out saying the host will send the link.
 */

/** How long a confirmation waits for its meeting's room before it goes out saying the link follows. */
export const CONFIRMATION_WAIT_MS = 10 * 60_000;
/** A room being made (recorded, not yet answered) belongs to its attempt this long; then another may take over. */
const CREATING_LEASE_MS = 60_000;
/** How soon a job that found another attempt making the room looks again (no attempt counted), within that attempt's lease. */
const ATTEMPT_WAIT_MS = 5_000;

type RoomsContext = Pick<UseCaseContext, 'publicUrl' | 'now' | 'log' | 'db' | 'secretKey' | 'integrations'>;

/**
 * The provider that will make the meeting's room now, when its place has rooms and its host's
 * connection to that provider works; null otherwise (the meeting keeps its place details).
 */
export async function roomProviderOf(db: DbOrTrx, meeting: Pick<Meeting, 'place' | 'hostUuid'>): Promise<IntegrationProvider | null> {
  const provider = providerOfPlace(meeting.place);
  if (provider === null) return null;
  return (await findConnectionOfUser(db, meeting.hostUuid, provider))?.status === 'connected' ? provider : null;
}

export function conferenceRoomJob(meeting: Pick<Meeting, 'uuid' | 'accountUuid'>, now: number, extra: Partial<ConferenceRoomPayload> & { runAt?: number } = {}): NewJob {
  const { runAt, ...rest } = extra;
  const payload: ConferenceRoomPayload = { meetingUuid: meeting.uuid, accountUuid: meeting.accountUuid, ...rest };
  return { uuid: newId(now), kind: CONFERENCE_ROOM_JOB_KIND, payload, ...(runAt === undefined ? {} : { runAt }) };
}

/** A connection that works again: its host's upcoming meetings at its place that have no room get one. */
export async function roomJobsOfWaitingMeetings(db: DbOrTrx, hostUuid: string, place: string, now: number): Promise<NewJob[]> {
  return (await findMeetingsWaitingForRooms(db, hostUuid, place, now)).map((meeting) => conferenceRoomJob(meeting, now));
}

export function createConferenceRoomHandler(ctx: RoomsContext): JobHandler<'conference-room'> {
  return {
    kind: CONFERENCE_ROOM_JOB_KIND,
    concurrency: 4,
    async handle(job) {
      const { payload } = job;
      if (payload.deadline === true) await confirmWithoutRoom(ctx, payload.accountUuid, payload.meetingUuid);
      else await reconcileRoom(ctx, payload.accountUuid, payload.meetingUuid);
    },
  };
}

/** Brings the meeting's room in line with the meeting as it is now. */
async function reconcileRoom(ctx: RoomsContext, accountUuid: string, meetingUuid: string): Promise<void> {
  const meeting = await findMeeting(ctx.db, accountUuid, meetingUuid);
  let room = await findMeetingRoom(ctx.db, meetingUuid);
  const provider = meeting ? providerOfPlace(meeting.place) : null;
  const wanted = meeting !== undefined && meeting.status === 'confirmed' && provider !== null;
  const connection = wanted ? await findConnectionOfUser(ctx.db, meeting.hostUuid, provider) : undefined;
  // A room made through another connection (the meeting moved to another host) or for a meeting that is gone: remove it.
  if (room && (!wanted || room.connectionUuid !== connection?.uuid)) {
    await removeRoom(ctx, room);
    room = undefined;
  }
  if (!wanted) return;
  // No working connection (any more): the confirmations need not wait for a room that will not come now.
  if (connection?.status !== 'connected') return confirmWithoutRoom(ctx, accountUuid, meetingUuid);
  const moved = room !== undefined && (room.start !== meeting.start || room.end !== meeting.end);
  if (room?.status === 'failed') {
    // Refused for good at these times: nothing to ask again until the meeting moves; then its new times get one more try.
    if (!moved) return;
    if (room.roomId === null) {
      await forgetFailedRoom(ctx.db, meetingUuid, room.updatedAt);
      room = undefined;
    }
  }
  const topic = await findTopicIncludingDeleted(ctx.db, meeting.topicUuid);
  const host = await findUser(ctx.db, accountUuid, meeting.hostUuid);
  const rooms = ctx.integrations.rooms[provider];
  const now = ctx.now();
  // This attempt's own id: the record it makes or takes over is its own until another takes it over in turn.
  const attemptId = newId(now);
  let adopt = true;
  if (!room) {
    const requestId = newId(now);
    if (!(await recordRoomCreating(ctx.db, { meetingUuid, connectionUuid: connection.uuid, provider, requestId, attemptId }, now))) {
      throw waitForOtherAttempt(await findMeetingRoom(ctx.db, meetingUuid), now);
    }
    room = (await findMeetingRoom(ctx.db, meetingUuid))!;
    adopt = false;
  } else if (room.status === 'creating') {
    // Another attempt's record: it is still at work, or it died (or stalled) after recording it.
    if (room.updatedAt > now - CREATING_LEASE_MS || !(await claimStaleRoom(ctx.db, meetingUuid, room.updatedAt, attemptId, now))) {
      throw waitForOtherAttempt(room, now);
    }
  }
  const request = roomRequestOf(meeting, topic?.name ?? 'Meeting', host?.timezone ?? 'UTC', room.requestId);
  try {
    if (room.status === 'creating') {
      const made = await withAccessToken(ctx, connection.uuid, async (token) => (adopt ? await rooms.findRoom(token, request) : null) ?? rooms.createRoom(token, request));
      const stored = await storeRoomLocated(ctx, meeting, made, request, attemptId);
      if (stored === 'gone') {
        // Cancelled or moved while it was made: the room this attempt made is nobody's; remove it.
        await withAccessToken(ctx, connection.uuid, (token) => rooms.deleteRoom(token, made.roomId));
        await deleteMeetingRoom(ctx.db, meetingUuid, attemptId);
      } else if (stored === 'superseded') {
        await removeLateRoom(ctx, connection.uuid, meetingUuid, made.roomId);
      }
    } else if (room.roomId !== null && moved) {
      await withAccessToken(ctx, connection.uuid, (token) => rooms.moveRoom(token, room.roomId!, request));
      await storeRoomMoved(ctx.db, meetingUuid, { start: meeting.start, end: meeting.end }, ctx.now());
      // A move refused before is made now: the link works at the meeting's times again.
      if (meeting.location?.status === 'failed') await setMeetingLocation(ctx.db, meetingUuid, withoutFailure(meeting.location), false, ctx.now());
    }
  } catch (error) {
    // The connection was refused meanwhile (the host is told): the room is made when it works
    // again, and the confirmations go out now, saying the link follows.
    if (error instanceof ConnectionUnusableError) {
      // This attempt's own record asked the provider nothing yet; an older one's is kept, to adopt its room later.
      if (room.status === 'creating' && !adopt) await deleteMeetingRoom(ctx.db, meetingUuid, attemptId);
      return confirmWithoutRoom(ctx, accountUuid, meetingUuid);
    }
    // A refusal a retry cannot change (a 400 to the create or the move, a conference that failed): final, and said so.
    if (error instanceof ProviderError && !error.retryable) return failRoom(ctx, meeting, room.status === 'creating' ? attemptId : null, error.message);
    throw error;
  }
}

/**
 * Another attempt is making the room (its record is younger than its lease): come back soon,
 * at the latest when that lease ends, without counting this as a failed attempt.
 */
function waitForOtherAttempt(room: MeetingRoom | undefined, now: number): DeferJobError {
  const leaseEnds = room?.status === 'creating' ? room.updatedAt + CREATING_LEASE_MS : now;
  return new DeferJobError(Math.min(Math.max(leaseEnds, now), now + ATTEMPT_WAIT_MS), 'another attempt is making this room');
}

/**
 * This attempt made a room after another had taken its record over: the meeting's room is
 * the other's. A provider that answers a repeated request with the room made first (Google's
 * event id, Graph's transactionId) gave both the same room, which stays; any other room of
 * this attempt's is deleted at once. While the other attempt has not stored its room yet, this
 * one cannot tell which it will be, so it leaves its own (an orphan at the provider, logged)
 * rather than risk deleting the room the participant is about to get.
 */
async function removeLateRoom(ctx: RoomsContext, connectionUuid: string, meetingUuid: string, roomId: string): Promise<void> {
  const current = await findMeetingRoom(ctx.db, meetingUuid);
  if (current?.roomId === roomId) return;
  if (current?.status === 'creating') {
    ctx.log.warn({ meetingUuid, provider: current.provider, roomId }, 'a late room attempt left its room at the provider: another attempt is still making the room of the meeting');
    return;
  }
  const provider = current?.provider ?? (await findConnection(ctx.db, connectionUuid))?.provider;
  if (provider === undefined) return;
  await withAccessToken(ctx, connectionUuid, (token) => ctx.integrations.rooms[provider].deleteRoom(token, roomId));
}

/**
 * The provider refused the room for good: for a room being made (`attemptId`, while it still
 * holds the record) or a room's move (`attemptId` null). The record says `failed` for the
 * meeting's times, so the job asks no more until the meeting moves; the meeting's location
 * says `failed` and why; `meeting.location_failed` (webhooks, the host's notice) and, when the
 * confirmations were still waiting for the link, their sending, saying the host will send it.
 * A meeting changed meanwhile is left to the jobs its change queued.
 */
async function failRoom(ctx: RoomsContext, meeting: Meeting, attemptId: string | null, reason: string): Promise<void> {
  const outcome = await inTransaction(ctx.db, async (trx) => {
    const now = ctx.now();
    const current = await findMeeting(trx, meeting.accountUuid, meeting.uuid);
    if (current?.status !== 'confirmed' || current.hostUuid !== meeting.hostUuid || current.start !== meeting.start || current.end !== meeting.end) return 'changed';
    if (!(await markRoomFailed(trx, meeting.uuid, attemptId, { start: current.start, end: current.end }, now))) return 'superseded';
    const confirmationsSent = !(await markConfirmationSent(trx, meeting.uuid, now));
    const location = failedLocation(current.location ?? locationWithoutDetails(current.place, current.participant.phone), reason);
    await setMeetingLocation(trx, meeting.uuid, location, false, now);
    const failed: LocationFailedEventData = { meeting: { ...current, location, updatedAt: now }, confirmationsSent };
    await recordEvents(trx, [{ accountUuid: meeting.accountUuid, type: 'meeting.location_failed', subjectUuid: meeting.uuid, data: { ...failed } }], now);
    return 'failed';
  });
  ctx.log.warn({ meetingUuid: meeting.uuid, place: meeting.place, reason, outcome }, 'a provider refused the room of a meeting for good');
  // Refused for times the meeting no longer has: this attempt's record goes, and the change's own job makes the room.
  if (outcome === 'changed' && attemptId !== null) await deleteMeetingRoom(ctx.db, meeting.uuid, attemptId);
}

function withoutFailure(location: MeetingLocation): MeetingLocation {
  const { status: _status, reason: _reason, ...rest } = location;
  return rest;
}

function roomRequestOf(meeting: Meeting, topicName: string, timezone: string, requestId: string): RoomRequest {
  return {
    meetingUuid: meeting.uuid,
    requestId,
    title: `${toSingleLine(topicName)}: ${toSingleLine(meeting.participant.name)}`,
    start: meeting.start,
    end: meeting.end,
    timezone,
    attendee: { name: toSingleLine(meeting.participant.name), email: meeting.participant.email },
  };
}

/**
 * The room is the meeting's location from now on, in one transaction with its record and
 * with `meeting.located`, whose e-mails are the confirmations (when they had not gone out
 * yet) or an update of the invitation carrying the link (SEQUENCE + 1).
 */
async function storeRoomLocated(
  ctx: RoomsContext,
  meeting: Meeting,
  made: { roomId: string; joinUrl: string; conferenceId: string | null; password: string | null },
  request: RoomRequest,
  attemptId: string,
): Promise<'stored' | 'gone' | 'superseded'> {
  return inTransaction(ctx.db, async (trx) => {
    const now = ctx.now();
    const current = await findMeeting(trx, meeting.accountUuid, meeting.uuid);
    if (current?.status !== 'confirmed' || current.hostUuid !== meeting.hostUuid) return 'gone';
    // Only the attempt that still holds the record: one that stalled past its lease lost it to the attempt that made the meeting's room.
    if (!(await storeRoomCreated(trx, meeting.uuid, attemptId, { ...made, start: request.start, end: request.end }, now))) return 'superseded';
    const confirmationsSent = !(await markConfirmationSent(trx, meeting.uuid, now));
    const location: MeetingLocation = {
      place: current.place,
      address: null,
      url: made.joinUrl,
      phone: null,
      text: made.joinUrl,
      source: 'room',
      conferenceId: made.conferenceId,
      password: made.password,
    };
    await setMeetingLocation(trx, meeting.uuid, location, confirmationsSent, now);
    const located: LocatedEventData = { meeting: { ...current, location, sequence: current.sequence + (confirmationsSent ? 1 : 0), updatedAt: now }, confirmationsSent };
    await recordEvents(trx, [{ accountUuid: meeting.accountUuid, type: 'meeting.located', subjectUuid: meeting.uuid, data: { ...located } }], now);
    return 'stored';
  });
}

/** The deadline passed: the confirmations go out now (saying the link follows), unless the room sent them first. */
async function confirmWithoutRoom(ctx: RoomsContext, accountUuid: string, meetingUuid: string): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const now = ctx.now();
    const meeting = await findMeeting(trx, accountUuid, meetingUuid);
    if (meeting?.status !== 'confirmed') return;
    if (!(await markConfirmationSent(trx, meetingUuid, now))) return;
    // An internal signal, not `meeting.located`: no room exists, so webhook subscribers have nothing to hear.
    const due: MeetingEventData = { meeting };
    await recordEvents(trx, [{ accountUuid, type: 'meeting.confirmation_due', subjectUuid: meetingUuid, data: { ...due } }], now);
  });
}

/** Deletes the room at its provider (when its connection still works) and forgets it. */
async function removeRoom(ctx: RoomsContext, room: MeetingRoom): Promise<void> {
  const connection = room.connectionUuid === null ? undefined : await findConnection(ctx.db, room.connectionUuid);
  if (room.roomId !== null && connection?.status === 'connected') {
    try {
      await withAccessToken(ctx, connection.uuid, (token) => ctx.integrations.rooms[room.provider].deleteRoom(token, room.roomId!));
    } catch (error) {
      if (!(error instanceof ConnectionUnusableError)) throw error;
    }
  }
  await deleteMeetingRoom(ctx.db, room.meetingUuid);
}
