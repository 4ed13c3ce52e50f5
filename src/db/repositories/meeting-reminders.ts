import type { ReminderChannel, ReminderOutcome, ReminderRecipient, ReminderRecord } from '../../domain/reminders.js';
import type { DbOrTrx, Trx } from '../database.js';

/** The status of a reminder's row while a job holds its send; it becomes the outcome when that job records it. */
const SENDING = 'sending';

/** A reminder about to be sent, claimed by the outbox job `jobUuid`. */
export interface ReminderClaim {
  uuid: string;
  meetingUuid: string;
  key: string;
  channel: ReminderChannel;
  recipient: ReminderRecipient;
  minutesBefore: number;
  dueAt: number;
  jobUuid: string;
  claimedAt: number;
}

/**
 * Claims a reminder's send for one outbox job: true when this job may send it, either because
 * this call wrote the `sending` row under the reminder's key or because the job itself claimed
 * it on an earlier attempt (a retry after a crash or a passing failure). False when another job
 * holds it or an outcome is recorded. The unique key makes the insert-or-nothing race-free on
 * SQLite and PostgreSQL and across instances: of two jobs for one key only one gets the row.
 */
export async function claimReminder(db: DbOrTrx, claim: ReminderClaim): Promise<boolean> {
  const result = await db
    .insertInto('meeting_reminders')
    .values({
      id: claim.uuid,
      meeting_id: claim.meetingUuid,
      reminder_key: claim.key,
      channel: claim.channel,
      recipient: claim.recipient,
      minutes_before: claim.minutesBefore,
      due_at: claim.dueAt,
      status: SENDING,
      detail: null,
      recorded_at: claim.claimedAt,
      claimed_by: claim.jobUuid,
    })
    .onConflict((oc) => oc.columns(['meeting_id', 'reminder_key']).doNothing())
    .executeTakeFirst();
  if (Number(result.numInsertedOrUpdatedRows ?? 0n) > 0) return true;
  const row = await db
    .selectFrom('meeting_reminders')
    .select(['status', 'claimed_by'])
    .where('meeting_id', '=', claim.meetingUuid)
    .where('reminder_key', '=', claim.key)
    .executeTakeFirst();
  return row?.status === SENDING && row.claimed_by === claim.jobUuid;
}

/**
 * Turns the claim of job `jobUuid` into the reminder's outcome; true when it did (false when the
 * job holds no claim on that key). In the transaction that queues the reminder's e-mail and
 * completes its job, so the outcome, the e-mail and the job's end commit together.
 */
export async function recordReminderOutcome(
  db: DbOrTrx,
  outcome: { meetingUuid: string; key: string; jobUuid: string; status: ReminderOutcome; detail: string | null; recordedAt: number },
): Promise<boolean> {
  const result = await db
    .updateTable('meeting_reminders')
    .set({ status: outcome.status, detail: outcome.detail?.slice(0, 2000) ?? null, recorded_at: outcome.recordedAt })
    .where('meeting_id', '=', outcome.meetingUuid)
    .where('reminder_key', '=', outcome.key)
    .where('claimed_by', '=', outcome.jobUuid)
    .where('status', '=', SENDING)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Drops job `jobUuid`'s claim on a reminder it will not send (the meeting was cancelled or moved
 * meanwhile), so that a job planned later for the same key (the meeting moved back) may send it.
 */
export async function releaseReminderClaim(db: DbOrTrx, meetingUuid: string, key: string, jobUuid: string): Promise<void> {
  await db
    .deleteFrom('meeting_reminders')
    .where('meeting_id', '=', meetingUuid)
    .where('reminder_key', '=', key)
    .where('claimed_by', '=', jobUuid)
    .where('status', '=', SENDING)
    .execute();
}

/** A meeting's reminders so far, oldest first: their outcomes, not the sends still under way. */
export async function findReminderOutcomes(db: DbOrTrx, meetingUuid: string): Promise<ReminderRecord[]> {
  const rows = await db
    .selectFrom('meeting_reminders')
    .selectAll()
    .where('meeting_id', '=', meetingUuid)
    .where('status', '!=', SENDING)
    .orderBy('recorded_at')
    .orderBy('id')
    .execute();
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

/**
 * Takes the row lock of one SMS destination (`smsNumber`: its HMAC) for the rest of the
 * transaction, writing its row the first time: the count of its sends and the reservation of
 * the next run one at a time on every instance (on SQLite the writer lock does it already).
 * `now` dates the row for the pruning (RETENTION_SMS_NUMBER_LOCK_DAYS).
 */
export async function lockSmsNumber(trx: Trx, smsNumber: string, now: number): Promise<void> {
  await trx
    .insertInto('sms_number_locks')
    .values({ sms_number: smsNumber, locked_at: now })
    .onConflict((oc) => oc.column('sms_number').doUpdateSet((eb) => ({ lock_version: eb('sms_number_locks.lock_version', '+', 1), locked_at: now })))
    .execute();
}

/** The SMS to this destination reserved or sent after `since`, on any meeting of any account (a refused one cost nothing). */
export async function countSmsSends(db: DbOrTrx, smsNumber: string, since: number): Promise<number> {
  const row = await db
    .selectFrom('meeting_reminders')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('sms_number', '=', smsNumber)
    .where('status', 'in', [SENDING, 'sent'])
    .where('recorded_at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Job `jobUuid`'s claim of a reminder as it stands: undefined when the job no longer holds it,
 * else the destination it reserved on an earlier attempt (null: none yet).
 */
export async function findSmsClaim(db: DbOrTrx, claim: { meetingUuid: string; key: string; jobUuid: string }): Promise<string | null | undefined> {
  const row = await db
    .selectFrom('meeting_reminders')
    .select('sms_number')
    .where('meeting_id', '=', claim.meetingUuid)
    .where('reminder_key', '=', claim.key)
    .where('claimed_by', '=', claim.jobUuid)
    .where('status', '=', SENDING)
    .executeTakeFirst();
  return row === undefined ? undefined : row.sms_number;
}

/** Writes the destination on job `jobUuid`'s claim: from now on the send counts against SMS_MAX_PER_NUMBER_PER_DAY. */
export async function reserveSmsSend(db: DbOrTrx, claim: { meetingUuid: string; key: string; jobUuid: string; smsNumber: string }): Promise<void> {
  await db
    .updateTable('meeting_reminders')
    .set({ sms_number: claim.smsNumber })
    .where('meeting_id', '=', claim.meetingUuid)
    .where('reminder_key', '=', claim.key)
    .where('claimed_by', '=', claim.jobUuid)
    .where('status', '=', SENDING)
    .execute();
}
