import { ForbiddenError, MeetingStateConflictError, NotFoundError } from '../../domain/errors.js';
import type { MeetingEventData } from '../../domain/events.js';
import { NOT_APPROVED_IN_TIME, PAYMENT_HOLD_MS, meetingHostUuids, statusAt, type Meeting } from '../../domain/meeting.js';
import { paymentRecord } from '../../domain/representations.js';
import type { DbOrTrx, Trx } from '../../db/database.js';
import { findAccount } from '../../db/repositories/accounts.js';
import { bumpCalendarVersions } from '../../db/repositories/busy-time.js';
import { findLapsedApprovals, findMeeting, lockHost, markMeetingApproved, markMeetingDeclined } from '../../db/repositories/meetings.js';
import { findPaymentsOfBookings, markPaymentExpired, setPaymentExpiry } from '../../db/repositories/payments.js';
import { isAdminOfTeam } from '../../db/repositories/teams.js';
import { inTransaction } from '../../db/transaction.js';
import type { Principal, UseCaseContext } from '../context.js';
import { recordEvents, type NewEvent } from '../record-events.js';

/**
 * `POST /meetings/{uuid}/approve`: a request becomes a meeting. A free one is `confirmed` at
 * once (`meeting.approved` and `meeting.confirmed`: the confirmations and invitations go out
 * as for any confirmed booking); a paid one becomes `pending_payment`, holding the slot for
 * the payment's usual 30 minutes from now, and only now is the participant asked to pay
 * (`payment.pending`). Approving it again returns it unchanged; a request no longer open
 * (cancelled, declined, its deadline passed) is a 409. The change is conditional on the
 * request still being open, so of an approval, a decline and the deadline exactly one wins.
 */
export async function approveMeeting(ctx: Pick<UseCaseContext, 'publicUrl' | 'now' | 'db'>, principal: Principal, meetingUuid: string): Promise<Meeting> {
  return inTransaction(ctx.db, async (trx) => {
    const now = ctx.now();
    const meeting = await findRequestUnderLock(trx, principal, meetingUuid);
    const status = statusAt(meeting, now);
    const payment = (await findPaymentsOfBookings(trx, [meeting.bookingUuid])).get(meeting.bookingUuid);
    // Approved already (then paid or not): the same answer again.
    if (status === 'confirmed' || status === 'pending_payment') return { ...meeting, status };
    if (status !== 'pending_approval') throw new MeetingStateConflictError(`The meeting is ${status}: only a request pending approval can be approved`);
    const paid = payment !== undefined && payment.status === 'pending';
    const next = paid ? { status: 'pending_payment' as const, holdExpiresAt: now + PAYMENT_HOLD_MS } : { status: 'confirmed' as const, holdExpiresAt: null };
    if (!(await markMeetingApproved(trx, meeting.uuid, now, next))) throw new MeetingStateConflictError('The request was decided meanwhile');
    const approved: Meeting = { ...meeting, ...next, updatedAt: now };
    await bumpCalendarVersions(trx, meetingHostUuids(meeting));
    const data: MeetingEventData = { meeting: approved, previousStatus: 'pending_approval' };
    const events: NewEvent[] = [{ accountUuid: meeting.accountUuid, type: 'meeting.approved', subjectUuid: meeting.uuid, data: { ...data } }];
    if (!paid) events.push({ accountUuid: meeting.accountUuid, type: 'meeting.confirmed', subjectUuid: meeting.uuid, data: { ...data } });
    await recordEvents(trx, events, now);
    if (paid) {
      // The pay link's deadline starts now: the participant could not pay while the host decided.
      await setPaymentExpiry(trx, payment.uuid, next.holdExpiresAt!);
      const record = paymentRecord({ ...payment, expiresAt: next.holdExpiresAt! }, ctx.publicUrl);
      await recordEvents(trx, [{ accountUuid: payment.accountUuid, type: 'payment.pending', subjectUuid: payment.uuid, data: { payment: record, meetings: [meeting.uuid] } }], now);
    }
    return approved;
  });
}

/**
 * `POST /meetings/{uuid}/decline`: the request is `declined`, its slot free again, and the
 * participant told (with the reason). Declining again returns it unchanged; a request no
 * longer open otherwise (approved, cancelled) is a 409.
 */
export async function declineMeeting(ctx: Pick<UseCaseContext, 'now' | 'db'>, principal: Principal, meetingUuid: string, reason: string | undefined): Promise<Meeting> {
  return inTransaction(ctx.db, async (trx) => {
    const now = ctx.now();
    const meeting = await findRequestUnderLock(trx, principal, meetingUuid);
    const status = statusAt(meeting, now);
    if (status === 'declined') return { ...meeting, status };
    if (status !== 'pending_approval') throw new MeetingStateConflictError(`The meeting is ${status}: only a request pending approval can be declined`);
    const declineReason = reason?.trim() || null;
    if (!(await markMeetingDeclined(trx, meeting.uuid, now, declineReason, false))) throw new MeetingStateConflictError('The request was decided meanwhile');
    const declined = await recordDeclined(trx, meeting, declineReason, now);
    await bumpCalendarVersions(trx, meetingHostUuids(meeting));
    return declined;
  });
}

/**
 * The sweeper's part (run with the other housekeeping): each request whose deadline passed
 * undecided is declined "not approved in time", in a transaction of its own. Its slot was
 * freed at the deadline already (busy time reads only holds still running), so no calendar
 * version changes.
 */
export async function declineLapsedRequests(ctx: Pick<UseCaseContext, 'db'>, now: number): Promise<number> {
  const lapsed = await findLapsedApprovals(ctx.db, now, 500);
  let declined = 0;
  for (const meeting of lapsed) {
    await inTransaction(ctx.db, async (trx) => {
      if (!(await markMeetingDeclined(trx, meeting.uuid, now, NOT_APPROVED_IN_TIME, true))) return;
      await recordDeclined(trx, meeting, NOT_APPROVED_IN_TIME, now);
      declined += 1;
    });
  }
  return declined;
}

/** `meeting.declined` (the participant's e-mail and the webhook), and a paid request's payment, never asked for, expires. */
async function recordDeclined(trx: DbOrTrx, meeting: Meeting, declineReason: string | null, now: number): Promise<Meeting> {
  const declined: Meeting = { ...meeting, status: 'declined', declineReason, updatedAt: now };
  const data: MeetingEventData = { meeting: declined, previousStatus: 'pending_approval' };
  await recordEvents(trx, [{ accountUuid: meeting.accountUuid, type: 'meeting.declined', subjectUuid: meeting.uuid, data: { ...data } }], now);
  // Never asked for, never to be paid (a booking of several dates shares one payment: declining one of them ends it).
  const payment = (await findPaymentsOfBookings(trx, [meeting.bookingUuid])).get(meeting.bookingUuid);
  if (payment && payment.status === 'pending') await markPaymentExpired(trx, meeting.bookingUuid);
  return declined;
}

/**
 * The request, read again under its host's lock (nothing else changes it meanwhile), after
 * checking who decides: its host or a co-host, an admin of its topic's team, or the account's
 * owner. Not the key that booked it: a plain member's key (or a booking integration's) could
 * otherwise book an approval-required request and approve it itself (issue 38).
 */
async function findRequestUnderLock(trx: Trx, principal: Principal, meetingUuid: string): Promise<Meeting> {
  const found = await findMeeting(trx, principal.accountUuid, meetingUuid);
  if (!found) throw new NotFoundError('meeting');
  const allowed =
    meetingHostUuids(found).includes(principal.userUuid) ||
    (found.teamUuid !== null && (await isAdminOfTeam(trx, found.teamUuid, principal.userUuid))) ||
    (await findAccount(trx, principal.accountUuid))?.ownerUuid === principal.userUuid;
  if (!allowed) throw new ForbiddenError("Only the meeting's host, an admin of its topic's team, or the account's owner may approve or decline it");
  await lockHost(trx, found.hostUuid);
  return (await findMeeting(trx, principal.accountUuid, meetingUuid))!;
}
