import type { Team } from '../../domain/team.js';
import type { DbOrTrx, TeamRow } from '../database.js';

export function teamRowToTeam(row: TeamRow): Team {
  return { uuid: row.id, accountUuid: row.account_id, name: row.name, createdAt: row.created_at };
}

export async function insertTeam(db: DbOrTrx, team: Team): Promise<void> {
  await db.insertInto('teams').values({ id: team.uuid, account_id: team.accountUuid, name: team.name, created_at: team.createdAt }).execute();
}

export async function findTeam(db: DbOrTrx, accountUuid: string, teamUuid: string): Promise<Team | undefined> {
  const row = await db.selectFrom('teams').selectAll().where('account_id', '=', accountUuid).where('id', '=', teamUuid).executeTakeFirst();
  return row && teamRowToTeam(row);
}

/** Teams in which the user is an admin, ordered by name. */
export async function listTeamsAdministeredBy(db: DbOrTrx, userUuid: string): Promise<Team[]> {
  const rows = await db
    .selectFrom('teams')
    .innerJoin('memberships', 'memberships.team_id', 'teams.id')
    .selectAll('teams')
    .where('memberships.user_id', '=', userUuid)
    .where('memberships.is_admin', '=', 1)
    .orderBy('teams.name')
    .orderBy('teams.id')
    .execute();
  return rows.map(teamRowToTeam);
}

export interface Membership {
  teamUuid: string;
  userUuid: string;
  admin: boolean;
}

export async function insertMembership(db: DbOrTrx, membership: Membership, createdAt: number): Promise<void> {
  await db
    .insertInto('memberships')
    .values({
      team_id: membership.teamUuid,
      user_id: membership.userUuid,
      is_admin: membership.admin ? 1 : 0,
      created_at: createdAt,
    })
    .execute();
}

export async function findMembership(db: DbOrTrx, teamUuid: string, userUuid: string): Promise<Membership | undefined> {
  const row = await db.selectFrom('memberships').select(['team_id', 'user_id', 'is_admin']).where('team_id', '=', teamUuid).where('user_id', '=', userUuid).executeTakeFirst();
  return row && { teamUuid: row.team_id, userUuid: row.user_id, admin: row.is_admin === 1 };
}

export async function deleteMembership(db: DbOrTrx, teamUuid: string, userUuid: string): Promise<void> {
  await db.deleteFrom('memberships').where('team_id', '=', teamUuid).where('user_id', '=', userUuid).execute();
}

export async function countTeamAdmins(db: DbOrTrx, teamUuid: string): Promise<number> {
  const row = await db
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('team_id', '=', teamUuid)
    .where('is_admin', '=', 1)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function countMembershipsOfUser(db: DbOrTrx, userUuid: string): Promise<number> {
  const row = await db
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('user_id', '=', userUuid)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Whether the user is an admin of some team other than `teamUuid`. */
export async function isAdminOfAnotherTeam(db: DbOrTrx, userUuid: string, teamUuid: string): Promise<boolean> {
  const row = await db
    .selectFrom('memberships')
    .select('team_id')
    .where('user_id', '=', userUuid)
    .where('is_admin', '=', 1)
    .where('team_id', '<>', teamUuid)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether the user is an admin of at least one team (the account-level admin right). */
export async function isAdminOfAnyTeam(db: DbOrTrx, userUuid: string): Promise<boolean> {
  const row = await db.selectFrom('memberships').select('team_id').where('user_id', '=', userUuid).where('is_admin', '=', 1).limit(1).executeTakeFirst();
  return row !== undefined;
}

export async function isAdminOfTeam(db: DbOrTrx, teamUuid: string, userUuid: string): Promise<boolean> {
  const membership = await findMembership(db, teamUuid, userUuid);
  return membership?.admin === true;
}
