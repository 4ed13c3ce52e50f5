import type { ReminderChannel, ReminderOutcome, ReminderRecipient, ReminderRecord } from '../../domain/reminders.js';
import type { DbOrTrx } from '../database.js';

/**
 * Records a reminder's outcome unless one is recorded under its key already; true when this
 * call recorded it. In the transaction that queues the reminder's e-mail and completes its
 * job, the unique key is what lets exactly one of any racing attempts go on.
 */
export async function recordReminderOutcome(db: DbOrTrx, record: ReminderRecord): Promise<boolean> {
  const result = await db
    .insertInto('meeting_reminders')
    .values({
      id: record.uuid,
      meeting_id: record.meetingUuid,
      reminder_key: record.key,
      channel: record.channel,
      recipient: record.recipient,
      minutes_before: record.minutesBefore,
      due_at: record.dueAt,
      status: record.status,
      detail: record.detail?.slice(0, 2000) ?? null,
      recorded_at: record.recordedAt,
    })
    .onConflict((oc) => oc.columns(['meeting_id', 'reminder_key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function hasReminderOutcome(db: DbOrTrx, meetingUuid: string, key: string): Promise<boolean> {
  const row = await db.selectFrom('meeting_reminders').select('id').where('meeting_id', '=', meetingUuid).where('reminder_key', '=', key).executeTakeFirst();
  return row !== undefined;
}

/** A meeting's reminders so far, oldest first. */
export async function findReminderOutcomes(db: DbOrTrx, meetingUuid: string): Promise<ReminderRecord[]> {
  const rows = await db.selectFrom('meeting_reminders').selectAll().where('meeting_id', '=', meetingUuid).orderBy('recorded_at').orderBy('id').execute();
  return rows.map((row) => ({
    uuid: row.id,
    meetingUuid: row.meeting_id,
    key: row.reminder_key,
    channel: row.channel as ReminderChannel,
    recipient: row.recipient as ReminderRecipient,
    minutesBefore: row.minutes_before,
    dueAt: Number(row.due_at),
    status: row.status as ReminderOutcome,
    detail: row.detail,
    recordedAt: Number(row.recorded_at),
  }));
}
