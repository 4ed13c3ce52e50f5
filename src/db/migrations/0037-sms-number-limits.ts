import type { Kysely } from 'kysely';

/**
 * SMS_MAX_PER_NUMBER_PER_DAY (issue 38, SMS pumping): each SMS reminder's row in
 * `meeting_reminders` names its destination in `sms_number` before it is handed to the provider,
 * so the SMS to one number in the last 24 hours are counted (those `sending` and `sent`; a refused
 * one cost nothing). The column holds an HMAC of the E.164 number under the server's secret key,
 * not the number: the participant's phone stays only on the meeting, where erasure finds it.
 * `sms_number_locks` has one row per number ever texted, whose row lock serialises the count and
 * the reservation of one number's sends across instances (SQLite's writer lock does it there).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('meeting_reminders').addColumn('sms_number', 'varchar(64)').execute();
  await db.schema.createIndex('meeting_reminders_sms_number_idx').on('meeting_reminders').columns(['sms_number', 'recorded_at']).execute();
  await db.schema
    .createTable('sms_number_locks')
    .addColumn('sms_number', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('lock_version', 'bigint', (col) => col.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sms_number_locks').execute();
  await db.schema.dropIndex('meeting_reminders_sms_number_idx').execute();
  await db.schema.alterTable('meeting_reminders').dropColumn('sms_number').execute();
}
