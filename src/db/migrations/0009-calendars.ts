import type { Kysely } from 'kysely';

/**
 * External calendars and the private meetings feed:
 * - `calendars`: a host's CalDAV collection or iCalendar URL. Secrets (the CalDAV password,
 *   the whole ICS URL, which is often a secret address) are sealed with AES-256-GCM; the
 *   sync state (`status`, `last_error`, …) is what the API shows, and `sync_lease_until`
 *   lets exactly one instance sync a calendar at a time (a conditional update claims it).
 * - `calendar_event_copies`: which meetings termin wrote into which calendar, so a meeting
 *   that moves to another host or is cancelled is removed from where it was written.
 * - `calendar_feeds`: one feed token per host, looked up by its SHA-256, kept sealed so the
 *   same URL can be shown again until it is rotated.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('calendars')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('account_id', 'varchar(36)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(36)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    // caldav | ics
    .addColumn('type', 'varchar(10)', (col) => col.notNull())
    // CalDAV: the collection URL as given; ICS: a redacted form (`https://host/…`) for display.
    .addColumn('display_url', 'text', (col) => col.notNull())
    // CalDAV: the collection URL; ICS: the sealed feed URL.
    .addColumn('url', 'text', (col) => col.notNull())
    .addColumn('username', 'varchar(255)')
    .addColumn('password_sealed', 'text')
    .addColumn('check_conflicts', 'integer', (col) => col.notNull())
    .addColumn('write_meetings', 'integer', (col) => col.notNull())
    // pending (never synced) | ok | error
    .addColumn('status', 'varchar(10)', (col) => col.notNull())
    .addColumn('last_sync_at', 'bigint')
    .addColumn('last_success_at', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('last_write_error', 'text')
    .addColumn('next_sync_at', 'bigint', (col) => col.notNull())
    .addColumn('sync_lease_until', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('calendars_user_idx').on('calendars').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('calendars_due_idx').on('calendars').column('next_sync_at').execute();

  await db.schema
    .createTable('calendar_event_copies')
    .addColumn('calendar_id', 'varchar(36)', (col) => col.notNull().references('calendars.id').onDelete('cascade'))
    .addColumn('meeting_id', 'varchar(36)', (col) => col.notNull().references('meetings.id').onDelete('cascade'))
    .addColumn('written_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('calendar_event_copies_pk', ['calendar_id', 'meeting_id'])
    .execute();
  await db.schema.createIndex('calendar_event_copies_meeting_idx').on('calendar_event_copies').column('meeting_id').execute();

  await db.schema
    .createTable('calendar_feeds')
    .addColumn('user_id', 'varchar(36)', (col) => col.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'varchar(64)', (col) => col.notNull().unique())
    .addColumn('token_sealed', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('calendar_feeds').execute();
  await db.schema.dropTable('calendar_event_copies').execute();
  await db.schema.dropTable('calendars').execute();
}
