import { NotFoundError } from '../../domain/errors.js';
import { findAccount, lockAccount } from '../../db/repositories/accounts.js';
import { bumpCalendarVersions } from '../../db/repositories/busy-time.js';
import {
  countRows,
  deactivateUsersOfAccount,
  deleteAccountRows,
  findKey,
  markKeyRevoked,
  requeueFailedJobs,
  revokeKeysOfAccount,
  selectAccountUsers,
  selectKeysOfUser,
  selectOutboxGroups,
  type AccountUserRow,
  type KeyRow,
  type OutboxGroup,
} from '../../db/repositories/operator.js';
import { findUserAcrossAccounts } from '../../db/repositories/users.js';
import { inTransaction } from '../../db/transaction.js';
import type { User } from '../../domain/user.js';
import type { UseCaseContext } from '../context.js';
import { OPERATOR_ACTOR } from '../../domain/audit.js';
import { recordKeyRevoked } from '../account/api-keys.js';

/**
 * The operator's actions for a bad day (CLI only, across accounts): find a user to reissue
 * a lost key to, list and revoke keys, switch an account off or remove it, and look at and
 * unstick the outbox.
 */

export async function listAccountUsers(ctx: Pick<UseCaseContext, 'db'>, accountUuid: string): Promise<{ account: { uuid: string; name: string }; users: AccountUserRow[] }> {
  const account = await findAccount(ctx.db, accountUuid);
  if (!account) throw new NotFoundError('account');
  return { account: { uuid: account.uuid, name: account.name }, users: await selectAccountUsers(ctx.db, accountUuid) };
}

export async function listUserKeys(ctx: Pick<UseCaseContext, 'db'>, userUuid: string): Promise<{ user: User; keys: KeyRow[] }> {
  const user = await findUserAcrossAccounts(ctx.db, userUuid);
  if (!user) throw new NotFoundError('user');
  return { user, keys: await selectKeysOfUser(ctx.db, userUuid) };
}

/** Revokes any key by its uuid; a key revoked before is reported as it is (revoking is idempotent). */
export async function revokeKeyAsOperator(ctx: Pick<UseCaseContext, 'now' | 'db'>, keyUuid: string): Promise<{ key: KeyRow; alreadyRevoked: boolean }> {
  return inTransaction(ctx.db, async (trx) => {
    const key = await findKey(trx, keyUuid);
    if (!key) throw new NotFoundError('API key');
    if (key.revokedAt !== null) return { key, alreadyRevoked: true };
    const now = ctx.now();
    await markKeyRevoked(trx, keyUuid, now);
    await recordKeyRevoked(trx, { accountUuid: key.accountUuid, keyUuid, userUuid: key.userUuid }, OPERATOR_ACTOR, now);
    return { key: { ...key, revokedAt: now }, alreadyRevoked: false };
  });
}

export interface DeactivatedAccount {
  account: { uuid: string; name: string };
  usersDeactivated: number;
  keysRevoked: number;
}

/**
 * Switches an account off at once, keeping its data: every user is deactivated (no longer a
 * host: no slots, no bookings, booking pages empty) and every key revoked (the API answers
 * 401). Meetings, topics and history stay, for an export or a later `account delete`.
 */
export async function deactivateAccount(ctx: Pick<UseCaseContext, 'now' | 'db'>, accountUuid: string): Promise<DeactivatedAccount> {
  return inTransaction(ctx.db, async (trx) => {
    if (!(await lockAccount(trx, accountUuid))) throw new NotFoundError('account');
    const account = (await findAccount(trx, accountUuid))!;
    const now = ctx.now();
    const users = await deactivateUsersOfAccount(trx, accountUuid, now);
    const keysRevoked = await revokeKeysOfAccount(trx, accountUuid, now);
    // Cached schedules of these hosts must not keep offering their slots on any instance.
    await bumpCalendarVersions(trx, users);
    return { account: { uuid: account.uuid, name: account.name }, usersDeactivated: users.length, keysRevoked };
  });
}

export interface DeletedAccount {
  account: { uuid: string; name: string };
  users: number;
  teams: number;
  meetings: number;
}

/** Removes the account and everything in it, for good (the demo account too). */
export async function deleteAccount(ctx: Pick<UseCaseContext, 'db'>, accountUuid: string): Promise<DeletedAccount> {
  return inTransaction(ctx.db, async (trx) => {
    if (!(await lockAccount(trx, accountUuid))) throw new NotFoundError('account');
    const account = (await findAccount(trx, accountUuid))!;
    const counts = {
      users: await countRows(trx, 'users', accountUuid),
      teams: await countRows(trx, 'teams', accountUuid),
      meetings: await countRows(trx, 'meetings', accountUuid),
    };
    await deleteAccountRows(trx, accountUuid);
    return { account: { uuid: account.uuid, name: account.name }, ...counts };
  });
}

export interface OutboxStatus {
  groups: OutboxGroup[];
  pending: number;
  failed: number;
  /** Age of the oldest job still pending, in seconds; null when none is. */
  oldestPendingAgeSeconds: number | null;
}

export async function outboxStatus(ctx: Pick<UseCaseContext, 'now' | 'db'>): Promise<OutboxStatus> {
  const groups = await selectOutboxGroups(ctx.db);
  const pending = groups.filter((group) => group.status === 'pending');
  const oldest = pending.length === 0 ? null : Math.min(...pending.map((group) => group.oldestCreatedAt));
  return {
    groups,
    pending: pending.reduce((sum, group) => sum + group.count, 0),
    failed: groups.filter((group) => group.status === 'failed').reduce((sum, group) => sum + group.count, 0),
    oldestPendingAgeSeconds: oldest === null ? null : Math.max(0, Math.round((ctx.now() - oldest) / 1000)),
  };
}

/** Failed jobs (of one kind, or all) are queued again with a full set of attempts; the running server picks them up. */
export async function retryFailedJobs(ctx: Pick<UseCaseContext, 'now' | 'db'>, kind: string | undefined): Promise<number> {
  return requeueFailedJobs(ctx.db, kind, ctx.now());
}
