import { ForbiddenError, NotFoundError } from '../domain/errors.js';
import type { Team } from '../domain/team.js';
import type { DbOrTrx } from '../db/database.js';
import { findMembership, findTeam } from '../db/repositories/teams.js';
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
