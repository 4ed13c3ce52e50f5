import { normalizeAvailability, type Availability } from '../../domain/availability.js';
import { NotFoundError, ScheduleInUseError, ValidationError, type FieldError } from '../../domain/errors.js';
import { HOST_LIMIT_RANGES } from '../../domain/period-limits.js';
import { MAX_SCHEDULES_PER_USER, validateSchedule, type Schedule } from '../../domain/schedule.js';
import { bumpCalendarVersions } from '../../db/repositories/busy-time.js';
import { lockHost } from '../../db/repositories/meetings.js';
import { deleteSchedule, findSchedule, findTopicsUsingSchedule, insertSchedule, listSchedulesOfUser, updateSchedule } from '../../db/repositories/schedules.js';
import { findHostLimits, updateHostLimits } from '../../db/repositories/users.js';
import { inTransaction } from '../../db/transaction.js';
import { newId } from '../../ids.js';
import { requireSelfOrTeamAdmin } from '../access.js';
import type { Principal, UseCaseContext } from '../context.js';

/** What `POST` and `PUT …/schedules` say. */
export interface ScheduleInput extends Availability {
  name: string;
}

/**
 * A new named schedule of the user, beside their default hours (`…/availability`); a topic
 * uses it once it names it. By the user, or an admin of one of their teams, like the hours.
 */
export async function createSchedule(ctx: Pick<UseCaseContext, 'db' | 'now'>, principal: Principal, userUuid: string, input: ScheduleInput): Promise<Schedule> {
  const hours = checkedHours(input);
  return inTransaction(ctx.db, async (trx) => {
    await requireSelfOrTeamAdmin(trx, principal, userUuid);
    // The host's row lock: two creations at once cannot both pass the count.
    await lockHost(trx, userUuid);
    if ((await listSchedulesOfUser(trx, userUuid)).length >= MAX_SCHEDULES_PER_USER) {
      throw new ValidationError([{ path: '', message: `at most ${MAX_SCHEDULES_PER_USER} schedules per user; delete one first` }]);
    }
    const now = ctx.now();
    const schedule: Schedule = { uuid: newId(now), userUuid, name: input.name.trim(), ...hours, createdAt: now, updatedAt: now };
    await insertSchedule(trx, principal.accountUuid, schedule);
    return schedule;
  });
}

export async function listSchedules(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, userUuid: string): Promise<Schedule[]> {
  await requireSelfOrTeamAdmin(ctx.db, principal, userUuid);
  return listSchedulesOfUser(ctx.db, userUuid);
}

export async function getSchedule(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, userUuid: string, scheduleUuid: string): Promise<Schedule> {
  await requireSelfOrTeamAdmin(ctx.db, principal, userUuid);
  const schedule = await findSchedule(ctx.db, principal.accountUuid, userUuid, scheduleUuid);
  if (!schedule) throw new NotFoundError('schedule');
  return schedule;
}

/**
 * Replaces a schedule's name and hours as a whole. When live topics use it, the host's
 * calendar version is bumped, so every instance stops serving views computed with the old
 * hours at once (the host's views of topics on other hours are recomputed too: schedule
 * edits are rare, and a version per schedule would cost a read on every cached view). An
 * unused schedule's edit changes no view, so it leaves every cache as it is.
 */
export async function replaceSchedule(
  ctx: Pick<UseCaseContext, 'db' | 'now'>,
  principal: Principal,
  userUuid: string,
  scheduleUuid: string,
  input: ScheduleInput,
): Promise<Schedule> {
  const hours = checkedHours(input);
  return inTransaction(ctx.db, async (trx) => {
    await requireSelfOrTeamAdmin(trx, principal, userUuid);
    const current = await findSchedule(trx, principal.accountUuid, userUuid, scheduleUuid);
    if (!current) throw new NotFoundError('schedule');
    const schedule: Schedule = { ...current, holidays: undefined, holidayExceptions: undefined, name: input.name.trim(), ...hours, updatedAt: ctx.now() };
    await updateSchedule(trx, schedule);
    // Under the user's row lock (the bump, or the check's own): a topic choosing it meanwhile waits for this commit.
    await lockHost(trx, userUuid);
    if ((await findTopicsUsingSchedule(trx, principal.accountUuid, scheduleUuid)).length > 0) await bumpCalendarVersions(trx, [userUuid]);
    return schedule;
  });
}

/**
 * Deletes a schedule no topic uses. One in use is refused (SCHEDULE_IN_USE, naming the
 * topics) rather than letting those topics fall back to the default hours unseen: a host
 * who deletes "Summer hours" expects the topics on it to stop offering them, not to start
 * offering their weekday hours instead.
 */
export async function removeSchedule(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, userUuid: string, scheduleUuid: string): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    await requireSelfOrTeamAdmin(trx, principal, userUuid);
    // Under the host's lock, so a topic saved meanwhile with this schedule is seen (saving a topic checks the owner under it too).
    await lockHost(trx, userUuid);
    const current = await findSchedule(trx, principal.accountUuid, userUuid, scheduleUuid);
    if (!current) throw new NotFoundError('schedule');
    const users = await findTopicsUsingSchedule(trx, principal.accountUuid, scheduleUuid);
    if (users.length > 0) throw new ScheduleInUseError(users);
    await deleteSchedule(trx, scheduleUuid);
  });
}

function checkedHours(input: ScheduleInput): Availability {
  const hours: Availability = {
    timezone: input.timezone,
    weekly: input.weekly,
    overrides: input.overrides,
    holidays: input.holidays ?? null,
    holidayExceptions: input.holidayExceptions ?? [],
  };
  const errors = validateSchedule(input.name, hours);
  if (errors.length > 0) throw new ValidationError(errors);
  return normalizeAvailability(hours);
}

/** The host's own limits across all their topics; null: no limit. */
export interface HostLimitsInput {
  daily: number | null;
  weekly: number | null;
}

export async function getHostLimits(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, userUuid: string): Promise<HostLimitsInput> {
  await requireSelfOrTeamAdmin(ctx.db, principal, userUuid);
  const limits = await findHostLimits(ctx.db, userUuid);
  if (!limits) throw new NotFoundError('user');
  return { daily: limits.daily, weekly: limits.weekly };
}

/**
 * Sets the most meetings the host takes per day and per calendar week (Monday first) of
 * their time zone, whatever the topic; bumps the calendar version so views change at once.
 */
export async function setHostLimits(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, userUuid: string, input: HostLimitsInput): Promise<HostLimitsInput> {
  const errors: FieldError[] = [];
  for (const period of ['daily', 'weekly'] as const) {
    const value = input[period];
    const [min, max] = HOST_LIMIT_RANGES[period];
    if (value !== null && (!Number.isInteger(value) || value < min || value > max))
      errors.push({ path: `/${period}`, message: `must be an integer from ${min} to ${max}, or null` });
  }
  if (errors.length > 0) throw new ValidationError(errors);
  await inTransaction(ctx.db, async (trx) => {
    await requireSelfOrTeamAdmin(trx, principal, userUuid);
    await updateHostLimits(trx, userUuid, input);
  });
  return { daily: input.daily, weekly: input.weekly };
}
