import type { Kysely } from 'kysely';

/**
 * The account's audit log (`GET /audit-events`): one row per change, written in the change's
 * own transaction. Rows are only ever inserted: no statement of the application updates or
 * deletes one (deleting the whole account removes its log with it, by the cascade).
 * - `actor_*`: who (`user`/`operator`/`participant`/`system`), which user, and through what
 *   (`api-key`, `app`, `cli`, `manage-link`, `maintenance`).
 * - `target_*`: the record it is about; `details`: JSON, never secrets or a participant's data.
 * Read newest first per account, optionally of one action: one index for each.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('account_id', 'varchar(36)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('at', 'bigint', (col) => col.notNull())
    .addColumn('action', 'varchar(40)', (col) => col.notNull())
    .addColumn('actor_type', 'varchar(16)', (col) => col.notNull())
    .addColumn('actor_user_id', 'varchar(36)')
    .addColumn('actor_via', 'varchar(16)', (col) => col.notNull())
    .addColumn('target_type', 'varchar(24)', (col) => col.notNull())
    .addColumn('target_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('details', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('audit_events_account_at_idx').on('audit_events').columns(['account_id', 'at', 'id']).execute();
  await db.schema.createIndex('audit_events_account_action_at_idx').on('audit_events').columns(['account_id', 'action', 'at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('audit_events').execute();
}
