import type { Kysely } from 'kysely';

/**
 * Conference rooms and calendars through OAuth connections (Zoom, Google, Microsoft, Webex):
 * - `account_integrations`: the business's OAuth app per provider; the client secret sealed.
 * - `connections`: one per host and provider. Tokens are sealed; `refresh_claim` and
 *   `refresh_lease_until` let exactly one instance refresh a connection's tokens at a time.
 * - `oauth_states`: each authorization's single-use `state` (by its SHA-256) and sealed PKCE
 *   verifier, for 15 minutes.
 * - `meeting_rooms`: the room a provider made for a meeting, recorded before the provider is
 *   called (`request_id`), so a retry or another instance adopts it instead of making another.
 * - `calendars.connection_id` / `remote_calendar_id`: Google and Microsoft calendars reach
 *   the provider through a connection instead of a URL and a password.
 * - `meetings.confirmation_sent_at`: when the meeting's confirmations were queued, so the room
 *   arriving after them sends an update, and the two never both send a confirmation.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('account_integrations')
    .addColumn('account_id', 'varchar(36)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('provider', 'varchar(20)', (col) => col.notNull())
    .addColumn('settings', 'text', (col) => col.notNull())
    .addColumn('secrets', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('account_integrations_pk', ['account_id', 'provider'])
    .execute();

  await db.schema
    .createTable('connections')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('account_id', 'varchar(36)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(36)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('provider', 'varchar(20)', (col) => col.notNull())
    // pending | connected | error
    .addColumn('status', 'varchar(10)', (col) => col.notNull())
    .addColumn('account_email', 'varchar(320)')
    .addColumn('last_error', 'text')
    .addColumn('access_token_sealed', 'text')
    .addColumn('refresh_token_sealed', 'text')
    .addColumn('access_expires_at', 'bigint')
    .addColumn('refresh_claim', 'varchar(36)')
    .addColumn('refresh_lease_until', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('connected_at', 'bigint')
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('connections_user_provider_idx').on('connections').columns(['user_id', 'provider']).unique().execute();

  await db.schema
    .createTable('oauth_states')
    .addColumn('state_hash', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('connection_id', 'varchar(36)', (col) => col.notNull().references('connections.id').onDelete('cascade'))
    .addColumn('code_verifier_sealed', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('meeting_rooms')
    .addColumn('meeting_id', 'varchar(36)', (col) => col.primaryKey().references('meetings.id').onDelete('cascade'))
    .addColumn('connection_id', 'varchar(36)', (col) => col.references('connections.id').onDelete('set null'))
    .addColumn('provider', 'varchar(20)', (col) => col.notNull())
    // creating (recorded before the provider was called) | created
    .addColumn('status', 'varchar(10)', (col) => col.notNull())
    .addColumn('request_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('room_id', 'varchar(255)')
    .addColumn('join_url', 'text')
    .addColumn('conference_id', 'varchar(255)')
    .addColumn('password', 'varchar(255)')
    // The meeting's times the room was made or last moved for.
    .addColumn('room_start', 'bigint')
    .addColumn('room_end', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();

  await db.schema.alterTable('meetings').addColumn('confirmation_sent_at', 'bigint').execute();
  await db.schema.alterTable('calendars').addColumn('connection_id', 'varchar(36)').execute();
  await db.schema.alterTable('calendars').addColumn('remote_calendar_id', 'varchar(1024)').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('calendars').dropColumn('remote_calendar_id').execute();
  await db.schema.alterTable('calendars').dropColumn('connection_id').execute();
  await db.schema.alterTable('meetings').dropColumn('confirmation_sent_at').execute();
  await db.schema.dropTable('meeting_rooms').execute();
  await db.schema.dropTable('oauth_states').execute();
  await db.schema.dropTable('connections').execute();
  await db.schema.dropTable('account_integrations').execute();
}
