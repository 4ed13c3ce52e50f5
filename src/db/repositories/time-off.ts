import type { TimeOff } from '../../domain/time-off.js';
import type { TimeOffSpan } from '../../domain/slots.js';
import type { DbOrTrx, TimeOffTable } from '../database.js';
import type { Selectable } from 'kysely';
import { compileOnce } from '../compiled-query.js';

function rowToTimeOff(row: Selectable<TimeOffTable>): TimeOff {
  return {
    uuid: row.id,
    userUuid: row.user_id,
    start: Number(row.start_at),
    end: Number(row.end_at),
    reason: row.reason,
    delegateUuid: row.delegate_id,
    createdAt: Number(row.created_at),
  };
}

export async function insertTimeOff(db: DbOrTrx, accountUuid: string, timeOff: TimeOff): Promise<void> {
  await db
    .insertInto('time_off')
    .values({
      id: timeOff.uuid,
      account_id: accountUuid,
      user_id: timeOff.userUuid,
      start_at: timeOff.start,
      end_at: timeOff.end,
      reason: timeOff.reason,
      delegate_id: timeOff.delegateUuid,
      created_at: timeOff.createdAt,
    })
    .execute();
}

/** The host's time off that has not ended by `now`, soonest first. */
export async function findCurrentTimeOff(db: DbOrTrx, userUuid: string, now: number): Promise<TimeOff[]> {
  const rows = await db.selectFrom('time_off').selectAll().where('user_id', '=', userUuid).where('end_at', '>', now).orderBy('start_at').orderBy('id').execute();
  return rows.map(rowToTimeOff);
}

export async function findTimeOff(db: DbOrTrx, userUuid: string, uuid: string): Promise<TimeOff | undefined> {
  const row = await db.selectFrom('time_off').selectAll().where('user_id', '=', userUuid).where('id', '=', uuid).executeTakeFirst();
  return row ? rowToTimeOff(row) : undefined;
}

export async function deleteTimeOff(db: DbOrTrx, uuid: string): Promise<void> {
  await db.deleteFrom('time_off').where('id', '=', uuid).execute();
}

/** The host's time off overlapping [from, to): what the slot engine needs of it. */
export async function findTimeOffSpans(db: DbOrTrx, userUuid: string, from: number, to: number): Promise<TimeOffSpan[]> {
  const { rows } = await timeOffSpans(db, userUuid, from, to);
  return rows.map((row) => ({ start: Number(row.start_at), end: Number(row.end_at) }));
}

// Every booking and every cold host calendar reads this: compiled once, as the booking's other reads.
const timeOffSpans = compileOnce((db, userUuid: string, from: number, to: number) =>
  db.selectFrom('time_off').select(['start_at', 'end_at']).where('user_id', '=', userUuid).where('end_at', '>', from).where('start_at', '<', to).orderBy('start_at'),
);

/** A stretch of a host's time off that names an active stand-in: where the stand-in is offered instead. */
export interface Delegation {
  delegateUuid: string;
  delegateUsername: string;
  start: number;
  end: number;
}

/** The host's delegations overlapping [from, to), the stand-in active (a deactivated one stands in for nobody). */
export async function findDelegations(db: DbOrTrx, userUuid: string, from: number, to: number): Promise<Delegation[]> {
  const rows = await db
    .selectFrom('time_off')
    .innerJoin('users', 'users.id', 'time_off.delegate_id')
    .select(['time_off.delegate_id', 'users.username', 'time_off.start_at', 'time_off.end_at'])
    .where('time_off.user_id', '=', userUuid)
    .where('users.deactivated_at', 'is', null)
    .where('time_off.end_at', '>', from)
    .where('time_off.start_at', '<', to)
    .orderBy('time_off.start_at')
    .execute();
  return rows.map((row) => ({ delegateUuid: row.delegate_id!, delegateUsername: row.username, start: Number(row.start_at), end: Number(row.end_at) }));
}

/**
 * The stand-ins of hosts away at some point in [from, to): per host, each span with its
 * delegate (only time off that names one).
 */
export async function findDelegatedSpans(
  db: DbOrTrx,
  userUuids: readonly string[],
  from: number,
  to: number,
): Promise<{ userUuid: string; delegateUuid: string; start: number; end: number }[]> {
  if (userUuids.length === 0) return [];
  const rows = await db
    .selectFrom('time_off')
    .select(['user_id', 'delegate_id', 'start_at', 'end_at'])
    .where('user_id', 'in', [...userUuids])
    .where('delegate_id', 'is not', null)
    .where('end_at', '>', from)
    .where('start_at', '<', to)
    .execute();
  return rows.map((row) => ({ userUuid: row.user_id, delegateUuid: row.delegate_id!, start: Number(row.start_at), end: Number(row.end_at) }));
}
