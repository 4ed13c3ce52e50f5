import type { Kysely } from 'kysely';

/**
 * Meetings people can attend: topics and hosts keep per-place details (`place_details`,
 * JSON `{ "offline": "ul. Prosta 1", "zoom": "https://…" }`, `{}` for none), and a meeting
 * keeps the location resolved when it was booked (`location`, JSON; null for meetings booked
 * before this migration, which read as their place without details).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('meeting_topics')
    .addColumn('place_details', 'text', (col) => col.notNull().defaultTo('{}'))
    .execute();
  await db.schema
    .alterTable('users')
    .addColumn('place_details', 'text', (col) => col.notNull().defaultTo('{}'))
    .execute();
  await db.schema.alterTable('meetings').addColumn('location', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('meetings').dropColumn('location').execute();
  await db.schema.alterTable('users').dropColumn('place_details').execute();
  await db.schema.alterTable('meeting_topics').dropColumn('place_details').execute();
}
