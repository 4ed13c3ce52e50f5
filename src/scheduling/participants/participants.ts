import { type Actor, OPERATOR_ACTOR } from '../../domain/audit.js';
import { erasedMeeting } from '../../domain/erasure.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../domain/errors.js';
import type { MeetingEventData } from '../../domain/events.js';
import { meetingAt, meetingHostUuids, statusAt, type Meeting } from '../../domain/meeting.js';
import type { Payment } from '../../domain/payment.js';
import { isEmailAddress } from '../../domain/account.js';
import type { DbOrTrx, Trx } from '../../db/database.js';
import { findAccount } from '../../db/repositories/accounts.js';
import { bumpCalendarVersions } from '../../db/repositories/busy-time.js';
import { findMeetingsOfParticipant, lockHost, markMeetingCancelled, writeErasedMeetings } from '../../db/repositories/meetings.js';
import {
  deleteMessageJobs,
  findCalendarCopies,
  findSentEmailsTo,
  findSentSmsReminders,
  scrubEventsOfMeetings,
  scrubIdempotentResponses,
  scrubWebhookBodies,
  type SentMessageJob,
} from '../../db/repositories/participant-data.js';
import { findPaymentsOfBookings } from '../../db/repositories/payments.js';
import { isAdminOfAnyTeam } from '../../db/repositories/teams.js';
import { inTransaction } from '../../db/transaction.js';
import { newId } from '../../ids.js';
import { CALENDAR_WRITE_JOB_KIND, enqueueJobs, type NewJob } from '../../outbox/job-kinds.js';
import { actorOf, recordAuditEvent } from '../audit/record-audit.js';
import type { Principal, UseCaseContext } from '../context.js';
import { refundMeetingShare } from '../payments/refunds.js';
import { recordEvents } from '../record-events.js';

/** A message sent to the participant about one meeting, as the export lists it. */
export interface SentMessage {
  /** `confirmed` | `rescheduled` | `located` | `cancelled` (the invitation and its updates), `reminder`, `payment-pending` | `payment-released` | `payment-refunded`. */
  kind: string;
  channel: 'email' | 'sms';
  sentAt: number;
}

export interface ExportedMeeting {
  meeting: Meeting;
  payment: Payment | undefined;
  messages: SentMessage[];
}

export interface ParticipantExport {
  email: string;
  exportedAt: number;
  meetings: ExportedMeeting[];
}

/** Who asks: an admin of any team of the account by key, or the operator by the CLI (any account it names). */
export type DataActor = Principal | { operator: true; accountUuid: string };

/** Who the audit log names for a data request: the operator at the CLI, or the admin by their key or session. */
function auditActorOf(actor: DataActor): Actor {
  return 'operator' in actor ? OPERATOR_ACTOR : actorOf(actor);
}

/**
 * `POST /participants/export`: everything the account keeps about the participant with
 * this e-mail (compared without regard to case): each of their meetings, any status, past
 * and future, as `GET /meetings/{uuid}` shows it, with its booking's payment and the
 * messages sent to them about it that termin still records (see findSentEmailsTo: e-mails for
 * the 30 days the outbox keeps them, SMS reminders for as long as the meeting).
 */
export async function exportParticipant(ctx: Pick<UseCaseContext, 'db' | 'now'>, actor: DataActor, email: string): Promise<ParticipantExport> {
  const address = checkedEmail(email);
  await requireDataAdmin(ctx.db, actor);
  const now = ctx.now();
  const meetings = (await findMeetingsOfParticipant(ctx.db, actor.accountUuid, address)).map((meeting) => meetingAt(meeting, now));
  const payments = await findPaymentsOfBookings(ctx.db, [...new Set(meetings.map((meeting) => meeting.bookingUuid))]);
  const messages = sentMessagesByMeeting(
    meetings,
    await findSentEmailsTo(ctx.db, address),
    await findSentSmsReminders(
      ctx.db,
      meetings.map((meeting) => meeting.uuid),
    ),
  );
  // Who read a participant's data, and how much of it: never their e-mail.
  await recordAuditEvent(ctx.db, {
    accountUuid: actor.accountUuid,
    action: 'participant.exported',
    actor: auditActorOf(actor),
    target: { type: 'account', uuid: actor.accountUuid },
    details: { meetings: meetings.length },
    now,
  });
  return {
    email: address,
    exportedAt: now,
    meetings: meetings.map((meeting) => ({ meeting, payment: payments.get(meeting.bookingUuid), messages: messages.get(meeting.uuid) ?? [] })),
  };
}

/** What an erasure changed: the place where an audit record of it belongs, and what it would say. */
export interface ErasureResult {
  /** The meetings whose participant's data was erased by this call. */
  erased: string[];
  /** Those of them that were still to come, cancelled first. */
  cancelled: string[];
  /** Messages and reminders not yet sent that were dropped. */
  droppedMessages: number;
  /** The e-mails (sent or not) whose copies the mail transport may keep: forgotten after commit. */
  forgottenEmails: string[];
}

/**
 * `POST /participants/erase`: the participant with this e-mail is forgotten by the account,
 * in one transaction. Each of their meetings still to come is cancelled first, as a cancel
 * would (its slot freed, its paid share refunded, `meeting.cancelled` recorded, so the host
 * is told and webhooks hear of it), but recorded already erased, so the participant gets no
 * message; then every meeting of theirs is erased (erasedMeeting), and so are the copies:
 * the meetings' events, webhook bodies kept or still to send, idempotent responses, message
 * jobs (unsent ones dropped, sent ones forgotten), and the meetings written into hosts'
 * calendars (rewritten erased; a cancelled one is removed by its cancellation). Webhooks get
 * `participant.erased` `{ meetings }`. Idempotent: a second call finds no meeting with that
 * e-mail (an erased one has none) and answers `erased: 0`. After commit, the copies the mail
 * transport keeps of those messages (the `.eml` files written without SMTP) are deleted.
 */
export async function eraseParticipant(ctx: Pick<UseCaseContext, 'db' | 'now' | 'mailer'>, actor: DataActor, email: string): Promise<ErasureResult> {
  const address = checkedEmail(email);
  const result = await inTransaction(ctx.db, async (trx): Promise<ErasureResult> => {
    await requireDataAdmin(trx, actor);
    const now = ctx.now();
    const found = await findMeetingsOfParticipant(trx, actor.accountUuid, address);
    const by = auditActorOf(actor);
    const target = { type: 'account' as const, uuid: actor.accountUuid };
    if (found.length === 0) {
      // Asked and done, with nothing left to erase: the request is on record all the same (a business may have to show it).
      await recordAuditEvent(trx, { accountUuid: actor.accountUuid, action: 'participant.erased', actor: by, target, details: { meetings: [], cancelled: [] }, now });
      return { erased: [], cancelled: [], droppedMessages: 0, forgottenEmails: [] };
    }
    const cancelled = await cancelComingMeetings(trx, actor.accountUuid, found, now);
    // Read again: the cancellations changed them.
    const meetings = await findMeetingsOfParticipant(trx, actor.accountUuid, address);
    const result = await eraseMeetings(trx, actor.accountUuid, meetings, now, { emails: [address], keepCalendarCopiesOf: new Set(cancelled) });
    // In the same transaction: each cancellation by whom, then the erasure (meeting uuids, never the e-mail).
    for (const meeting of found.filter((one) => cancelled.includes(one.uuid))) {
      const details = { previousStatus: statusAt(meeting, now), hostUuid: meeting.hostUuid, reason: 'participant erased' };
      await recordAuditEvent(trx, { accountUuid: actor.accountUuid, action: 'meeting.cancelled', actor: by, target: { type: 'meeting', uuid: meeting.uuid }, details, now });
    }
    const details = { meetings: result.erased, cancelled };
    await recordAuditEvent(trx, { accountUuid: actor.accountUuid, action: 'participant.erased', actor: by, target, details, now });
    return { ...result, cancelled };
  });
  // After commit (a file deleted cannot be rolled back): the copies the mail transport kept of the messages forgotten.
  await ctx.mailer.forget?.(result.forgottenEmails);
  return result;
}

/**
 * Cancels the participant's meetings still to come (not started, and live), each under its
 * host's lock (taken in uuid order, as bookings take them), recording `meeting.cancelled`
 * with the meeting already erased: the host's cancellation goes out, the participant's has
 * no address to go to.
 */
async function cancelComingMeetings(trx: Trx, accountUuid: string, meetings: Meeting[], now: number): Promise<string[]> {
  const coming = meetings.filter((meeting) => meeting.start > now && ['confirmed', 'pending_payment', 'pending_approval'].includes(statusAt(meeting, now)));
  if (coming.length === 0) return [];
  for (const host of [...new Set(coming.map((meeting) => meeting.hostUuid))].sort()) await lockHost(trx, host);
  const cancelled: string[] = [];
  for (const meeting of coming) {
    const previousStatus = statusAt(meeting, now);
    if (!(await markMeetingCancelled(trx, meeting.uuid, now, null))) continue;
    const after: Meeting = erasedMeeting({ ...meeting, status: 'cancelled', cancelledAt: now, cancelReason: null, updatedAt: now, sequence: meeting.sequence + 1 }, now);
    await bumpCalendarVersions(trx, meetingHostUuids(meeting));
    const data: MeetingEventData = { meeting: after, previousStatus };
    await recordEvents(trx, [{ accountUuid, type: 'meeting.cancelled', subjectUuid: meeting.uuid, data: { ...data } }], now);
    // Their money for a meeting that will not happen goes back, as any cancel does.
    if (previousStatus === 'confirmed') await refundMeetingShare(trx, meeting, now);
    cancelled.push(meeting.uuid);
  }
  return cancelled;
}

/**
 * Erases these meetings and every copy of their personal data, in the caller's transaction,
 * and records `participant.erased` for those it changed (none already erased count). Shared
 * by the erasure on request and the retention. `emails`: the addresses asked about, whose
 * messages go whatever meeting they name.
 */
export async function eraseMeetings(
  trx: DbOrTrx,
  accountUuid: string,
  meetings: readonly Meeting[],
  now: number,
  options: { emails?: readonly string[]; keepCalendarCopiesOf?: ReadonlySet<string> } = {},
): Promise<Omit<ErasureResult, 'cancelled'>> {
  const erased = await writeErasedMeetings(
    trx,
    meetings.map((meeting) => erasedMeeting(meeting, now)),
    now,
  );
  if (erased.length === 0) return { erased: [], droppedMessages: 0, forgottenEmails: [] };
  const changed = new Set(erased);
  const mine = meetings.filter((meeting) => changed.has(meeting.uuid));
  // No message about a meeting is queued before it was booked.
  const since = Math.min(...mine.map((meeting) => meeting.createdAt));
  const { eventUuids } = await scrubEventsOfMeetings(trx, erased);
  await scrubWebhookBodies(trx, accountUuid, eventUuids, erased);
  await scrubIdempotentResponses(trx, accountUuid, erased, since);
  const dropped = await deleteMessageJobs(
    trx,
    {
      meetingUuids: erased,
      emails: options.emails ?? [],
      paymentTo: mine.filter((meeting) => meeting.participant.email !== '').map((meeting) => ({ email: meeting.participant.email, start: meeting.start })),
    },
    since,
  );
  // The hosts' calendars hold the meeting with the participant's name: written over with the erased meeting (a cancelled one is deleted there by its cancellation).
  const copies = (await findCalendarCopies(trx, erased)).filter((copy) => !options.keepCalendarCopiesOf?.has(copy.meetingUuid));
  const writes: NewJob[] = copies.map((copy) => ({ uuid: newId(now), kind: CALENDAR_WRITE_JOB_KIND, payload: copy }));
  await enqueueJobs(trx, writes, now);
  await recordEvents(trx, [{ accountUuid, type: 'participant.erased', subjectUuid: newId(now), data: { meetings: erased } }], now);
  return { erased, droppedMessages: dropped.pending, forgottenEmails: dropped.emailUuids };
}

function checkedEmail(email: string): string {
  const trimmed = email.trim();
  if (!isEmailAddress(trimmed)) throw new ValidationError([{ path: '/email', message: 'must be an e-mail address' }]);
  return trimmed;
}

/** An admin of any team of the account (403 for other keys); the operator always. */
async function requireDataAdmin(db: DbOrTrx, actor: DataActor): Promise<void> {
  if ('operator' in actor) {
    if (!(await findAccount(db, actor.accountUuid))) throw new NotFoundError('account');
    return;
  }
  if (!(await isAdminOfAnyTeam(db, actor.userUuid))) throw new ForbiddenError("Only an admin of one of the account's teams may export or erase a participant's data");
}

const PAYMENT_MESSAGE_KINDS: Record<string, string> = { pending: 'payment-pending', released: 'payment-released', refunded: 'payment-refunded' };

/**
 * The messages sent to the participant, by meeting: a booking message names its meeting; a
 * reminder names it in its manage link; a payment e-mail names only its meetings' times, so
 * it is listed with each of the participant's meetings at one of them.
 */
function sentMessagesByMeeting(
  meetings: readonly Meeting[],
  emails: readonly SentMessageJob[],
  sms: readonly { meetingUuid: string; sentAt: number }[],
): Map<string, SentMessage[]> {
  const byMeeting = new Map<string, SentMessage[]>();
  const add = (meetingUuid: string, message: SentMessage) => byMeeting.set(meetingUuid, [...(byMeeting.get(meetingUuid) ?? []), message]);
  for (const { kind, payload, sentAt } of emails) {
    if (kind === 'payment-email') {
      const starts = new Set(((payload.meetings ?? []) as { start?: unknown }[]).map((meeting) => meeting.start));
      const event = PAYMENT_MESSAGE_KINDS[String(payload.event)] ?? 'payment';
      for (const meeting of meetings) if (starts.has(meeting.start)) add(meeting.uuid, { kind: event, channel: 'email', sentAt });
      continue;
    }
    const about = (payload.meeting as { uuid?: unknown } | undefined)?.uuid;
    if (typeof about === 'string') {
      add(about, { kind: String(payload.event), channel: 'email', sentAt });
      continue;
    }
    const text = typeof payload.text === 'string' ? payload.text : '';
    const meeting = meetings.find((candidate) => text.includes(candidate.uuid));
    if (meeting) add(meeting.uuid, { kind: 'reminder', channel: 'email', sentAt });
  }
  for (const { meetingUuid, sentAt } of sms) add(meetingUuid, { kind: 'reminder', channel: 'sms', sentAt });
  for (const list of byMeeting.values()) list.sort((a, b) => a.sentAt - b.sentAt);
  return byMeeting;
}
