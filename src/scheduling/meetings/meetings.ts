import { actorOf, recordAuditEvent } from '../audit/record-audit.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../domain/errors.js';
import { meetingAt, meetingHostUuids, statusAt, type Meeting, type MeetingStatus, type NoShow } from '../../domain/meeting.js';
import type { DbOrTrx } from '../../db/database.js';
import { bumpCalendarVersions } from '../../db/repositories/busy-time.js';
import { findLapsedHolds, findMeeting, lockHost, markBookingExpired, markMeetingCancelled, selectMeetingsPage } from '../../db/repositories/meetings.js';
import { findPaymentsOfBookings, markPaymentExpired } from '../../db/repositories/payments.js';
import { isAdminOfTeam } from '../../db/repositories/teams.js';
import { findActiveUserByUsername, findUserIdsManagedBy } from '../../db/repositories/users.js';
import { inTransaction } from '../../db/transaction.js';
import type { Principal, UseCaseContext } from '../context.js';
import type { MeetingEventData } from '../../domain/events.js';
import { recordEvents } from '../record-events.js';
import { paymentRecord } from '../../domain/representations.js';
import { refundMeetingShare } from '../payments/refunds.js';
import { declineLapsedRequests } from './approval.js';

export interface MeetingListInput {
  username?: string | undefined;
  team?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  status?: MeetingStatus[] | undefined;
  noShow?: NoShow | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
  /** Latest start first (the web app's "Past"); the cursor then pages towards older ones. */
  newestFirst?: boolean | undefined;
}

/** The participant, through the manage link of their confirmation: may act on that one meeting only. */
export interface ParticipantActor {
  accountUuid: string;
  participantOf: string;
}

/** Who may change a meeting: a key's principal, or the participant (see requireMeetingManager). */
export type MeetingActor = Principal | ParticipantActor;

export interface MeetingPage {
  meetings: Meeting[];
  nextCursor: string | null;
}

/** The account's meetings by start time, a page at a time; the cursor is opaque to clients. */
export async function listMeetings(ctx: Pick<UseCaseContext, 'now' | 'db'>, principal: Principal, input: MeetingListInput): Promise<MeetingPage> {
  const limit = input.limit ?? 50;
  const after = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
  let hostUuid: string | undefined;
  if (input.username !== undefined) {
    const host = await findActiveUserByUsername(ctx.db, principal.accountUuid, input.username);
    if (!host) return { meetings: [], nextCursor: null };
    hostUuid = host.uuid;
  }
  const now = ctx.now();
  const rows = await selectMeetingsPage(ctx.db, {
    accountUuid: principal.accountUuid,
    hostUuid,
    teamUuid: input.team,
    from: input.from === undefined ? undefined : Date.parse(input.from),
    to: input.to === undefined ? undefined : Date.parse(input.to),
    statuses: input.status,
    noShow: input.noShow,
    now,
    after,
    newestFirst: input.newestFirst,
    limit: limit + 1,
  });
  const page = rows.slice(0, limit).map((meeting) => meetingAt(meeting, now));
  const last = page[page.length - 1];
  return { meetings: page, nextCursor: rows.length > limit && last ? encodeCursor(last) : null };
}

export async function getMeeting(ctx: Pick<UseCaseContext, 'now' | 'db'>, principal: Principal, meetingUuid: string): Promise<Meeting> {
  const meeting = await findMeeting(ctx.db, principal.accountUuid, meetingUuid);
  if (!meeting) throw new NotFoundError('meeting');
  return meetingAt(meeting, ctx.now());
}

/**
 * Cancels a meeting and frees its slot: by its host, an admin of the meeting's team or of
 * one of the host's teams, or the key that booked it. Cancelling again, or a meeting whose
 * hold expired, changes nothing and returns it as it is. The state change is conditional,
 * so of any number of concurrent cancels exactly one records `meeting.cancelled` (and one
 * set of messages: a CANCEL for a confirmed meeting, nothing for one never confirmed).
 */
export async function cancelMeeting(
  ctx: Pick<UseCaseContext, 'now' | 'db'>,
  principal: MeetingActor,
  meetingUuid: string,
  reason: string | undefined,
  options: { refund?: boolean | undefined } = {},
): Promise<Meeting> {
  return inTransaction(ctx.db, async (trx) => {
    const now = ctx.now();
    const found = await findMeeting(trx, principal.accountUuid, meetingUuid);
    if (!found) throw new NotFoundError('meeting');
    await requireMeetingManager(trx, principal, found);
    // Under the host's lock nothing else changes the meeting (a payment, a reschedule): read it again.
    await lockHost(trx, found.hostUuid);
    const meeting = (await findMeeting(trx, principal.accountUuid, meetingUuid))!;
    const previousStatus = statusAt(meeting, now);
    const cancelReason = reason?.trim() || null;
    if (!(await markMeetingCancelled(trx, meeting.uuid, now, cancelReason))) return { ...meeting, status: previousStatus };
    const cancelled: Meeting = { ...meeting, status: 'cancelled', cancelledAt: now, cancelReason, updatedAt: now, sequence: meeting.sequence + 1 };
    await bumpCalendarVersions(trx, meetingHostUuids(meeting));
    const data: MeetingEventData = { meeting: cancelled, previousStatus };
    await recordEvents(trx, [{ accountUuid: meeting.accountUuid, type: 'meeting.cancelled', subjectUuid: meeting.uuid, data: { ...data } }], now);
    // Who cancelled, and from what; not the reason, which is free text (a participant may write anything).
    const details = { previousStatus, hostUuid: meeting.hostUuid };
    await recordAuditEvent(trx, {
      accountUuid: meeting.accountUuid,
      action: 'meeting.cancelled',
      actor: actorOf(principal),
      target: { type: 'meeting', uuid: meeting.uuid },
      details,
      now,
    });
    // A paid, confirmed meeting gets its share of the payment back unless the caller says not to.
    if (previousStatus === 'confirmed' && options.refund !== false) await refundMeetingShare(trx, meeting, now);
    return cancelled;
  });
}

/** The host, the key that booked the meeting, or an admin of its team or of one of the host's teams (or its participant, by the manage link). */
export async function requireMeetingManager(db: DbOrTrx, principal: MeetingActor, meeting: Meeting): Promise<void> {
  if ('participantOf' in principal) {
    if (principal.participantOf === meeting.uuid) return;
    throw new ForbiddenError('The manage link is for another meeting');
  }
  // Any host a collective meeting holds is its host too.
  if (meetingHostUuids(meeting).includes(principal.userUuid) || principal.keyUuid === meeting.bookedByKeyUuid) return;
  if (meeting.teamUuid !== null && (await isAdminOfTeam(db, meeting.teamUuid, principal.userUuid))) return;
  if ((await findUserIdsManagedBy(db, principal.userUuid)).has(meeting.hostUuid)) return;
  throw new ForbiddenError("Only the meeting's host, an admin of its team or of the host's teams, or the key that booked it may do this");
}

/**
 * Housekeeping run in the background: lapsed payment holds become `expired` (recording
 * `meeting.expired` for each meeting), requests left undecided past their deadline
 * `declined` (`meeting.declined`, "not approved in time"). What grows with traffic (finished
 * jobs, idempotency records and the rest) is pruned apart from this, in batches, on one
 * instance at a time (src/scheduling/maintenance/prune.ts).
 */
export async function runMaintenance(ctx: Pick<UseCaseContext, 'publicUrl' | 'now' | 'db'>): Promise<{ expired: number }> {
  const now = ctx.now();
  const expired = await expireLapsedHolds(ctx, now);
  await declineLapsedRequests(ctx, now);
  return { expired };
}

/**
 * Each booking whose hold ran out, in a transaction of its own: its meetings and payment
 * become `expired` (conditionally: a payment confirming at the same moment wins or loses
 * cleanly) and the events are recorded. A lapsed hold already stopped blocking, so no
 * calendar version changes.
 */
async function expireLapsedHolds(ctx: Pick<UseCaseContext, 'publicUrl' | 'db'>, now: number): Promise<number> {
  const lapsed = await findLapsedHolds(ctx.db, now, 500);
  const bookings = new Map<string, Meeting[]>();
  for (const meeting of lapsed) bookings.set(meeting.bookingUuid, [...(bookings.get(meeting.bookingUuid) ?? []), meeting]);
  let expired = 0;
  for (const [bookingUuid, meetings] of bookings) {
    await inTransaction(ctx.db, async (trx) => {
      if (!(await markBookingExpired(trx, bookingUuid, now))) return;
      if (await markPaymentExpired(trx, bookingUuid)) {
        // The payment's audit trail, and the participant's "the slot was released" e-mail.
        const payment = (await findPaymentsOfBookings(trx, [bookingUuid])).get(bookingUuid)!;
        const data = { payment: paymentRecord({ ...payment, status: 'expired' }, ctx.publicUrl), meetings: meetings.map((meeting) => meeting.uuid) };
        await recordEvents(trx, [{ accountUuid: payment.accountUuid, type: 'payment.expired', subjectUuid: payment.uuid, data }], now);
      }
      const events = meetings.map((meeting) => {
        const data: MeetingEventData = { meeting: { ...meeting, status: 'expired', updatedAt: now }, previousStatus: 'pending_payment' };
        return { accountUuid: meeting.accountUuid, type: 'meeting.expired' as const, subjectUuid: meeting.uuid, data: { ...data } };
      });
      await recordEvents(trx, events, now);
      expired += meetings.length;
    });
  }
  return expired;
}

function encodeCursor(meeting: Meeting): string {
  return Buffer.from(JSON.stringify([meeting.start, meeting.uuid])).toString('base64url');
}

function decodeCursor(cursor: string): { start: number; uuid: string } {
  try {
    const [start, uuid] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof start === 'number' && typeof uuid === 'string') return { start, uuid };
  } catch {
    // fall through to the validation error
  }
  throw new ValidationError([{ path: '/query/cursor', message: 'is not a cursor this service issued' }]);
}
