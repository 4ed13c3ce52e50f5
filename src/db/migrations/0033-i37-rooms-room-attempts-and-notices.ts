import type { Kysely } from 'kysely';

/**
 * - `meeting_rooms.attempt_id`: the attempt that holds a `creating` record, replaced when a
 *   stale record is taken over; the room made is stored only under the attempt id it was
 *   asked for, so an attempt that stalled past its lease (an instance paused before asking the
 *   provider) cannot overwrite the room another attempt made and sent meanwhile. Null on rows
 *   recorded before.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('meeting_rooms').addColumn('attempt_id', 'varchar(36)').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('meeting_rooms').dropColumn('attempt_id').execute();
}
