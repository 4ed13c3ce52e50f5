import type { Kysely } from 'kysely';

/**
 * An outbox job's claim gets a token (`claim`): only the worker holding it may complete or
 * fail the job. One whose lease ran out while it worked (a paused instance, a job slower than
 * its lease) and that was claimed again records nothing, so a job is never completed twice
 * and a retry another worker scheduled is never overwritten.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('outbox').addColumn('claim', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('outbox').dropColumn('claim').execute();
}
