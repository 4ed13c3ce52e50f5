import type { Kysely } from 'kysely';

/**
 * When each SMS destination's lock row was last taken (issue 44: nothing grows without end).
 * `sms_number_locks` held one row per number ever texted, for ever; the row only serialises
 * the count of the last 24 hours' sends (the sends themselves are in `meeting_reminders`), so a
 * row not taken for longer than that can go and is written again by the next send. Rows
 * already stored get 0: the first pruning takes them, and the next SMS to their number writes
 * its row afresh. Indexed for the pruning, which picks the oldest first.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('sms_number_locks')
    .addColumn('locked_at', 'bigint', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('sms_number_locks_locked_idx').on('sms_number_locks').column('locked_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('sms_number_locks_locked_idx').execute();
  await db.schema.alterTable('sms_number_locks').dropColumn('locked_at').execute();
}
