import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('meeting_topics')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('account_id', 'varchar(36)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('team_id', 'varchar(36)', (col) => col.references('teams.id').onDelete('cascade'))
    .addColumn('created_by', 'varchar(36)', (col) => col.notNull().references('users.id'))
    .addColumn('name', 'varchar(200)', (col) => col.notNull())
    .addColumn('duration_minutes', 'integer', (col) => col.notNull())
    .addColumn('slot_interval_minutes', 'integer', (col) => col.notNull())
    .addColumn('buffer_before_minutes', 'integer', (col) => col.notNull())
    .addColumn('buffer_after_minutes', 'integer', (col) => col.notNull())
    .addColumn('minimum_notice_minutes', 'integer', (col) => col.notNull())
    .addColumn('booking_window_days', 'integer', (col) => col.notNull())
    .addColumn('daily_limit', 'integer')
    .addColumn('places', 'text', (col) => col.notNull())
    .addColumn('phone_required', 'integer', (col) => col.notNull())
    .addColumn('price_amount', 'integer')
    .addColumn('price_currency', 'varchar(3)')
    // JSON: [{ uuid, name, price: { amount, currency } }]
    .addColumn('price_variants', 'text', (col) => col.notNull())
    // JSON: [{ key, label, required }]
    .addColumn('form', 'text', (col) => col.notNull())
    // 1: a team topic hosted by whoever is in the team now (no rows in meeting_topic_hosts).
    .addColumn('all_team_members', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    // Bumped by every update: readers that keep a parsed topic compare it.
    .addColumn('version', 'integer', (col) => col.notNull().defaultTo(0))
    // Deleted topics stay, so their meetings keep their buffers and their history.
    .addColumn('deleted_at', 'bigint')
    .execute();
  await db.schema.createIndex('meeting_topics_account_idx').on('meeting_topics').columns(['account_id', 'created_at']).execute();

  await db.schema
    .createTable('meeting_topic_hosts')
    .addColumn('topic_id', 'varchar(36)', (col) => col.notNull().references('meeting_topics.id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(36)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('position', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('meeting_topic_hosts_pk', ['topic_id', 'user_id'])
    .execute();
  await db.schema.createIndex('meeting_topic_hosts_user_idx').on('meeting_topic_hosts').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('meeting_topic_hosts').execute();
  await db.schema.dropTable('meeting_topics').execute();
}
