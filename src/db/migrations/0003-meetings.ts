import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('meetings')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('account_id', 'varchar(36)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('topic_id', 'varchar(36)', (col) => col.notNull().references('meeting_topics.id'))
    .addColumn('team_id', 'varchar(36)', (col) => col.references('teams.id').onDelete('set null'))
    .addColumn('host_user_id', 'varchar(36)', (col) => col.notNull().references('users.id'))
    /** All meetings booked by one request share it (and its payment). */
    .addColumn('booking_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('starts_at', 'bigint', (col) => col.notNull())
    .addColumn('ends_at', 'bigint', (col) => col.notNull())
    // confirmed | pending_payment | expired | cancelled
    .addColumn('status', 'varchar(20)', (col) => col.notNull())
    .addColumn('hold_expires_at', 'bigint')
    .addColumn('place', 'varchar(40)', (col) => col.notNull())
    .addColumn('participant_name', 'varchar(200)', (col) => col.notNull())
    .addColumn('participant_email', 'varchar(320)', (col) => col.notNull())
    .addColumn('participant_phone', 'varchar(50)')
    .addColumn('participant_timezone', 'varchar(64)', (col) => col.notNull())
    .addColumn('participant_lang', 'varchar(5)', (col) => col.notNull())
    .addColumn('note', 'text')
    .addColumn('price_variant_id', 'varchar(36)')
    .addColumn('form', 'text', (col) => col.notNull())
    .addColumn('metadata', 'text', (col) => col.notNull())
    .addColumn('invoice', 'text')
    .addColumn('sequence', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .addColumn('cancelled_at', 'bigint')
    .addColumn('cancel_reason', 'text')
    .execute();
  // The slot engine's question: this host's meetings around a time range. Covering, so the
  // busy spans come from the index alone (a month view reads hundreds of them).
  await db.schema.createIndex('meetings_host_start_idx').on('meetings').columns(['host_user_id', 'starts_at', 'ends_at', 'status', 'hold_expires_at', 'topic_id']).execute();
  await db.schema.createIndex('meetings_account_start_idx').on('meetings').columns(['account_id', 'starts_at']).execute();
  await db.schema.createIndex('meetings_booking_idx').on('meetings').column('booking_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('meetings').execute();
}
