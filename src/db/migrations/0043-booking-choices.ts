import type { Kysely } from 'kysely';

/**
 * Booking choices (issue 41, items 1 and 2):
 * - `meeting_topics.durations`: JSON array of the lengths a participant may choose, in
 *   minutes; `[]` is only `duration_minutes`, as every topic stored before.
 * - `meeting_topics.allow_guests`: 1 lets a booking bring guests; 0 (every existing topic) does not.
 * - `meetings.guests`: JSON array of the guests' e-mail addresses; `[]` for none.
 * A meeting's own length needs no column: it is `ends_at - starts_at`, chosen when booked.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('meeting_topics')
    .addColumn('durations', 'text', (col) => col.notNull().defaultTo('[]'))
    .execute();
  await db.schema
    .alterTable('meeting_topics')
    .addColumn('allow_guests', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('meetings')
    .addColumn('guests', 'text', (col) => col.notNull().defaultTo('[]'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('meetings').dropColumn('guests').execute();
  await db.schema.alterTable('meeting_topics').dropColumn('allow_guests').execute();
  await db.schema.alterTable('meeting_topics').dropColumn('durations').execute();
}
