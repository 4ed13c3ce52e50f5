import type { Account } from '../../domain/account.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../domain/errors.js';
import { findAccount, lockAccount, setAccountOwner } from '../../db/repositories/accounts.js';
import { isAdminOfAnyTeam } from '../../db/repositories/teams.js';
import { findUser } from '../../db/repositories/users.js';
import type { DbOrTrx, Trx } from '../../db/database.js';
import { inTransaction } from '../../db/transaction.js';
import { type AccountView, getAccount } from './account.js';
import type { Principal, UseCaseContext } from '../context.js';
import { OPERATOR_ACTOR, type Actor } from '../../domain/audit.js';
import { actorOf, recordAuditEvent } from '../audit/record-audit.js';

/**
 * `POST /account/owner` `{ userUuid }`: the owner hands the account over to another of its
 * active users, who must already be an admin of one of its teams (the owner always is). The
 * previous owner keeps their teams and rights but loses the owner's protection; handing it
 * to the owner again changes nothing.
 */
export async function handOverOwnership(ctx: Pick<UseCaseContext, 'now' | 'db' | 'secretKey' | 'publicUrl'>, principal: Principal, userUuid: string): Promise<AccountView> {
  await inTransaction(ctx.db, async (trx) => {
    const account = await lockedAccount(trx, principal.accountUuid);
    if (account.ownerUuid !== principal.userUuid) throw new ForbiddenError("Only the account's owner may hand ownership over");
    await makeOwner(trx, account, userUuid, actorOf(principal), ctx.now());
  });
  return getAccount(ctx, principal);
}

/** The operator's version (the CLI): hands any account over, e.g. when its owner has left. */
export async function handOverOwnershipAsOperator(ctx: Pick<UseCaseContext, 'now' | 'db'>, accountUuid: string, userUuid: string): Promise<Account> {
  return inTransaction(ctx.db, async (trx) => {
    const account = await lockedAccount(trx, accountUuid);
    await makeOwner(trx, account, userUuid, OPERATOR_ACTOR, ctx.now());
    return { ...account, ownerUuid: userUuid };
  });
}

async function lockedAccount(trx: Trx, accountUuid: string): Promise<Account> {
  await lockAccount(trx, accountUuid);
  const account = await findAccount(trx, accountUuid);
  if (!account) throw new NotFoundError('account');
  return account;
}

async function makeOwner(trx: DbOrTrx, account: Account, userUuid: string, actor: Actor, now: number): Promise<void> {
  const user = await findUser(trx, account.uuid, userUuid);
  if (!user || user.deactivatedAt !== null) throw new NotFoundError('user');
  if (!(await isAdminOfAnyTeam(trx, user.uuid))) {
    throw new ValidationError([{ path: '/userUuid', message: "must be an admin of one of the account's teams: make them one first (PATCH /teams/{teamUuid}/users/{userUuid})" }]);
  }
  await setAccountOwner(trx, account.uuid, user.uuid);
  // Handing it to the owner again changes nothing, and records nothing.
  if (account.ownerUuid === user.uuid) return;
  const details = { fromUserUuid: account.ownerUuid, toUserUuid: user.uuid };
  await recordAuditEvent(trx, { accountUuid: account.uuid, action: 'owner.transferred', actor, target: { type: 'account', uuid: account.uuid }, details, now });
}
