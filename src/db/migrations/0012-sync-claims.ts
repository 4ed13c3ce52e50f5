import type { Kysely } from 'kysely';

/**
 * A calendar sync's claim gets a token (`sync_claim`): the sync that holds it may store what
 * it read and release it; one whose lease ran out and was claimed again by another (a paused
 * or partitioned instance) stores nothing, so an older read never replaces a newer one.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('calendars').addColumn('sync_claim', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('calendars').dropColumn('sync_claim').execute();
}
