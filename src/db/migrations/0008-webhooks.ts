import type { Kysely } from 'kysely';

/**
 * Webhook subscriptions and their delivery log.
 * - `webhook_subscriptions`: where an account's events go; the signing secret is sealed
 *   (AES-256-GCM, src/secrets) since it must be opened again to sign each attempt.
 * - `webhook_deliveries`: one row per (subscription, event): its uuid is the `webhook-id`
 *   header, stable across retries. `job_id` names the outbox job that may attempt it now
 *   (a superseded job does nothing); `locked_until` keeps a second sender away while an
 *   attempt is in flight, on any instance.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_subscriptions')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('account_id', 'varchar(36)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('url', 'text', (col) => col.notNull())
    // JSON array of event types.
    .addColumn('events', 'text', (col) => col.notNull())
    .addColumn('description', 'text')
    .addColumn('secret_sealed', 'text', (col) => col.notNull())
    .addColumn('enabled', 'integer', (col) => col.notNull())
    // Set by the first failed attempt after a success, cleared by any success.
    .addColumn('failing_since', 'bigint')
    .addColumn('disabled_at', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('webhook_subscriptions_account_idx').on('webhook_subscriptions').columns(['account_id', 'created_at']).execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('subscription_id', 'varchar(36)', (col) => col.notNull().references('webhook_subscriptions.id').onDelete('cascade'))
    .addColumn('account_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('event_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('event_type', 'varchar(40)', (col) => col.notNull())
    // The exact JSON sent: made once at fan-out, so every attempt signs the same bytes.
    .addColumn('body', 'text', (col) => col.notNull())
    .addColumn('status', 'varchar(20)', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('first_attempt_at', 'bigint')
    .addColumn('last_attempt_at', 'bigint')
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('job_id', 'varchar(36)')
    .addColumn('locked_until', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  // An event reaches a subscription once, however often its fan-out is retried.
  await db.schema.createIndex('webhook_deliveries_event_uq').on('webhook_deliveries').columns(['subscription_id', 'event_id']).unique().execute();
  // The delivery log, newest first.
  await db.schema.createIndex('webhook_deliveries_log_idx').on('webhook_deliveries').columns(['subscription_id', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_subscriptions').execute();
}
