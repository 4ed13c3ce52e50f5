import type { DbOrTrx } from '../database.js';

/**
 * Takes (or extends) the named lease for `holder` until `until`, if nobody else holds it
 * now: true when `holder` holds it. One conditional update, so of instances asking at once
 * exactly one gets it; a holder that dies lets go when its lease ends.
 */
export async function claimMaintenanceLease(db: DbOrTrx, name: string, holder: string, now: number, until: number): Promise<boolean> {
  await db
    .insertInto('maintenance_leases')
    .values({ name, holder: null, lease_until: 0 })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const result = await db
    .updateTable('maintenance_leases')
    .set({ holder, lease_until: until })
    .where('name', '=', name)
    .where((eb) => eb.or([eb('lease_until', '<=', now), eb('holder', '=', holder)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Lets go of the lease, if `holder` still holds it. */
export async function releaseMaintenanceLease(db: DbOrTrx, name: string, holder: string): Promise<void> {
  await db.updateTable('maintenance_leases').set({ holder: null, lease_until: 0 }).where('name', '=', name).where('holder', '=', holder).execute();
}
