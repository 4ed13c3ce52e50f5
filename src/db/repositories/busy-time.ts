import type { BusyMeeting } from '../../domain/slots.js';
import type { DbOrTrx } from '../database.js';
import { findBlockingMeetings } from './meetings.js';

/**
 * Busy time that is not a meeting carries this prefix in place of a topic uuid: it blocks
 * slots like a meeting without buffers, and never counts toward a topic's daily limit.
 */
export const EXTERNAL_BUSY_PREFIX = 'external:';

/**
 * Everything that blocks a host between two instants: their meetings (see
 * findBlockingMeetings) and busy time synced from their remote calendars. Both read paths —
 * the calculation's and the booking check's — load busy time through this (or its prepared
 * twin in fast-reads.ts, held to it by test/db/fast-reads.test.ts).
 */
export async function findBusySpans(db: DbOrTrx, hostUuid: string, from: number, to: number, now: number): Promise<BusyMeeting[]> {
  const [meetings, external] = await Promise.all([findBlockingMeetings(db, hostUuid, from, to, now), findExternalBusy(db, hostUuid, from, to)]);
  return external.length === 0 ? meetings : [...meetings, ...external];
}

/** Remote-calendar spans overlapping [from, to) (they may start long before: an all-week event). */
export async function findExternalBusy(db: DbOrTrx, hostUuid: string, from: number, to: number): Promise<BusyMeeting[]> {
  const rows = await db
    .selectFrom('external_busy')
    .select(['starts_at', 'ends_at', 'source_id'])
    .where('host_user_id', '=', hostUuid)
    .where('starts_at', '<', to)
    .where('ends_at', '>', from)
    .orderBy('starts_at')
    .execute();
  return rows.map((row) => externalSpan(row.starts_at, row.ends_at, row.source_id));
}

export function externalSpan(start: number, end: number, sourceId: string): BusyMeeting {
  return { start, end, bufferBeforeMinutes: 0, bufferAfterMinutes: 0, topicUuid: `${EXTERNAL_BUSY_PREFIX}${sourceId}` };
}

/** Replaces everything one source (a connected calendar) said about a host's busy time. */
export async function replaceExternalBusy(
  db: DbOrTrx,
  hostUuid: string,
  sourceId: string,
  spans: readonly { uuid: string; start: number; end: number }[],
): Promise<void> {
  await db.deleteFrom('external_busy').where('source_id', '=', sourceId).execute();
  if (spans.length === 0) return;
  await db
    .insertInto('external_busy')
    .values(spans.map((span) => ({ id: span.uuid, host_user_id: hostUuid, source_id: sourceId, starts_at: span.start, ends_at: span.end })))
    .execute();
}

/**
 * Says "this host's free time changed": every instance's cached schedules of the host stop
 * being served. Every write that changes what blocks a host calls this in its transaction.
 */
export async function bumpCalendarVersions(db: DbOrTrx, hostUuids: readonly string[]): Promise<void> {
  if (hostUuids.length === 0) return;
  await db
    .updateTable('users')
    .set((eb) => ({ calendar_version: eb('calendar_version', '+', 1) }))
    .where('id', 'in', [...new Set(hostUuids)])
    .execute();
}
