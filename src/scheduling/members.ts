import { LastAdminError, NotFoundError } from '../domain/errors.js';
import type { Member } from '../domain/user.js';
import { lockAccount } from '../db/repositories/accounts.js';
import { setMembershipAdmin, updateUserNames } from '../db/repositories/members.js';
import { countTeamAdmins, findMembership } from '../db/repositories/teams.js';
import { findUser } from '../db/repositories/users.js';
import { inTransaction } from '../db/transaction.js';
import { requireTeamAdmin } from './access.js';
import type { Principal, UseCaseContext } from './context.js';

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
 * account row is locked before the admins are counted.
 */
export async function updateTeamMember(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, teamUuid: string, userUuid: string, input: UpdateMemberInput): Promise<Member> {
  return inTransaction(ctx.db, async (trx) => {
    await lockAccount(trx, principal.accountUuid);
    const team = await requireTeamAdmin(trx, principal, teamUuid);
    const membership = await findMembership(trx, team.uuid, userUuid);
    const user = membership && (await findUser(trx, principal.accountUuid, userUuid));
    if (!membership || !user) throw new NotFoundError('member');
    if (membership.admin && input.admin === false && (await countTeamAdmins(trx, team.uuid)) <= 1) throw new LastAdminError();
    const firstName = input.firstName?.trim();
    const lastName = input.lastName?.trim();
    await updateUserNames(trx, user.uuid, { firstName, lastName });
    if (input.admin !== undefined && input.admin !== membership.admin) await setMembershipAdmin(trx, team.uuid, user.uuid, input.admin);
    return { ...user, firstName: firstName ?? user.firstName, lastName: lastName ?? user.lastName, admin: input.admin ?? membership.admin };
  });
}
