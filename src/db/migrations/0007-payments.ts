import type { Kysely } from 'kysely';

/**
 * Taking the money:
 * - `payments` learns the gateway's transaction (id and the page to send the participant
 *   to), a creation claim with a lease (so one `/pay` visit, on any instance, calls the
 *   gateway while the others wait), and how much has been refunded;
 * - `payment_refunds`: each refund asked of a gateway, at most one per meeting (or one for
 *   a whole late payment), whose uuid is the idempotency key the gateway sees.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payments').addColumn('gateway_transaction_id', 'varchar(255)').execute();
  await db.schema.alterTable('payments').addColumn('gateway_redirect_url', 'text').execute();
  await db.schema.alterTable('payments').addColumn('claim_token', 'varchar(36)').execute();
  await db.schema.alterTable('payments').addColumn('claim_expires_at', 'bigint').execute();
  await db.schema
    .alterTable('payments')
    .addColumn('refunded_amount', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('payment_refunds')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('payment_id', 'varchar(36)', (col) => col.notNull().references('payments.id').onDelete('cascade'))
    // A meeting's uuid (its share, on cancel) or `whole` (a late payment whose slot was taken).
    .addColumn('refund_key', 'varchar(36)', (col) => col.notNull())
    .addColumn('amount', 'integer', (col) => col.notNull())
    // cancelled | slot_taken
    .addColumn('reason', 'varchar(20)', (col) => col.notNull())
    // pending | done | failed
    .addColumn('status', 'varchar(20)', (col) => col.notNull())
    .addColumn('gateway_refund_id', 'varchar(255)')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('done_at', 'bigint')
    .addUniqueConstraint('payment_refunds_once', ['payment_id', 'refund_key'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('payment_refunds').execute();
  for (const column of ['refunded_amount', 'claim_expires_at', 'claim_token', 'gateway_redirect_url', 'gateway_transaction_id']) {
    await db.schema.alterTable('payments').dropColumn(column).execute();
  }
}
