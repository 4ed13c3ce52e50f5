import type { PlaceDetails } from '../../domain/place-details.js';
import type { DbOrTrx } from '../database.js';

/** A host's own place details; undefined when the user does not exist. */
export async function findUserPlaceDetails(db: DbOrTrx, userUuid: string): Promise<PlaceDetails | undefined> {
  const row = await db.selectFrom('users').select('place_details').where('id', '=', userUuid).executeTakeFirst();
  return row && (JSON.parse(row.place_details) as PlaceDetails);
}

/** Several hosts' own place details at once (a booking of several dates), by user uuid. */
export async function findPlaceDetailsOfUsers(db: DbOrTrx, userUuids: readonly string[]): Promise<Map<string, PlaceDetails>> {
  const result = new Map<string, PlaceDetails>();
  if (userUuids.length === 0) return result;
  const rows = await db
    .selectFrom('users')
    .select(['id', 'place_details'])
    .where('id', 'in', [...new Set(userUuids)])
    .execute();
  for (const row of rows) result.set(row.id, JSON.parse(row.place_details) as PlaceDetails);
  return result;
}

export async function updateUserPlaceDetails(db: DbOrTrx, userUuid: string, details: PlaceDetails): Promise<void> {
  await db
    .updateTable('users')
    // The host's cached schedules say which places are ready: a static link changes that.
    .set((eb) => ({ place_details: JSON.stringify(details), calendar_version: eb('calendar_version', '+', 1) }))
    .where('id', '=', userUuid)
    .execute();
}
