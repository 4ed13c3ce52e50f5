import type { Selectable } from 'kysely';
import type { IntegrationProvider } from '../../domain/integrations.js';
import type { DbOrTrx, MeetingRoomTable } from '../database.js';

/** A meeting's room at its provider: `creating` from just before the provider is asked until its answer is stored. */
export interface MeetingRoom {
  meetingUuid: string;
  connectionUuid: string | null;
  provider: IntegrationProvider;
  status: 'creating' | 'created';
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
 * Records, before the provider is called, that a room is being made for the meeting: true
 * when this call recorded it, false when a record exists already (another attempt's, to be
 * adopted or finished, never a second room).
 */
export async function recordRoomCreating(
  db: DbOrTrx,
  room: { meetingUuid: string; connectionUuid: string; provider: IntegrationProvider; requestId: string },
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
    })
    .onConflict((oc) => oc.column('meeting_id').doNothing())
    .execute();
  return (await findMeetingRoom(db, room.meetingUuid))?.requestId === room.requestId;
}

/** Takes over a `creating` record whose attempt went quiet (its `updated_at` still `seen`): one taker wins. */
export async function claimStaleRoom(db: DbOrTrx, meetingUuid: string, seen: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('meeting_rooms')
    .set({ updated_at: now })
    .where('meeting_id', '=', meetingUuid)
    .where('status', '=', 'creating')
    .where('updated_at', '=', seen)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function storeRoomCreated(
  db: DbOrTrx,
  meetingUuid: string,
  room: { roomId: string; joinUrl: string; conferenceId: string | null; password: string | null; start: number; end: number },
  now: number,
): Promise<void> {
  await db
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
    .execute();
}

export async function storeRoomMoved(db: DbOrTrx, meetingUuid: string, times: { start: number; end: number }, now: number): Promise<void> {
  await db.updateTable('meeting_rooms').set({ room_start: times.start, room_end: times.end, updated_at: now }).where('meeting_id', '=', meetingUuid).execute();
}

export async function deleteMeetingRoom(db: DbOrTrx, meetingUuid: string): Promise<void> {
  await db.deleteFrom('meeting_rooms').where('meeting_id', '=', meetingUuid).execute();
}
