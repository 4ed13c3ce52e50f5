import type { Kysely } from 'kysely';

/**
 * Group meetings and weighted teams (issue 26):
 * - `meeting_topics.seats`: participants per slot; each holds a meeting of their own at the
 *   slot's start (no column on meetings: the seat holders are the topic's meetings at that start).
 * - `meeting_topics.host_weights`: JSON `{ username: 1..100 }` for round-robin team topics;
 *   `{}` is every host equal, as before.
 * Defaults keep every existing topic as it was.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('meeting_topics')
    .addColumn('seats', 'integer', (col) => col.notNull().defaultTo(1))
    .execute();
  await db.schema
    .alterTable('meeting_topics')
    .addColumn('host_weights', 'text', (col) => col.notNull().defaultTo('{}'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('meeting_topics').dropColumn('host_weights').execute();
  await db.schema.alterTable('meeting_topics').dropColumn('seats').execute();
}
