import type { Kysely } from 'kysely';

/**
 * The meeting's life after booking:
 * - `meetings.no_show`: who did not come (`participant` | `host`), marked after the start;
 *   null when everyone came or nobody said otherwise.
 * - `meeting_topics.requires_approval` / `approval_deadline_hours`: bookings of the topic wait
 *   for the host (`pending_approval`, holding the slot until `meetings.hold_expires_at`, the
 *   earlier of the deadline and the start: the column payment holds use, so every reader of
 *   busy time treats both holds alike).
 * - `meetings.decline_reason`: why the host declined (or "not approved in time").
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('meetings').addColumn('no_show', 'varchar(12)').execute();
  await db.schema.alterTable('meetings').addColumn('decline_reason', 'text').execute();
  await db.schema
    .alterTable('meeting_topics')
    .addColumn('requires_approval', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('meeting_topics')
    .addColumn('approval_deadline_hours', 'integer', (col) => col.notNull().defaultTo(24))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('meeting_topics').dropColumn('approval_deadline_hours').execute();
  await db.schema.alterTable('meeting_topics').dropColumn('requires_approval').execute();
  await db.schema.alterTable('meetings').dropColumn('decline_reason').execute();
  await db.schema.alterTable('meetings').dropColumn('no_show').execute();
}
