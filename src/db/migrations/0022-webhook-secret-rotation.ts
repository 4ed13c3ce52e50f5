import type { Kysely } from 'kysely';

/**
 * A webhook's secret can be rotated without a gap: the secret it replaced stays, sealed like
 * the current one, until `previous_secret_expires_at` (24 hours later), and deliveries until
 * then carry a signature by each, so a receiver still holding the old secret keeps verifying
 * while it is switched over. Both null when it was never rotated or the old one has expired.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_subscriptions').addColumn('previous_secret_sealed', 'text').execute();
  await db.schema.alterTable('webhook_subscriptions').addColumn('previous_secret_expires_at', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_subscriptions').dropColumn('previous_secret_expires_at').execute();
  await db.schema.alterTable('webhook_subscriptions').dropColumn('previous_secret_sealed').execute();
}
