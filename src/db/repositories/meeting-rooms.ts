import type { Selectable } from 'kysely';
import type { IntegrationProvider } from '../../domain/integrations.js';
import type { DbOrTrx, MeetingRoomTable } from '../database.js';

/**
 * A meeting's room at its provider: `creating` from just before the provider is asked until its
 * answer is stored; `failed` when the provider refused it for good for the times in
 * `start`/`end` (then `roomId` is the room a refused move left where it was, if any).
 */
export interface MeetingRoom {
  meetingUuid: string;
  connectionUuid: string | null;
  provider: IntegrationProvider;
  status: 'creating' | 'created' | 'failed';
  /** The attempt that holds a `creating` record: only it may store the room (null on records made before attempts were). */
  attemptId: string | null;
  /** Sent to providers that take one (Google's requestId), and written into the room so a retry can find an orphan. */
  requestId: string;
  roomId: string | null;
  joinUrl: string | null;
  conferenceId: string | null;
  password: string | null;
  /** The meeting's times the room was made or last moved for. */
  start: number | null;
  end: number | null;
  updatedAt: number;
}

function rowToRoom(row: Selectable<MeetingRoomTable>): MeetingRoom {
  return {
    meetingUuid: row.meeting_id,
    connectionUuid: row.connection_id,
    provider: row.provider as IntegrationProvider,
    status: row.status as MeetingRoom['status'],
    attemptId: row.attempt_id,
    requestId: row.request_id,
    roomId: row.room_id,
    joinUrl: row.join_url,
    conferenceId: row.conference_id,
    password: row.password,
    start: row.room_start === null ? null : Number(row.room_start),
    end: row.room_end === null ? null : Number(row.room_end),
    updatedAt: Number(row.updated_at),
  };
}

export async function findMeetingRoom(db: DbOrTrx, meetingUuid: string): Promise<MeetingRoom | undefined> {
  const row = await db.selectFrom('meeting_rooms').selectAll().where('meeting_id', '=', meetingUuid).executeTakeFirst();
  return row && rowToRoom(row);
}

/**
 * Records, before the provider is called, that a room is being made for the meeting by the
 * attempt `attemptId`: true when this call recorded it, false when a record exists already
 * (another attempt's, to be adopted or finished, never a second room).
 */
export async function recordRoomCreating(
  db: DbOrTrx,
  room: { meetingUuid: string; connectionUuid: string; provider: IntegrationProvider; requestId: string; attemptId: string },
  now: number,
): Promise<boolean> {
  const existing = await db.selectFrom('meeting_rooms').select('meeting_id').where('meeting_id', '=', room.meetingUuid).executeTakeFirst();
  if (existing) return false;
  await db
    .insertInto('meeting_rooms')
    .values({
      meeting_id: room.meetingUuid,
      connection_id: room.connectionUuid,
      provider: room.provider,
      status: 'creating',
      request_id: room.requestId,
      room_id: null,
      join_url: null,
      conference_id: null,
      password: null,
      room_start: null,
      room_end: null,
      created_at: now,
      updated_at: now,
      attempt_id: room.attemptId,
    })
    .onConflict((oc) => oc.column('meeting_id').doNothing())
    .execute();
  return (await findMeetingRoom(db, room.meetingUuid))?.attemptId === room.attemptId;
}

/**
 * Takes over a `creating` record whose attempt went quiet (its `updated_at` still `seen`) for
 * the attempt `attemptId`: one taker wins, and the quiet attempt, should it wake, no longer
 * holds the record (storeRoomCreated refuses it).
 */
export async function claimStaleRoom(db: DbOrTrx, meetingUuid: string, seen: number, attemptId: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('meeting_rooms')
    .set({ updated_at: now, attempt_id: attemptId })
    .where('meeting_id', '=', meetingUuid)
    .where('status', '=', 'creating')
    .where('updated_at', '=', seen)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Stores the room the attempt `attemptId` made, if that attempt still holds the meeting's
 * `creating` record: false when another attempt took it over (or it is gone), whose room
 * is then the meeting's and this one nobody's.
 */
export async function storeRoomCreated(
  db: DbOrTrx,
  meetingUuid: string,
  attemptId: string,
  room: { roomId: string; joinUrl: string; conferenceId: string | null; password: string | null; start: number; end: number },
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('meeting_rooms')
    .set({
      status: 'created',
      room_id: room.roomId,
      join_url: room.joinUrl,
      conference_id: room.conferenceId,
      password: room.password,
      room_start: room.start,
      room_end: room.end,
      updated_at: now,
    })
    .where('meeting_id', '=', meetingUuid)
    .where('status', '=', 'creating')
    .where('attempt_id', '=', attemptId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The room is at the meeting's times now (moved, or a refused move's times tried again and made); a `failed` one is `created` again. */
export async function storeRoomMoved(db: DbOrTrx, meetingUuid: string, times: { start: number; end: number }, now: number): Promise<void> {
  await db
    .updateTable('meeting_rooms')
    .set({ status: 'created', room_start: times.start, room_end: times.end, updated_at: now })
    .where('meeting_id', '=', meetingUuid)
    .where('status', 'in', ['created', 'failed'])
    .execute();
}

/**
 * The provider refused the room for good for the meeting at `times`: a `creating` record held
 * by `attemptId` (nothing was made), or a made room a move was refused for (`attemptId` null;
 * again, if an earlier move was refused too), becomes `failed` for those times. False when the
 * record is another attempt's, or gone.
 */
export async function markRoomFailed(db: DbOrTrx, meetingUuid: string, attemptId: string | null, times: { start: number; end: number }, now: number): Promise<boolean> {
  const held = db.updateTable('meeting_rooms').set({ status: 'failed', room_start: times.start, room_end: times.end, updated_at: now }).where('meeting_id', '=', meetingUuid);
  const result = await (attemptId === null
    ? held.where('status', 'in', ['created', 'failed'])
    : held.where('status', '=', 'creating').where('attempt_id', '=', attemptId)
  ).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Forgets a `failed` record seen at `seen` (the meeting moved since: its new times get one more try); one forgetter wins. */
export async function forgetFailedRoom(db: DbOrTrx, meetingUuid: string, seen: number): Promise<void> {
  await db.deleteFrom('meeting_rooms').where('meeting_id', '=', meetingUuid).where('status', '=', 'failed').where('updated_at', '=', seen).execute();
}

/** Forgets the meeting's room record; with `attemptId`, only while that attempt holds it (another attempt's record is left to it). */
export async function deleteMeetingRoom(db: DbOrTrx, meetingUuid: string, attemptId?: string): Promise<void> {
  const record = db.deleteFrom('meeting_rooms').where('meeting_id', '=', meetingUuid);
  await (attemptId === undefined ? record : record.where('attempt_id', '=', attemptId)).execute();
}
