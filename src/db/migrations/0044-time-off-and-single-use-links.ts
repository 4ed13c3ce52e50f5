import type { Kysely } from 'kysely';

/**
 * Issue 41, items 4 and 6.
 *
 * `time_off`: a host's span away (`POST /users/{uuid}/time-off`), with an optional stand-in
 * (`delegate_id`, a user of the same account). The host is offered nowhere in it; the
 * calculation reads a host's spans by `(user_id, end_at)`. `reason` is the host's own note
 * (host data, not a participant's).
 *
 * `single_use_links`: a link that books a topic once (`POST /meeting-topics/{uuid}/single-use-links`).
 * Only the SHA-256 of its token is kept (`token_hash`, unique): a database dump gives no link
 * that works. `used_at` is set in the booking's own transaction by a conditional update, so
 * of two bookings through one link exactly one commits; `meeting_id` names what it booked.
 * Public holidays (item 5) need no table: a schedule's `holidays` and `holidayExceptions`
 * live in its hours' JSON beside the weekly hours and overrides.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('time_off')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('account_id', 'varchar(36)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(36)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('start_at', 'bigint', (col) => col.notNull())
    .addColumn('end_at', 'bigint', (col) => col.notNull())
    .addColumn('reason', 'varchar(500)')
    .addColumn('delegate_id', 'varchar(36)', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('time_off_user_end_idx').on('time_off').columns(['user_id', 'end_at']).execute();

  await db.schema
    .createTable('single_use_links')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('account_id', 'varchar(36)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('topic_id', 'varchar(36)', (col) => col.notNull().references('meeting_topics.id').onDelete('cascade'))
    .addColumn('token_hash', 'varchar(64)', (col) => col.notNull().unique())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('meeting_id', 'varchar(36)')
    .execute();
  await db.schema.createIndex('single_use_links_topic_idx').on('single_use_links').columns(['topic_id', 'used_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('single_use_links').execute();
  await db.schema.dropTable('time_off').execute();
}
