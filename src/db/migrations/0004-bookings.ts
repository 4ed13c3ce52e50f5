import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // One row per (account, Idempotency-Key): the first response, replayed for 24 hours.
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('account_id', 'varchar(36)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('key', 'varchar(255)', (col) => col.notNull())
    .addColumn('request_hash', 'varchar(64)', (col) => col.notNull())
    .addColumn('response_status', 'integer', (col) => col.notNull())
    .addColumn('response_body', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created_idx').on('idempotency_keys').column('created_at').execute();

  // Durable outbox: messages are written in the booking's transaction and sent later.
  await db.schema
    .createTable('outbox')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('kind', 'varchar(40)', (col) => col.notNull())
    .addColumn('payload', 'text', (col) => col.notNull())
    // pending | sent | failed
    .addColumn('status', 'varchar(20)', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (col) => col.notNull())
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('sent_at', 'bigint')
    .execute();
  await db.schema.createIndex('outbox_due_idx').on('outbox').columns(['status', 'next_attempt_at']).execute();

  // The payment of a paid booking (all its meetings). Gateways settle it later.
  await db.schema
    .createTable('payments')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('account_id', 'varchar(36)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('booking_id', 'varchar(36)', (col) => col.notNull().unique())
    .addColumn('gateway', 'varchar(20)', (col) => col.notNull())
    // pending | paid | expired | cancelled
    .addColumn('status', 'varchar(20)', (col) => col.notNull())
    .addColumn('amount', 'integer', (col) => col.notNull())
    .addColumn('currency', 'varchar(3)', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('paid_at', 'bigint')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('payments').execute();
  await db.schema.dropTable('outbox').execute();
  await db.schema.dropTable('idempotency_keys').execute();
}
