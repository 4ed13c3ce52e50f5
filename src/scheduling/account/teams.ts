import { ownerChangeRefusal } from '../../domain/account.js';
import { AlreadyMemberError, ForbiddenError, LastAdminError, NotFoundError, PlanLimitReachedError } from '../../domain/errors.js';
import { newId } from '../../ids.js';
import type { Team } from '../../domain/team.js';
import { normalizeEmail, type Member } from '../../domain/user.js';
import { countActiveUsers, findAccount, lockAccount } from '../../db/repositories/accounts.js';
import { revokeAllApiKeysOfUser } from '../../db/repositories/api-keys.js';
import {
  countMembershipsOfUser,
  countTeamAdmins,
  deleteMembership,
  findMembership,
  insertMembership,
  insertTeam,
  isAdminOfAnyTeam,
  listTeamsAdministeredBy,
  isAdminOfAnotherTeam,
} from '../../db/repositories/teams.js';
import { findUser, findUserByEmail, findUserIdsManagedBy, selectTeamMembers, setUserDeactivated } from '../../db/repositories/users.js';
import { removeHostFromTeamTopics } from '../../db/repositories/meeting-topics.js';
import type { DbOrTrx } from '../../db/database.js';
import { inTransaction } from '../../db/transaction.js';
import { requireTeamAdmin } from '../access.js';
import type { Principal, UseCaseContext } from '../context.js';
import { insertNewUser } from './create-account.js';
import { recordEvents } from '../record-events.js';
import { actorOf, recordAuditEvent } from '../audit/record-audit.js';
import type { AuditDetails } from '../../domain/audit.js';
import type { MemberEventData } from '../../domain/events.js';
import type { Lang } from '../../domain/meeting.js';
import { queueInvitation } from '../host-app/sign-in.js';

/** `GET /teams`: the teams the caller administers, by name. */
export async function listTeams(ctx: Pick<UseCaseContext, 'db'>, principal: Principal): Promise<Team[]> {
  return listTeamsAdministeredBy(ctx.db, principal.userUuid);
}

/**
 * Not among the first endpoints, but without it an account has only its first team: an admin of any
 * team creates another and becomes its first admin.
 */
export async function createTeam(ctx: Pick<UseCaseContext, 'now' | 'db'>, principal: Principal, name: string): Promise<Team> {
  return inTransaction(ctx.db, async (trx) => {
    if (!(await isAdminOfAnyTeam(trx, principal.userUuid))) throw new ForbiddenError('Only a team admin may create teams');
    const now = ctx.now();
    const team: Team = { uuid: newId(now), accountUuid: principal.accountUuid, name: name.trim(), createdAt: now };
    await insertTeam(trx, team);
    await insertMembership(trx, { teamUuid: team.uuid, userUuid: principal.userUuid, admin: true }, now);
    await recordAuditEvent(trx, {
      accountUuid: team.accountUuid,
      action: 'team.created',
      actor: actorOf(principal),
      target: { type: 'team', uuid: team.uuid },
      details: { name: team.name },
      now,
    });
    return team;
  });
}

/** `GET /teams/{teamUuid}/users`: the members of a team the caller administers. */
export async function listTeamMembers(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, teamUuid: string): Promise<Member[]> {
  const team = await requireTeamAdmin(ctx.db, principal, teamUuid);
  return selectTeamMembers(ctx.db, team.uuid);
}

export interface AddMemberInput {
  firstName: string;
  lastName: string;
  email: string;
  admin?: boolean | undefined;
}

/**
 * `POST /teams/{teamUuid}/users`. The account row lock serialises every seat-changing request of the
 * account, so the plan limit holds under concurrency: the count below sees every user
 * committed before us and nobody can commit one until we finish.
 */
export async function addTeamMember(
  ctx: Pick<UseCaseContext, 'now' | 'db' | 'publicUrl'>,
  principal: Principal,
  teamUuid: string,
  input: AddMemberInput,
  options: { lang?: Lang } = {},
): Promise<Member> {
  return inTransaction(ctx.db, async (trx) => {
    await lockAccount(trx, principal.accountUuid);
    const team = await requireTeamAdmin(trx, principal, teamUuid);
    const account = await findAccount(trx, principal.accountUuid);
    if (!account) throw new NotFoundError('account');
    const now = ctx.now();
    const admin = input.admin ?? false;

    const existing = await findUserByEmail(trx, account.uuid, normalizeEmail(input.email));
    if (existing) {
      if (await findMembership(trx, team.uuid, existing.uuid)) throw new AlreadyMemberError();
      // Adding someone who already works in other teams would hand this team's admins their
      // hours, topics, connections and feed: only an admin of one of their teams, or the
      // account's owner, may do it. A deactivated user belongs to no team and comes back as before.
      if (existing.deactivatedAt === null && principal.userUuid !== account.ownerUuid && !(await findUserIdsManagedBy(trx, principal.userUuid)).has(existing.uuid)) {
        throw new ForbiddenError(
          "This person is already a member of other teams of the account; only an admin of one of their teams, or the account's owner, may add them to another",
        );
      }
      // A deactivated user comes back and takes a seat again; an active one already has one.
      if (existing.deactivatedAt !== null) {
        if ((await countActiveUsers(trx, account.uuid)) >= account.maxUsers) throw new PlanLimitReachedError(account.maxUsers);
        await setUserDeactivated(trx, existing.uuid, null);
      }
      await insertMembership(trx, { teamUuid: team.uuid, userUuid: existing.uuid, admin }, now);
      const member: Member = { ...existing, deactivatedAt: null, admin };
      await recordMemberEvent(trx, 'member.created', member, team.uuid, now, principal);
      return member;
    }

    if ((await countActiveUsers(trx, account.uuid)) >= account.maxUsers) throw new PlanLimitReachedError(account.maxUsers);
    const user = await insertNewUser(trx, {
      accountUuid: account.uuid,
      firstName: input.firstName.trim(),
      lastName: input.lastName.trim(),
      email: input.email,
      timezone: account.timezone,
      now,
    });
    await insertMembership(trx, { teamUuid: team.uuid, userUuid: user.uuid, admin }, now);
    const member: Member = { ...user, admin };
    await recordMemberEvent(trx, 'member.created', member, team.uuid, now, principal);
    // A new person gets an invitation with their first sign-in link; one added back (above) already knows the way in.
    const inviter = await findUser(trx, account.uuid, principal.userUuid);
    await queueInvitation(
      trx,
      ctx,
      { user, accountName: account.name, teamName: team.name, inviterName: inviter ? `${inviter.firstName} ${inviter.lastName}` : account.name, lang: options.lang ?? 'en' },
      now,
    );
    return member;
  });
}

/**
 * `DELETE /teams/{teamUuid}/users/{userUuid}`. A user left in no team is deactivated: the seat is freed and their keys
 * are revoked (so re-adding them later does not revive old keys); meetings stay. Only the
 * account's owner takes the owner out of a team, and not out of the last one they administer.
 */
export async function removeTeamMember(ctx: Pick<UseCaseContext, 'now' | 'db'>, principal: Principal, teamUuid: string, userUuid: string): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    await lockAccount(trx, principal.accountUuid);
    const team = await requireTeamAdmin(trx, principal, teamUuid);
    const membership = await findMembership(trx, team.uuid, userUuid);
    if (!membership) throw new NotFoundError('member');
    if (membership.admin && (await countTeamAdmins(trx, team.uuid)) <= 1) throw new LastAdminError();
    const ownerUuid = (await findAccount(trx, principal.accountUuid))?.ownerUuid ?? null;
    const change = { rename: false, losesAdmin: membership.admin, removed: true };
    const refusal = ownerChangeRefusal(ownerUuid, principal.userUuid, userUuid, change, membership.admin && (await isAdminOfAnotherTeam(trx, userUuid, team.uuid)));
    if (refusal !== null) throw new ForbiddenError(refusal);
    const user = await findUser(trx, principal.accountUuid, userUuid);
    await deleteMembership(trx, team.uuid, userUuid);
    await removeHostFromTeamTopics(trx, team.uuid, userUuid);
    const now = ctx.now();
    if ((await countMembershipsOfUser(trx, userUuid)) === 0) {
      await setUserDeactivated(trx, userUuid, now);
      await revokeAllApiKeysOfUser(trx, userUuid, now);
    }
    // The member as the team listed them until now.
    if (user) await recordMemberEvent(trx, 'member.deleted', { ...user, admin: membership.admin }, team.uuid, now, principal);
  });
}

/**
 * `member.created` / `member.deleted`, in the transaction that changes the membership (webhooks
 * send them), and the audit log's entry of the same name. The log names the member by uuid
 * only: their e-mail and name stay in the users table, where a rename or erasure reaches them.
 */
async function recordMemberEvent(trx: DbOrTrx, type: 'member.created' | 'member.deleted', member: Member, teamUuid: string, now: number, principal: Principal): Promise<void> {
  const data: MemberEventData = { member, teamUuid };
  await recordEvents(trx, [{ accountUuid: member.accountUuid, type, subjectUuid: member.uuid, data: { ...data } }], now);
  const details: AuditDetails = type === 'member.created' ? { teamUuid, admin: member.admin } : { teamUuid };
  await recordAuditEvent(trx, { accountUuid: member.accountUuid, action: type, actor: actorOf(principal), target: { type: 'member', uuid: member.uuid }, details, now });
}
