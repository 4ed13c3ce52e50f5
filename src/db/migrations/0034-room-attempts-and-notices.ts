import type { Kysely } from 'kysely';

/**
 * - `meeting_rooms.attempt_id`: the attempt that holds a `creating` record, replaced when a
 *   stale record is taken over; the room made is stored only under the attempt id it was
 *   asked for, so an attempt that stalled past its lease (an instance paused before asking the
 *   provider) cannot overwrite the room another attempt made and sent meanwhile. Null on rows
 *   recorded before. A record may now also be `failed`: the provider refused the room for good
 *   for the meeting's times in `room_start`/`room_end`.
 * - `room_notices`: when each host was last e-mailed about meetings at a provider's place that
 *   get no link (`kind`: `connect`, no working connection; `failed`, the provider refused the
 *   room), and when the digest of the ones since is due: one e-mail, then at most one digest an
 *   hour, however many meetings are booked meanwhile.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('meeting_rooms').addColumn('attempt_id', 'varchar(36)').execute();
  await db.schema
    .createTable('room_notices')
    .addColumn('user_id', 'varchar(36)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('provider', 'varchar(20)', (col) => col.notNull())
    .addColumn('kind', 'varchar(10)', (col) => col.notNull())
    .addColumn('last_sent_at', 'bigint', (col) => col.notNull())
    .addColumn('digest_due_at', 'bigint')
    .addPrimaryKeyConstraint('room_notices_pk', ['user_id', 'provider', 'kind'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('room_notices').execute();
  await db.deleteFrom('meeting_rooms').where('status', '=', 'failed').execute();
  await db.schema.alterTable('meeting_rooms').dropColumn('attempt_id').execute();
}
