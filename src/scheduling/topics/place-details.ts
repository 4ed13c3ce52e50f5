import { NotFoundError, ValidationError } from '../../domain/errors.js';
import { normalizePlaceDetails, resolveLocation, validatePlaceDetails, type MeetingLocation, type PlaceDetails } from '../../domain/place-details.js';
import type { MeetingTopic } from '../../domain/meeting-topic.js';
import type { Place } from '../../domain/account.js';
import type { DbOrTrx } from '../../db/database.js';
import { findAccount } from '../../db/repositories/accounts.js';
import { findPlaceDetailsOfUsers, findUserPlaceDetails, updateUserPlaceDetails } from '../../db/repositories/place-details.js';
import { inTransaction } from '../../db/transaction.js';
import type { Principal, UseCaseContext } from '../context.js';
import { requireSelfOrTeamAdmin } from '../access.js';

/** A host's own place details (e.g. a personal meeting-room link); by the user or an admin of one of their teams. */
export async function getUserPlaceDetails(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, userUuid: string): Promise<PlaceDetails> {
  await requireSelfOrTeamAdmin(ctx.db, principal, userUuid);
  return (await findUserPlaceDetails(ctx.db, userUuid)) ?? {};
}

/**
 * Replaces a host's own place details as a whole (`{}` clears them). Each key must be a
 * place the account enables; an online place's value an https link. Meetings already booked
 * keep the location they were booked with.
 */
export async function setUserPlaceDetails(
  ctx: Pick<UseCaseContext, 'db'>,
  principal: Principal,
  userUuid: string,
  input: Readonly<Record<string, string | undefined>>,
): Promise<PlaceDetails> {
  return inTransaction(ctx.db, async (trx) => {
    await requireSelfOrTeamAdmin(trx, principal, userUuid);
    const account = await findAccount(trx, principal.accountUuid);
    if (!account) throw new NotFoundError('account');
    const errors = validatePlaceDetails(input, account.places, '', 'is not a place the account enables');
    if (errors.length > 0) throw new ValidationError(errors);
    const details = normalizePlaceDetails(input);
    await updateUserPlaceDetails(trx, userUuid, details);
    return details;
  });
}

/**
 * The location of each booked date, in the order of `hostUuids`: the host's own details,
 * else the topic's, else the participant's phone (phone calls). Read in the booking's
 * transaction, so the meeting keeps what was true when it was booked.
 */
export async function resolveLocations(
  db: DbOrTrx,
  topic: Pick<MeetingTopic, 'placeDetails'>,
  place: Place,
  hostUuids: readonly string[],
  participantPhone: string | null,
): Promise<MeetingLocation[]> {
  const details = await findPlaceDetailsOfUsers(db, hostUuids);
  return hostUuids.map((hostUuid) => resolveLocation(place, details.get(hostUuid) ?? {}, topic.placeDetails, participantPhone));
}
