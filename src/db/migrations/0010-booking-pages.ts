import type { Kysely } from 'kysely';

/**
 * Booking pages and participant self-service: a topic gets a `description` (shown on its
 * booking page and in the confirmation), an `is_public` flag (a booking page, bookable
 * without a key) and `cancellation_notice_minutes` (how long before the start a
 * participant may still cancel or move the meeting through the manage link).
 * `is_public`, not `public`: PUBLIC is a reserved word in standard SQL.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('meeting_topics')
    .addColumn('description', 'text', (col) => col.notNull().defaultTo(''))
    .execute();
  await db.schema
    .alterTable('meeting_topics')
    .addColumn('is_public', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('meeting_topics')
    .addColumn('cancellation_notice_minutes', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('meeting_topics').dropColumn('cancellation_notice_minutes').execute();
  await db.schema.alterTable('meeting_topics').dropColumn('is_public').execute();
  await db.schema.alterTable('meeting_topics').dropColumn('description').execute();
}
