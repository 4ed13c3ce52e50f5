import type { Kysely } from 'kysely';

/**
 * A payment remembers which try at creating its gateway transaction is current
 * (`creation_attempt`, 0 first) and when that try began (`creation_attempt_at`, epoch ms):
 * the adapter derives the request from them, so a try repeated after a lost answer is the
 * same request (Stripe keeps a key's first answer and refuses the key with other
 * parameters), and a new try gets a new idempotency key.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('payments')
    .addColumn('creation_attempt', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('payments').addColumn('creation_attempt_at', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payments').dropColumn('creation_attempt_at').execute();
  await db.schema.alterTable('payments').dropColumn('creation_attempt').execute();
}
