import { NotFoundError, ValidationError } from '../../domain/errors.js';
import { MAX_OPEN_TIME_OFF, validateTimeOff, type TimeOff } from '../../domain/time-off.js';
import { bumpCalendarVersions, findNamedBusySpans } from '../../db/repositories/busy-time.js';
import { lockHost } from '../../db/repositories/meetings.js';
import { deleteTimeOff, findCurrentTimeOff, findTimeOff, insertTimeOff } from '../../db/repositories/time-off.js';
import { findActiveUserByUsername, findUser } from '../../db/repositories/users.js';
import type { DbOrTrx } from '../../db/database.js';
import { inTransaction } from '../../db/transaction.js';
import { newId } from '../../ids.js';
import type { Principal, UseCaseContext } from '../context.js';
import { requireSelfOrTeamAdmin } from '../access.js';

export interface TimeOffInput {
  start: number;
  end: number;
  reason?: string | null | undefined;
  /** The stand-in's username, in the same account. */
  delegate?: string | null | undefined;
}

/** A time off as the API shows it: the stand-in by username. */
export interface TimeOffView extends TimeOff {
  delegate: string | null;
}

/** A meeting already booked in a new time off: kept (the host decides), listed in the answer. */
export interface TimeOffConflict {
  uuid: string;
  meetingTopic: string;
  start: number;
  end: number;
}

// Meetings are read by their start: one that began this long before the time off may still run into it.
const LONGEST_MEETING_MS = 2 * 86_400_000;

/**
 * `POST /users/{userUuid}/time-off`: the host is offered nowhere in [start, end) from the
 * commit on. Under the host's row lock, as a booking checks its slot, so a booking either
 * commits before (and is listed in `conflicts`) or sees the time off and is refused; the
 * calendar version is bumped so no instance serves the old slots. By the user or an admin
 * of one of their teams, as for the hours.
 */
export async function addTimeOff(
  ctx: Pick<UseCaseContext, 'db' | 'now'>,
  principal: Principal,
  userUuid: string,
  input: TimeOffInput,
): Promise<{ timeOff: TimeOffView; conflicts: TimeOffConflict[] }> {
  const now = ctx.now();
  const reason = input.reason?.trim() || null;
  const errors = validateTimeOff({ start: input.start, end: input.end, reason }, now);
  if (errors.length > 0) throw new ValidationError(errors);
  return inTransaction(ctx.db, async (trx) => {
    const user = await requireSelfOrTeamAdmin(trx, principal, userUuid);
    let delegate: { uuid: string; username: string } | null = null;
    if (input.delegate) {
      const found = await findActiveUserByUsername(trx, principal.accountUuid, input.delegate);
      if (!found) throw new ValidationError([{ path: '/delegate', message: 'must be the username of an active member of the account' }]);
      if (found.uuid === user.uuid) throw new ValidationError([{ path: '/delegate', message: 'must be someone else than the user taking time off' }]);
      delegate = { uuid: found.uuid, username: found.username };
    }
    await lockHost(trx, user.uuid);
    if ((await findCurrentTimeOff(trx, user.uuid, now)).length >= MAX_OPEN_TIME_OFF) {
      throw new ValidationError([{ path: '/start', message: `the user already has ${MAX_OPEN_TIME_OFF} time off entries to come; remove some first` }]);
    }
    const timeOff: TimeOff = { uuid: newId(now), userUuid: user.uuid, start: input.start, end: input.end, reason, delegateUuid: delegate?.uuid ?? null, createdAt: now };
    await insertTimeOff(trx, principal.accountUuid, timeOff);
    await bumpCalendarVersions(trx, [user.uuid]);
    const busy = await findNamedBusySpans(trx, user.uuid, input.start - LONGEST_MEETING_MS, input.end, now);
    const conflicts = busy
      .filter((meeting) => meeting.uuid !== undefined && meeting.start < input.end && input.start < meeting.end)
      .map((meeting) => ({ uuid: meeting.uuid!, meetingTopic: meeting.topicUuid, start: meeting.start, end: meeting.end }));
    return { timeOff: { ...timeOff, delegate: delegate?.username ?? null }, conflicts };
  });
}

/** `GET /users/{userUuid}/time-off`: the time off that has not ended yet, soonest first. */
export async function listTimeOff(ctx: Pick<UseCaseContext, 'db' | 'now'>, principal: Principal, userUuid: string): Promise<TimeOffView[]> {
  const user = await requireSelfOrTeamAdmin(ctx.db, principal, userUuid);
  return withDelegates(ctx.db, principal.accountUuid, await findCurrentTimeOff(ctx.db, user.uuid, ctx.now()));
}

/** `GET /users/{userUuid}/time-off/{uuid}`: one time off of the user (ended ones too, until deleted); 404 for another user's. */
export async function getTimeOff(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, userUuid: string, uuid: string): Promise<TimeOffView> {
  const user = await requireSelfOrTeamAdmin(ctx.db, principal, userUuid);
  const found = await findTimeOff(ctx.db, user.uuid, uuid);
  if (!found) throw new NotFoundError('time off');
  return (await withDelegates(ctx.db, principal.accountUuid, [found]))[0]!;
}

/** `DELETE /users/{userUuid}/time-off/{uuid}`: the host is offered in that span again. */
export async function removeTimeOff(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, userUuid: string, uuid: string): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const user = await requireSelfOrTeamAdmin(trx, principal, userUuid);
    await lockHost(trx, user.uuid);
    if (!(await findTimeOff(trx, user.uuid, uuid))) throw new NotFoundError('time off');
    await deleteTimeOff(trx, uuid);
    await bumpCalendarVersions(trx, [user.uuid]);
  });
}

async function withDelegates(db: DbOrTrx, accountUuid: string, entries: TimeOff[]): Promise<TimeOffView[]> {
  const names = new Map<string, string>();
  for (const uuid of new Set(entries.map((entry) => entry.delegateUuid).filter((uuid): uuid is string => uuid !== null))) {
    const user = await findUser(db, accountUuid, uuid);
    if (user) names.set(uuid, user.username);
  }
  return entries.map((entry) => ({ ...entry, delegate: entry.delegateUuid === null ? null : (names.get(entry.delegateUuid) ?? null) }));
}
