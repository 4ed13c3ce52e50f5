import { ownerChangeRefusal } from '../../domain/account.js';
import { ForbiddenError, LastAdminError, NotFoundError } from '../../domain/errors.js';
import type { Member } from '../../domain/user.js';
import { findAccount, lockAccount } from '../../db/repositories/accounts.js';
import { setMembershipAdmin, updateUserNames } from '../../db/repositories/members.js';
import { countTeamAdmins, findMembership, isAdminOfAnotherTeam } from '../../db/repositories/teams.js';
import { findUser } from '../../db/repositories/users.js';
import { inTransaction } from '../../db/transaction.js';
import { requireTeamAdmin } from '../access.js';
import { actorOf, recordAuditEvent } from '../audit/record-audit.js';
import { changedFields } from '../../domain/audit.js';
import type { Principal, UseCaseContext } from '../context.js';

/** `GET /teams/{teamUuid}/users/{userUuid}` by an admin of the team; 404 for a user who is not its member. */
export async function getTeamMember(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, teamUuid: string, userUuid: string): Promise<Member> {
  const team = await requireTeamAdmin(ctx.db, principal, teamUuid);
  const membership = await findMembership(ctx.db, team.uuid, userUuid);
  const user = membership && (await findUser(ctx.db, principal.accountUuid, userUuid));
  if (!membership || !user) throw new NotFoundError('member');
  return { ...user, admin: membership.admin };
}

export interface UpdateMemberInput {
  firstName?: string | undefined;
  lastName?: string | undefined;
  admin?: boolean | undefined;
}

/**
 * `PATCH /teams/{teamUuid}/users/{userUuid}` by an admin of the team: rename the member
 * (the username is kept) and grant or take away the team's admin right. Taking it from the
 * team's last admin is refused (LAST_ADMIN), so an owner who wants to leave first makes
 * someone else an admin. Two admins demoting each other at once cannot both succeed: the
 * account row is locked before the admins are counted. The account's owner is renamed or
 * demoted only by the owner, and stays an admin of some team (see ownerChangeRefusal).
 */
export async function updateTeamMember(
  ctx: Pick<UseCaseContext, 'now' | 'db'>,
  principal: Principal,
  teamUuid: string,
  userUuid: string,
  input: UpdateMemberInput,
): Promise<Member> {
  return inTransaction(ctx.db, async (trx) => {
    await lockAccount(trx, principal.accountUuid);
    const team = await requireTeamAdmin(trx, principal, teamUuid);
    const membership = await findMembership(trx, team.uuid, userUuid);
    const user = membership && (await findUser(trx, principal.accountUuid, userUuid));
    if (!membership || !user) throw new NotFoundError('member');
    if (membership.admin && input.admin === false && (await countTeamAdmins(trx, team.uuid)) <= 1) throw new LastAdminError();
    const firstName = input.firstName?.trim();
    const lastName = input.lastName?.trim();
    const change = { rename: firstName !== undefined || lastName !== undefined, losesAdmin: membership.admin && input.admin === false, removed: false };
    const ownerUuid = (await findAccount(trx, principal.accountUuid))?.ownerUuid ?? null;
    const refusal = ownerChangeRefusal(ownerUuid, principal.userUuid, user.uuid, change, change.losesAdmin && (await isAdminOfAnotherTeam(trx, user.uuid, team.uuid)));
    if (refusal !== null) throw new ForbiddenError(refusal);
    await updateUserNames(trx, user.uuid, { firstName, lastName });
    if (input.admin !== undefined && input.admin !== membership.admin) await setMembershipAdmin(trx, team.uuid, user.uuid, input.admin);
    await recordAuditEvent(trx, {
      accountUuid: user.accountUuid,
      action: 'member.updated',
      actor: actorOf(principal),
      target: { type: 'member', uuid: user.uuid },
      details: { teamUuid: team.uuid, changed: changedFields(input) },
      now: ctx.now(),
    });
    return { ...user, firstName: firstName ?? user.firstName, lastName: lastName ?? user.lastName, admin: input.admin ?? membership.admin };
  });
}
