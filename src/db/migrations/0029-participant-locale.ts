import type { Kysely } from 'kysely';

/**
 * The participant's own locale (`en-GB`, `en-US-u-hc-h23`), as their browser read the booking
 * page: their e-mails then read dates and times as the page did (24-hour for en-GB). Null
 * for meetings booked without one, whose messages follow `participant_lang` as before.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('meetings').addColumn('participant_locale', 'varchar(40)').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('meetings').dropColumn('participant_locale').execute();
}
