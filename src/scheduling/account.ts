import { PLACES, dedupe, type Account, type GatewaySetting, type Place } from '../domain/account.js';
import { ForbiddenError, NotFoundError, ValidationError, type FieldError } from '../domain/errors.js';
import { isValidTimeZone } from '../domain/time-zones.js';
import { countActiveUsers, findAccount, updateAccount as writeAccount, type AccountChanges } from '../db/repositories/accounts.js';
import { isAdminOfAnyTeam } from '../db/repositories/teams.js';
import { inTransaction } from '../db/transaction.js';
import type { Principal, UseCaseContext } from './context.js';

export interface AccountView extends Account {
  activeUsers: number;
}

export async function getAccount(ctx: UseCaseContext, principal: Principal): Promise<AccountView> {
  const account = await findAccount(ctx.db, principal.accountUuid);
  if (!account) throw new NotFoundError('account');
  return { ...account, activeUsers: await countActiveUsers(ctx.db, account.uuid) };
}

export interface AccountPatch {
  name?: string | undefined;
  timezone?: string | undefined;
  places?: Place[] | undefined;
  gateways?: { code: GatewaySetting['code']; settings?: object | undefined }[] | undefined;
}

/** `PATCH /account`: by an admin of any of the account's teams. `maxUsers` is the operator's. */
export async function updateAccount(ctx: UseCaseContext, principal: Principal, patch: AccountPatch): Promise<AccountView> {
  const changes = validateAccountPatch(patch);
  await inTransaction(ctx.db, async (trx) => {
    if (!(await isAdminOfAnyTeam(trx, principal.userUuid))) throw new ForbiddenError('Only a team admin may change the account');
    await writeAccount(trx, principal.accountUuid, changes);
  });
  return getAccount(ctx, principal);
}

/** Operator-only changes (the CLI): the plan's user limit, and anything PATCH may set. */
export async function updateAccountAsOperator(ctx: UseCaseContext, accountUuid: string, changes: AccountChanges): Promise<Account> {
  if (changes.maxUsers !== undefined && (!Number.isInteger(changes.maxUsers) || changes.maxUsers < 1)) {
    throw new ValidationError([{ path: '/maxUsers', message: 'must be a positive integer' }]);
  }
  const account = await findAccount(ctx.db, accountUuid);
  if (!account) throw new NotFoundError('account');
  await writeAccount(ctx.db, accountUuid, changes);
  return (await findAccount(ctx.db, accountUuid))!;
}

function validateAccountPatch(patch: AccountPatch): AccountChanges {
  const errors: FieldError[] = [];
  const changes: AccountChanges = {};
  if (patch.name !== undefined) {
    const name = patch.name.trim();
    if (name === '') errors.push({ path: '/name', message: 'must not be empty' });
    changes.name = name;
  }
  if (patch.timezone !== undefined) {
    if (!isValidTimeZone(patch.timezone)) errors.push({ path: '/timezone', message: 'must be a valid IANA time zone' });
    changes.timezone = patch.timezone;
  }
  if (patch.places !== undefined) {
    if (patch.places.length === 0) errors.push({ path: '/places', message: `must enable at least one of ${PLACES.join(', ')}` });
    changes.places = dedupe(patch.places);
  }
  if (patch.gateways !== undefined) {
    const seen = new Set<string>();
    patch.gateways.forEach((gateway, index) => {
      if (seen.has(gateway.code)) errors.push({ path: `/gateways/${index}/code`, message: 'is listed twice' });
      seen.add(gateway.code);
    });
    changes.gateways = patch.gateways.map((gateway) => ({ code: gateway.code, settings: (gateway.settings ?? {}) as Record<string, unknown> }));
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return changes;
}
