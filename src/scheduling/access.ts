import { ForbiddenError, NotFoundError } from '../domain/errors.js';
import type { Team } from '../domain/team.js';
import type { User } from '../domain/user.js';
import type { DbOrTrx } from '../db/database.js';
import { findMembership, findTeam } from '../db/repositories/teams.js';
import { findUser, findUserIdsManagedBy } from '../db/repositories/users.js';
import type { Principal } from './context.js';

/**
 * The team, if the caller is one of its admins. Another account's team is "not found"
 * (never "forbidden"), so a key cannot probe which ids exist elsewhere.
 */
export async function requireTeamAdmin(db: DbOrTrx, principal: Principal, teamUuid: string): Promise<Team> {
  const team = await findTeam(db, principal.accountUuid, teamUuid);
  if (!team) throw new NotFoundError('team');
  const membership = await findMembership(db, team.uuid, principal.userUuid);
  if (!membership?.admin) throw new ForbiddenError('Only an admin of this team may do this');
  return team;
}

/**
 * The active user, if the caller is that user or an admin of one of their teams: who may set
 * a host's hours, place details, calendars and connections. Another account's user (or a
 * deactivated one) is "not found".
 */
export async function requireSelfOrTeamAdmin(db: DbOrTrx, principal: Principal, userUuid: string): Promise<User> {
  const user = await findUser(db, principal.accountUuid, userUuid);
  if (!user || user.deactivatedAt !== null) throw new NotFoundError('user');
  if (user.uuid === principal.userUuid) return user;
  if (!(await findUserIdsManagedBy(db, principal.userUuid)).has(user.uuid)) {
    throw new ForbiddenError("Only the user or an admin of one of the user's teams may do this");
  }
  return user;
}
