import type { Kysely } from 'kysely';

/**
 * A reminder's send is claimed before anything leaves: the reminder job writes its row in
 * `meeting_reminders` with status `sending` and `claimed_by` = its own outbox job's uuid
 * (insert-or-nothing on the unique `(meeting_id, reminder_key)`), and only the job that holds
 * the claim sends and then turns the row into its outcome (`sent`, `skipped`, `failed`).
 * Recording the outcome alone was too late for an SMS: it is handed to the provider before
 * the record, so two jobs for the same start (a meeting moved away and back) both sent it.
 * The job's uuid, not its outbox claim token, marks the claim, so the job's own retry after
 * a crash may still send, and any other job for the same key may not. `claimed_by` is null
 * on rows recorded before this migration.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('meeting_reminders').addColumn('claimed_by', 'varchar(36)').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('meeting_reminders').where('status', '=', 'sending').execute();
  await db.schema.alterTable('meeting_reminders').dropColumn('claimed_by').execute();
}
