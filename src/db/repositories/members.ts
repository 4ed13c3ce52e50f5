import type { DbOrTrx } from '../database.js';

/** Renames a user (the username stays: it is the host's stable handle in scheduling calls and links). */
export async function updateUserNames(db: DbOrTrx, userUuid: string, names: { firstName?: string | undefined; lastName?: string | undefined }): Promise<void> {
  const set: { first_name?: string; last_name?: string } = {};
  if (names.firstName !== undefined) set.first_name = names.firstName;
  if (names.lastName !== undefined) set.last_name = names.lastName;
  if (Object.keys(set).length === 0) return;
  await db.updateTable('users').set(set).where('id', '=', userUuid).execute();
}

export async function setMembershipAdmin(db: DbOrTrx, teamUuid: string, userUuid: string, admin: boolean): Promise<void> {
  await db
    .updateTable('memberships')
    .set({ is_admin: admin ? 1 : 0 })
    .where('team_id', '=', teamUuid)
    .where('user_id', '=', userUuid)
    .execute();
}
