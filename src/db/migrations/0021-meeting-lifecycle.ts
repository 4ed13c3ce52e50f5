import type { Kysely } from 'kysely';

/**
 * The meeting's life after booking:
 * - `meetings.no_show`: who did not come (`participant` | `host`), marked after the start;
 *   null when everyone came or nobody said otherwise.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('meetings').addColumn('no_show', 'varchar(12)').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('meetings').dropColumn('no_show').execute();
}
