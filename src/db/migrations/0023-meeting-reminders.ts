import type { Kysely } from 'kysely';

/**
 * Reminders before a meeting:
 * - `meeting_topics.reminders`: JSON array of `{ minutesBefore, channel, to }` (at most 5).
 * - `meeting_reminders`: what became of each reminder of a meeting, one row per reminder and
 *   start time (`reminder_key`): `sent`, `skipped` (picked up after the start, or no phone)
 *   or `failed` (the SMS provider refused it to the last retry). The unique key is what makes
 *   a reminder go out once, whatever instances and retries reach its job: the row is written
 *   in the transaction that completes the job and queues the e-mail.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('meeting_topics')
    .addColumn('reminders', 'text', (col) => col.notNull().defaultTo('[]'))
    .execute();
  await db.schema
    .createTable('meeting_reminders')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('meeting_id', 'varchar(36)', (col) => col.notNull().references('meetings.id').onDelete('cascade'))
    .addColumn('reminder_key', 'varchar(120)', (col) => col.notNull())
    .addColumn('channel', 'varchar(12)', (col) => col.notNull())
    .addColumn('recipient', 'varchar(12)', (col) => col.notNull())
    .addColumn('minutes_before', 'integer', (col) => col.notNull())
    .addColumn('due_at', 'bigint', (col) => col.notNull())
    .addColumn('status', 'varchar(12)', (col) => col.notNull())
    .addColumn('detail', 'text')
    .addColumn('recorded_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('meeting_reminders_key_idx').on('meeting_reminders').columns(['meeting_id', 'reminder_key']).unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('meeting_reminders').execute();
  await db.schema.alterTable('meeting_topics').dropColumn('reminders').execute();
}
