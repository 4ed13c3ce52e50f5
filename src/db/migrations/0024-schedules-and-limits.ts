import type { Kysely } from 'kysely';

/**
 * Several schedules per host, and limits per period:
 * - `schedules`: a host's named sets of hours beside their default (which stays
 *   `users.availability`, so `…/availability` and today's clients see no change). `availability`
 *   is the JSON of the domain Availability, as in `users.availability`.
 * - `meeting_topics.schedule_id` (individual topics) and `host_schedules` (team topics, JSON
 *   `{ username: scheduleUuid }`): which hours the topic uses; null / `{}`: the default.
 * - `meeting_topics.weekly_limit` / `monthly_limit`: beside `daily_limit`, per host.
 * - `users.limit_daily` / `limit_weekly`: the host's own limits across all topics.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('schedules')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('account_id', 'varchar(36)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(36)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'varchar(200)', (col) => col.notNull())
    .addColumn('availability', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('schedules_user_idx').on('schedules').columns(['user_id', 'created_at']).execute();
  await db.schema.alterTable('meeting_topics').addColumn('weekly_limit', 'integer').execute();
  await db.schema.alterTable('meeting_topics').addColumn('monthly_limit', 'integer').execute();
  await db.schema.alterTable('meeting_topics').addColumn('schedule_id', 'varchar(36)').execute();
  await db.schema
    .alterTable('meeting_topics')
    .addColumn('host_schedules', 'text', (col) => col.notNull().defaultTo('{}'))
    .execute();
  await db.schema.alterTable('users').addColumn('limit_daily', 'integer').execute();
  await db.schema.alterTable('users').addColumn('limit_weekly', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('limit_weekly').execute();
  await db.schema.alterTable('users').dropColumn('limit_daily').execute();
  await db.schema.alterTable('meeting_topics').dropColumn('host_schedules').execute();
  await db.schema.alterTable('meeting_topics').dropColumn('schedule_id').execute();
  await db.schema.alterTable('meeting_topics').dropColumn('monthly_limit').execute();
  await db.schema.alterTable('meeting_topics').dropColumn('weekly_limit').execute();
  await db.schema.dropTable('schedules').execute();
}
