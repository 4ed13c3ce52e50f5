import { scrubMeetingCopies } from '../../domain/erasure.js';
import type { DbOrTrx } from '../database.js';

/**
 * Where a participant's personal data is copied besides their meetings' rows, and how each
 * copy is read or erased. Stored JSON is parsed and searched here, not with SQL on JSON (the
 * two dialects differ); every read is bounded by an index or by time.
 */

/** The outbox kinds whose payloads hold a message to someone, or a reminder of a meeting. */
const MESSAGE_JOB_KINDS = ['email', 'payment-email', 'reminder'] as const;

/**
 * Erases the meetings' copies in their events' data (the events are the meetings' history;
 * webhooks and e-mails are made from them): the event uuids of those meetings, to find
 * their webhook deliveries.
 */
export async function scrubEventsOfMeetings(db: DbOrTrx, meetingUuids: readonly string[]): Promise<{ eventUuids: string[]; scrubbed: number }> {
  if (meetingUuids.length === 0) return { eventUuids: [], scrubbed: 0 };
  const uuids = new Set(meetingUuids);
  const rows = await db
    .selectFrom('events')
    .select(['id', 'data'])
    .where('subject_id', 'in', [...meetingUuids])
    .execute();
  let scrubbed = 0;
  for (const row of rows) {
    const data: unknown = JSON.parse(row.data);
    if (!scrubMeetingCopies(data, uuids, '')) continue;
    await db
      .updateTable('events')
      .set({ data: JSON.stringify(data) })
      .where('id', '=', row.id)
      .execute();
    scrubbed += 1;
  }
  return { eventUuids: rows.map((row) => row.id), scrubbed };
}

/**
 * Erases the meetings' records in the bodies of the account's webhook deliveries of those
 * events, sent or still to send (a delivery still pending then sends the erased record).
 */
export async function scrubWebhookBodies(db: DbOrTrx, accountUuid: string, eventUuids: readonly string[], meetingUuids: readonly string[]): Promise<number> {
  if (eventUuids.length === 0) return 0;
  const uuids = new Set(meetingUuids);
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select(['id', 'body'])
    // By subscription and event: the index of webhook_deliveries_event_uq serves it.
    .where('subscription_id', 'in', (eb) => eb.selectFrom('webhook_subscriptions').select('id').where('account_id', '=', accountUuid))
    .where('event_id', 'in', [...eventUuids])
    .execute();
  let scrubbed = 0;
  for (const row of rows) {
    const body: unknown = JSON.parse(row.body);
    if (!scrubMeetingCopies(body, uuids, null)) continue;
    await db
      .updateTable('webhook_deliveries')
      .set({ body: JSON.stringify(body) })
      .where('id', '=', row.id)
      .execute();
    scrubbed += 1;
  }
  return scrubbed;
}

/**
 * Deletes the message jobs about the meetings or to the addresses, queued since `since` (no
 * message about a meeting is queued before it was booked): e-mails not yet sent are dropped,
 * and sent ones (kept as the outbox's history for 30 days) forgotten; reminder jobs of the
 * meetings go too. A message is about a meeting when its payload names the meeting's uuid
 * (booking messages, and reminders through the manage link); a payment e-mail names none, so
 * it goes when it is to one of `emails`, or, with `paymentTo`, to that address about a
 * meeting at one of those starts. Returns how many were still pending.
 */
export async function deleteMessageJobs(
  db: DbOrTrx,
  match: { meetingUuids: readonly string[]; emails: readonly string[]; paymentTo?: readonly { email: string; start: number }[] },
  since: number,
): Promise<{ pending: number; deleted: number; emailUuids: string[] }> {
  const uuids = match.meetingUuids;
  const emails = new Set(match.emails.map((email) => email.toLowerCase()));
  const paymentTo = new Set((match.paymentTo ?? []).map((item) => `${item.email.toLowerCase()} ${item.start}`));
  if (uuids.length === 0 && emails.size === 0) return { pending: 0, deleted: 0, emailUuids: [] };
  const rows = await db
    .selectFrom('outbox')
    .select(['id', 'kind', 'status', 'payload'])
    .where('kind', 'in', [...MESSAGE_JOB_KINDS])
    .where('created_at', '>=', since)
    .execute();
  const doomed = rows.filter((row) => {
    if (uuids.some((uuid) => row.payload.includes(uuid))) return true;
    if (row.kind === 'reminder') return false;
    const payload = JSON.parse(row.payload) as { to?: { email?: unknown }; meetings?: { start?: unknown }[] };
    const to = typeof payload.to?.email === 'string' ? payload.to.email.toLowerCase() : null;
    if (to === null) return false;
    if (emails.has(to)) return true;
    return row.kind === 'payment-email' && (payload.meetings ?? []).some((meeting) => paymentTo.has(`${to} ${String(meeting.start)}`));
  });
  for (let i = 0; i < doomed.length; i += 500) {
    await db
      .deleteFrom('outbox')
      .where(
        'id',
        'in',
        doomed.slice(i, i + 500).map((row) => row.id),
      )
      .execute();
  }
  return {
    pending: doomed.filter((row) => row.status === 'pending').length,
    deleted: doomed.length,
    emailUuids: doomed.filter((row) => row.kind !== 'reminder').map((row) => row.id),
  };
}

/**
 * Erases the meetings' records in the account's stored idempotent responses since `since`
 * (kept 24 hours, so a retried booking replays its answer): the replay then shows them erased.
 */
export async function scrubIdempotentResponses(db: DbOrTrx, accountUuid: string, meetingUuids: readonly string[], since: number): Promise<number> {
  if (meetingUuids.length === 0) return 0;
  const uuids = new Set(meetingUuids);
  const rows = await db.selectFrom('idempotency_keys').select(['key', 'response_body']).where('account_id', '=', accountUuid).where('created_at', '>=', since).execute();
  let scrubbed = 0;
  for (const row of rows) {
    if (!meetingUuids.some((uuid) => row.response_body.includes(uuid))) continue;
    let body: unknown;
    try {
      body = JSON.parse(row.response_body);
    } catch {
      continue;
    }
    if (!scrubMeetingCopies(body, uuids, null)) continue;
    await db
      .updateTable('idempotency_keys')
      .set({ response_body: JSON.stringify(body) })
      .where('account_id', '=', accountUuid)
      .where('key', '=', row.key)
      .execute();
    scrubbed += 1;
  }
  return scrubbed;
}

/** The calendars holding a copy of each meeting (written there by termin), to write the erased meeting over it. */
export async function findCalendarCopies(db: DbOrTrx, meetingUuids: readonly string[]): Promise<{ calendarUuid: string; accountUuid: string; meetingUuid: string }[]> {
  if (meetingUuids.length === 0) return [];
  return db
    .selectFrom('calendar_event_copies')
    .innerJoin('calendars', 'calendars.id', 'calendar_event_copies.calendar_id')
    .select(['calendar_event_copies.calendar_id as calendarUuid', 'calendars.account_id as accountUuid', 'calendar_event_copies.meeting_id as meetingUuid'])
    .where('calendar_event_copies.meeting_id', 'in', [...meetingUuids])
    .execute();
}

/** A message the outbox sent (its job done), as kept until the outbox forgets it 30 days later. */
export interface SentMessageJob {
  kind: string;
  payload: Record<string, unknown>;
  sentAt: number;
}

/** The e-mails sent to this address (compared without regard to case) that the outbox still keeps. */
export async function findSentEmailsTo(db: DbOrTrx, email: string): Promise<SentMessageJob[]> {
  const lower = email.toLowerCase();
  // `_` and `%` in an address match more than themselves here: the recipient is compared exactly below.
  const pattern = `%${lower}%`;
  const rows = await db
    .selectFrom('outbox')
    .select(['kind', 'payload', 'done_at'])
    .where('kind', 'in', ['email', 'payment-email'])
    .where('status', '=', 'done')
    .where((eb) => eb(eb.fn('lower', ['payload']), 'like', eb.val(pattern)))
    .orderBy('done_at')
    .execute();
  const sent: SentMessageJob[] = [];
  for (const row of rows) {
    const payload = JSON.parse(row.payload) as Record<string, unknown>;
    const to = (payload.to as { email?: unknown } | undefined)?.email;
    if (typeof to === 'string' && to.toLowerCase() === lower && row.done_at !== null) sent.push({ kind: row.kind, payload, sentAt: row.done_at });
  }
  return sent;
}

/** The SMS reminders sent to the participants of these meetings (an e-mail reminder is an e-mail the outbox keeps). */
export async function findSentSmsReminders(db: DbOrTrx, meetingUuids: readonly string[]): Promise<{ meetingUuid: string; sentAt: number }[]> {
  if (meetingUuids.length === 0) return [];
  return db
    .selectFrom('meeting_reminders')
    .select(['meeting_id as meetingUuid', 'recorded_at as sentAt'])
    .where('meeting_id', 'in', [...meetingUuids])
    .where('channel', '=', 'sms')
    .where('recipient', '=', 'participant')
    .where('status', '=', 'sent')
    .orderBy('recorded_at')
    .execute();
}
