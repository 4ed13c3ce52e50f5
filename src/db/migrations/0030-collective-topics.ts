import type { Kysely } from 'kysely';

/**
 * Collective team topics (issue 26):
 * - `meeting_topics.assignment`: `round-robin` (one free host takes each meeting, as before)
 *   or `collective` (every host of the topic holds each meeting).
 * - `meeting_co_hosts`: the hosts a collective meeting holds beside `meetings.host_user_id`
 *   (the host its date named), one row each. `starts_at` repeats the meeting's start so a
 *   host's busy time is read by index range, as for the meetings they host themselves.
 * - `meetings.collective`: 1 when the meeting has co-host rows, so the reads of the other
 *   meetings (nearly all) never look for any.
 * Defaults keep every existing topic and meeting as it was.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('meeting_topics')
    .addColumn('assignment', 'varchar(20)', (col) => col.notNull().defaultTo('round-robin'))
    .execute();
  await db.schema
    .alterTable('meetings')
    .addColumn('collective', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('meeting_co_hosts')
    .addColumn('meeting_id', 'varchar(36)', (col) => col.notNull().references('meetings.id'))
    .addColumn('user_id', 'varchar(36)', (col) => col.notNull().references('users.id'))
    .addColumn('position', 'integer', (col) => col.notNull())
    .addColumn('starts_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('meeting_co_hosts_pk', ['meeting_id', 'user_id'])
    .execute();
  await db.schema.createIndex('meeting_co_hosts_user_start').on('meeting_co_hosts').columns(['user_id', 'starts_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('meeting_co_hosts').execute();
  await db.schema.alterTable('meetings').dropColumn('collective').execute();
  await db.schema.alterTable('meeting_topics').dropColumn('assignment').execute();
}
