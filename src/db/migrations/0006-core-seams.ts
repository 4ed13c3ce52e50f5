import { sql, type Kysely } from 'kysely';

/**
 * The seams the next capabilities build on:
 * - `users.calendar_version`: what schedule caches trust, bumped explicitly by every change
 *   to a host's free time (taking a host's lock no longer doubles as invalidating caches);
 * - `external_busy`: busy time that is not a meeting (a host's remote calendar);
 * - `account_gateways`: gateway settings apart from the account, secrets sealed;
 * - `events`: what happened (meeting.scheduled, payment.paid, …), kept as history; the
 *   outbox fans each out into e-mails (and webhooks, calendar writes) after commit.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('calendar_version', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  // The key that booked a meeting may cancel it (as may its host and their team admins).
  await db.schema.alterTable('meetings').addColumn('booked_by_key_id', 'varchar(36)').execute();

  await db.schema
    .createTable('external_busy')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('host_user_id', 'varchar(36)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    // The source of the span (a connected calendar's uuid): a sync replaces its own spans only.
    .addColumn('source_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('starts_at', 'bigint', (col) => col.notNull())
    .addColumn('ends_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('external_busy_host_idx').on('external_busy').columns(['host_user_id', 'starts_at', 'ends_at']).execute();
  await db.schema.createIndex('external_busy_source_idx').on('external_busy').column('source_id').execute();

  await db.schema
    .createTable('account_gateways')
    .addColumn('account_id', 'varchar(36)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('code', 'varchar(20)', (col) => col.notNull())
    .addColumn('position', 'integer', (col) => col.notNull())
    // JSON: the non-secret settings (merchantId, posId, clientId, …).
    .addColumn('settings', 'text', (col) => col.notNull())
    // JSON: each secret sealed with AES-256-GCM (src/secrets/secret-box.ts); never returned.
    .addColumn('secrets', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('account_gateways_pk', ['account_id', 'code'])
    .execute();
  // Enabled gateways carry over; settings stored before they had pinned names (and before
  // they were encrypted) are dropped rather than kept in clear: they must be entered again.
  const accounts = await db.selectFrom('accounts').select(['id', 'gateways']).execute();
  for (const account of accounts as { id: string; gateways: string }[]) {
    const gateways = JSON.parse(account.gateways) as { code: string }[];
    for (const [position, gateway] of gateways.entries()) {
      await db.insertInto('account_gateways').values({ account_id: account.id, code: gateway.code, position, settings: '{}', secrets: '{}', updated_at: Date.now() }).execute();
    }
  }
  await db.schema.alterTable('accounts').dropColumn('gateways').execute();

  await db.schema
    .createTable('events')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('account_id', 'varchar(36)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('type', 'varchar(40)', (col) => col.notNull())
    // The record the event is about (a meeting, a payment, a user), for its history.
    .addColumn('subject_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('occurred_at', 'bigint', (col) => col.notNull())
    .addColumn('data', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('events_subject_idx').on('events').columns(['subject_id', 'occurred_at']).execute();
  // Jobs of one kind are claimed together, so a slow kind (webhooks) never holds up another (e-mail).
  await db.schema.createIndex('outbox_kind_due_idx').on('outbox').columns(['kind', 'status', 'next_attempt_at']).execute();
  // The outbox holds jobs of any kind now, so a job is `done`, not `sent`.
  await sql`update outbox set kind = 'email' where kind = 'booking-message'`.execute(db);
  await sql`update outbox set status = 'done' where status = 'sent'`.execute(db);
  await db.schema.alterTable('outbox').renameColumn('sent_at', 'done_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('outbox').renameColumn('done_at', 'sent_at').execute();
  await sql`update outbox set status = 'sent' where status = 'done'`.execute(db);
  await sql`update outbox set kind = 'booking-message' where kind = 'email'`.execute(db);
  await db.schema.dropIndex('outbox_kind_due_idx').execute();
  await db.schema.dropTable('events').execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('gateways', 'text', (col) => col.notNull().defaultTo('[]'))
    .execute();
  await db.schema.dropTable('account_gateways').execute();
  await db.schema.dropTable('external_busy').execute();
  await db.schema.alterTable('meetings').dropColumn('booked_by_key_id').execute();
  await db.schema.alterTable('users').dropColumn('calendar_version').execute();
}
