import { normalizeAvailability, validateAvailability, type Availability } from '../domain/availability.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../domain/errors.js';
import type { DbOrTrx } from '../db/database.js';
import { findAvailabilityJson, findUser, findUserIdsManagedBy, updateAvailability } from '../db/repositories/users.js';
import { inTransaction } from '../db/transaction.js';
import type { Principal, UseCaseContext } from './context.js';

/** The user's weekly hours and overrides; readable by the user and admins of their teams. */
export async function getAvailability(ctx: UseCaseContext, principal: Principal, userUuid: string): Promise<Availability> {
  await requireAvailabilityManager(ctx.db, principal, userUuid);
  return readAvailability(ctx.db, userUuid);
}

/** Replaces the user's availability as a whole; the new time zone becomes the user's. */
export async function setAvailability(ctx: UseCaseContext, principal: Principal, userUuid: string, input: Availability): Promise<Availability> {
  const errors = validateAvailability(input);
  if (errors.length > 0) throw new ValidationError(errors);
  const availability = normalizeAvailability(input);
  await inTransaction(ctx.db, async (trx) => {
    await requireAvailabilityManager(trx, principal, userUuid);
    await updateAvailability(trx, userUuid, availability.timezone, JSON.stringify(availability));
  });
  return availability;
}

export async function readAvailability(db: DbOrTrx, userUuid: string): Promise<Availability> {
  const json = await findAvailabilityJson(db, userUuid);
  if (json === undefined) throw new NotFoundError('user');
  return JSON.parse(json) as Availability;
}

async function requireAvailabilityManager(db: DbOrTrx, principal: Principal, userUuid: string): Promise<void> {
  const user = await findUser(db, principal.accountUuid, userUuid);
  if (!user || user.deactivatedAt !== null) throw new NotFoundError('user');
  if (user.uuid === principal.userUuid) return;
  if (!(await findUserIdsManagedBy(db, principal.userUuid)).has(user.uuid)) {
    throw new ForbiddenError("Only the user or an admin of one of the user's teams may do this");
  }
}
