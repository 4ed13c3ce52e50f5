import { NotFoundError, ValidationError } from '../domain/errors.js';
import { statusAt, type Meeting, type MeetingStatus } from '../domain/meeting.js';
import { findAccount } from '../db/repositories/accounts.js';
import { findMeeting, listMeetings as selectMeetings, markMeetingCancelled } from '../db/repositories/meetings.js';
import { findTopicIncludingDeleted } from '../db/repositories/meeting-topics.js';
import { findActiveUserByUsername } from '../db/repositories/users.js';
import { expireLapsedHolds, lockHost } from '../db/repositories/meetings.js';
import { deleteIdempotentResponsesBefore } from '../db/repositories/idempotency.js';
import { deleteSentMessagesBefore } from '../db/repositories/outbox.js';
import { inTransaction } from '../db/transaction.js';
import type { Principal, UseCaseContext } from './context.js';
import { enqueueBookingMessages } from './messages.js';

export interface MeetingListInput {
  username?: string | undefined;
  team?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  status?: MeetingStatus[] | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export interface MeetingPage {
  meetings: Meeting[];
  nextCursor: string | null;
}

/** The account's meetings by start time, a page at a time; the cursor is opaque to clients. */
export async function listMeetings(ctx: UseCaseContext, principal: Principal, input: MeetingListInput): Promise<MeetingPage> {
  const limit = input.limit ?? 50;
  const after = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
  let hostUuid: string | undefined;
  if (input.username !== undefined) {
    const host = await findActiveUserByUsername(ctx.db, principal.accountUuid, input.username);
    if (!host) return { meetings: [], nextCursor: null };
    hostUuid = host.uuid;
  }
  const now = ctx.now();
  const rows = await selectMeetings(ctx.db, {
    accountUuid: principal.accountUuid,
    hostUuid,
    teamUuid: input.team,
    from: input.from === undefined ? undefined : Date.parse(input.from),
    to: input.to === undefined ? undefined : Date.parse(input.to),
    statuses: input.status,
    now,
    after,
    limit: limit + 1,
  });
  const page = rows.slice(0, limit).map((meeting) => ({ ...meeting, status: statusAt(meeting, now) }));
  const last = page[page.length - 1];
  return { meetings: page, nextCursor: rows.length > limit && last ? encodeCursor(last) : null };
}

export async function getMeeting(ctx: UseCaseContext, principal: Principal, meetingUuid: string): Promise<Meeting> {
  const meeting = await findMeeting(ctx.db, principal.accountUuid, meetingUuid);
  if (!meeting) throw new NotFoundError('meeting');
  return { ...meeting, status: statusAt(meeting, ctx.now()) };
}

/**
 * Cancels a meeting and frees its slot. Cancelling again, or a meeting whose hold expired,
 * changes nothing and returns it as it is. Both sides get a METHOD:CANCEL update.
 */
export async function cancelMeeting(ctx: UseCaseContext, principal: Principal, meetingUuid: string, reason: string | undefined): Promise<Meeting> {
  return inTransaction(ctx.db, async (trx) => {
    const now = ctx.now();
    const meeting = await findMeeting(trx, principal.accountUuid, meetingUuid);
    if (!meeting) throw new NotFoundError('meeting');
    const status = statusAt(meeting, now);
    if (status === 'cancelled' || status === 'expired') return { ...meeting, status };
    const cancelReason = reason?.trim() || null;
    await lockHost(trx, meeting.hostUuid);
    await markMeetingCancelled(trx, meeting.uuid, now, cancelReason);
    const cancelled: Meeting = { ...meeting, status: 'cancelled', cancelledAt: now, cancelReason, updatedAt: now, sequence: meeting.sequence + 1 };
    // Only a confirmed meeting had invitations sent; a pending one never reached calendars.
    if (status === 'confirmed') {
      const account = await findAccount(trx, principal.accountUuid);
      const topic = await findTopicIncludingDeleted(trx, meeting.topicUuid);
      if (account && topic) await enqueueBookingMessages(trx, { account, topic, meetings: [cancelled], kind: 'cancelled' }, now);
    }
    return cancelled;
  });
}

const SENT_MESSAGE_RETENTION_MS = 30 * 86_400_000;

/**
 * Housekeeping run in the background: lapsed payment holds become `expired`, idempotency
 * records older than their 24 hours and messages sent over 30 days ago go.
 */
export async function runMaintenance(ctx: UseCaseContext): Promise<{ expired: number; purgedIdempotencyKeys: number; purgedMessages: number }> {
  const now = ctx.now();
  const expired = await expireLapsedHolds(ctx.db, now);
  const purgedIdempotencyKeys = await deleteIdempotentResponsesBefore(ctx.db, now - 24 * 3_600_000);
  const purgedMessages = await deleteSentMessagesBefore(ctx.db, now - SENT_MESSAGE_RETENTION_MS);
  return { expired, purgedIdempotencyKeys, purgedMessages };
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
