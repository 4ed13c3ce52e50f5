import type { Kysely } from 'kysely';

/**
 * When a refund was last asked of the gateway (`requested_at`, written before the call). Some
 * gateways take no idempotency key for refunds (Tpay): a refund asked before whose answer was
 * lost may have been made, so before asking again termin reads the transaction's refunds.
 * Null: never asked, the call cannot have been made.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payment_refunds').addColumn('requested_at', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payment_refunds').dropColumn('requested_at').execute();
}
