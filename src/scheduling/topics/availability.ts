import { normalizeAvailability, validateAvailability, type Availability, type LocalInterval } from '../../domain/availability.js';
import { NotFoundError, ValidationError } from '../../domain/errors.js';
import type { DbOrTrx } from '../../db/database.js';
import { lockHost } from '../../db/repositories/meetings.js';
import { findAvailabilityJson, updateAvailability } from '../../db/repositories/users.js';
import { markSetupStep } from '../../db/repositories/host-setup.js';
import { inTransaction } from '../../db/transaction.js';
import type { Principal, UseCaseContext } from '../context.js';
import { requireSelfOrTeamAdmin } from '../access.js';

/** The user's weekly hours and overrides; readable by the user and admins of their teams. */
export async function getAvailability(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, userUuid: string): Promise<Availability> {
  await requireSelfOrTeamAdmin(ctx.db, principal, userUuid);
  return readAvailability(ctx.db, userUuid);
}

/**
 * Replaces the user's availability as a whole; the new time zone becomes the user's. Saving it
 * (even unchanged from the default) ticks "hours" on the web app's first-run checklist.
 */
export async function setAvailability(ctx: Pick<UseCaseContext, 'db' | 'now'>, principal: Principal, userUuid: string, input: Availability): Promise<Availability> {
  const errors = validateAvailability(input);
  if (errors.length > 0) throw new ValidationError(errors);
  const availability = normalizeAvailability(input);
  await inTransaction(ctx.db, async (trx) => {
    await requireSelfOrTeamAdmin(trx, principal, userUuid);
    await updateAvailability(trx, userUuid, availability.timezone, JSON.stringify(availability));
    await markSetupStep(trx, userUuid, 'hours', ctx.now());
  });
  return availability;
}

/** Most overrides one user keeps (as the whole-week PUT allows). */
const MAX_OVERRIDES = 1000;

/**
 * Adds or replaces the override of one host-local date, leaving the weekly hours and every
 * other override as they are. `intervals: []` makes the date a day off. The host's row is
 * locked first, so two editors changing different dates at once both keep their change;
 * `updateAvailability` bumps the calendar version, so no instance serves stale slots.
 */
export async function setDateOverride(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, userUuid: string, date: string, intervals: LocalInterval[]): Promise<Availability> {
  return inTransaction(ctx.db, async (trx) => {
    await requireSelfOrTeamAdmin(trx, principal, userUuid);
    await lockHost(trx, userUuid);
    const current = await readAvailability(trx, userUuid);
    const errors = validateAvailability({ ...current, overrides: [{ date, intervals }] }).map((error) => ({
      ...error,
      path: error.path.replace(/^\/overrides\/0\/date/, '/params/date').replace(/^\/overrides\/0/, ''),
    }));
    if (errors.length > 0) throw new ValidationError(errors);
    const others = current.overrides.filter((override) => override.date !== date);
    if (others.length >= MAX_OVERRIDES) throw new ValidationError([{ path: '/params/date', message: `at most ${MAX_OVERRIDES} date overrides per user; remove some first` }]);
    const availability = normalizeAvailability({ ...current, overrides: [...others, { date, intervals }] });
    await updateAvailability(trx, userUuid, availability.timezone, JSON.stringify(availability));
    return availability;
  });
}

/** Removes one date's override (the weekly hours apply to it again); NotFound when the date has none. */
export async function removeDateOverride(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, userUuid: string, date: string): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    await requireSelfOrTeamAdmin(trx, principal, userUuid);
    await lockHost(trx, userUuid);
    const current = await readAvailability(trx, userUuid);
    const others = current.overrides.filter((override) => override.date !== date);
    if (others.length === current.overrides.length) throw new NotFoundError(`override for ${date}`);
    await updateAvailability(trx, userUuid, current.timezone, JSON.stringify({ ...current, overrides: others }));
  });
}

export async function readAvailability(db: DbOrTrx, userUuid: string): Promise<Availability> {
  const json = await findAvailabilityJson(db, userUuid);
  if (json === undefined) throw new NotFoundError('user');
  return JSON.parse(json) as Availability;
}
