import type { Kysely } from 'kysely';

/**
 * Group meetings and weighted teams (issue 26):
 * - `meeting_topics.seats`: participants per slot; each holds a meeting of their own at the
 *   slot's start (no column on meetings: the seat holders are the topic's meetings at that start).
 * - `meeting_topics.host_weights`: JSON `{ username: 1..100 }` for round-robin team topics;
 *   `{}` is every host equal, as before.
 * - `seat_invitations`: the host's one invitation per group (topic, host, start), whose
 *   SEQUENCE goes up with every update as participants come and go.
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
  await db.schema
    .createTable('seat_invitations')
    .addColumn('topic_id', 'varchar(36)', (col) => col.notNull().references('meeting_topics.id'))
    .addColumn('host_user_id', 'varchar(36)', (col) => col.notNull().references('users.id'))
    .addColumn('starts_at', 'bigint', (col) => col.notNull())
    .addColumn('sequence', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('seat_invitations_pk', ['topic_id', 'host_user_id', 'starts_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('seat_invitations').execute();
  await db.schema.alterTable('meeting_topics').dropColumn('host_weights').execute();
  await db.schema.alterTable('meeting_topics').dropColumn('seats').execute();
}
