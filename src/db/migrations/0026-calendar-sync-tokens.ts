import type { Kysely } from 'kysely';

/**
 * Google and Microsoft calendars sync incrementally: the provider says what changed since the
 * last read (Google's `nextSyncToken`, Graph's `@odata.deltaLink`), so termin keeps what it has
 * read so far instead of reading the whole booking window every few minutes.
 * - `calendars.sync_state`: the adapter's own record of where the next read starts (its token,
 *   the window and zone it was read for); null until the first full read, and after a reset.
 * - `calendar_remote_events`: the busy span of each remote event the reads have seen, by the
 *   provider's id, so a change or a removal replaces just that event's span.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('calendars').addColumn('sync_state', 'text').execute();
  await db.schema
    .createTable('calendar_remote_events')
    .addColumn('calendar_id', 'varchar(36)', (col) => col.notNull().references('calendars.id').onDelete('cascade'))
    .addColumn('remote_id', 'varchar(1024)', (col) => col.notNull())
    .addColumn('starts_at', 'bigint', (col) => col.notNull())
    .addColumn('ends_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('calendar_remote_events_pk', ['calendar_id', 'remote_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('calendar_remote_events').execute();
  await db.schema.alterTable('calendars').dropColumn('sync_state').execute();
}
