import type { Availability } from '../../domain/availability.js';
import type { Schedule } from '../../domain/schedule.js';
import type { DbOrTrx, ScheduleRow } from '../database.js';

export function scheduleRowToSchedule(row: ScheduleRow): Schedule {
  const hours = JSON.parse(row.availability) as Availability;
  return {
    uuid: row.id,
    userUuid: row.user_id,
    name: row.name,
    timezone: hours.timezone,
    weekly: hours.weekly,
    overrides: hours.overrides,
    ...holidayFieldsOf(hours),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function hoursJson(schedule: Schedule): string {
  const hours: Availability = { timezone: schedule.timezone, weekly: schedule.weekly, overrides: schedule.overrides, ...holidayFieldsOf(schedule) };
  return JSON.stringify(hours);
}

/** A schedule's public holidays, when it names a country or exceptions (see normalizeAvailability). */
function holidayFieldsOf(hours: Availability): Pick<Availability, 'holidays' | 'holidayExceptions'> {
  return hours.holidays !== undefined || hours.holidayExceptions !== undefined ? { holidays: hours.holidays ?? null, holidayExceptions: hours.holidayExceptions ?? [] } : {};
}

export async function insertSchedule(db: DbOrTrx, accountUuid: string, schedule: Schedule): Promise<void> {
  await db
    .insertInto('schedules')
    .values({
      id: schedule.uuid,
      account_id: accountUuid,
      user_id: schedule.userUuid,
      name: schedule.name,
      availability: hoursJson(schedule),
      created_at: schedule.createdAt,
      updated_at: schedule.updatedAt,
    })
    .execute();
}

export async function updateSchedule(db: DbOrTrx, schedule: Schedule): Promise<void> {
  await db
    .updateTable('schedules')
    .set({ name: schedule.name, availability: hoursJson(schedule), updated_at: schedule.updatedAt })
    .where('id', '=', schedule.uuid)
    .execute();
}

export async function deleteSchedule(db: DbOrTrx, scheduleUuid: string): Promise<void> {
  await db.deleteFrom('schedules').where('id', '=', scheduleUuid).execute();
}

/** One of the user's schedules; another user's (or account's) is simply not found. */
export async function findSchedule(db: DbOrTrx, accountUuid: string, userUuid: string, scheduleUuid: string): Promise<Schedule | undefined> {
  const row = await db.selectFrom('schedules').selectAll().where('id', '=', scheduleUuid).where('account_id', '=', accountUuid).where('user_id', '=', userUuid).executeTakeFirst();
  return row && scheduleRowToSchedule(row);
}

/** The user's schedules, oldest first. */
export async function listSchedulesOfUser(db: DbOrTrx, userUuid: string): Promise<Schedule[]> {
  const rows = await db.selectFrom('schedules').selectAll().where('user_id', '=', userUuid).orderBy('created_at').orderBy('id').execute();
  return rows.map(scheduleRowToSchedule);
}

/** Owners of the account's schedules with these uuids (missing ones are absent): to check a topic's choice. */
export async function findScheduleOwners(db: DbOrTrx, accountUuid: string, scheduleUuids: readonly string[]): Promise<Map<string, string>> {
  if (scheduleUuids.length === 0) return new Map();
  const rows = await db
    .selectFrom('schedules')
    .select(['id', 'user_id'])
    .where('account_id', '=', accountUuid)
    .where('id', 'in', [...scheduleUuids])
    .execute();
  return new Map(rows.map((row) => [row.id, row.user_id]));
}

/** The schedule's hours (JSON of the domain Availability) if it is this user's. */
export async function findScheduleJson(db: DbOrTrx, scheduleUuid: string, userUuid: string): Promise<string | undefined> {
  const row = await db.selectFrom('schedules').select('availability').where('id', '=', scheduleUuid).where('user_id', '=', userUuid).executeTakeFirst();
  return row?.availability;
}

/**
 * Names of the live topics that use the schedule (an individual topic's `schedule`, or a
 * team topic's `hostSchedules`). The JSON map is matched as text: a uuid appears in it
 * only as a value.
 */
export async function findTopicsUsingSchedule(db: DbOrTrx, accountUuid: string, scheduleUuid: string): Promise<string[]> {
  const rows = await db
    .selectFrom('meeting_topics')
    .select('name')
    .where('account_id', '=', accountUuid)
    .where('deleted_at', 'is', null)
    .where((eb) => eb.or([eb('schedule_id', '=', scheduleUuid), eb('host_schedules', 'like', `%"${scheduleUuid}"%`)]))
    .orderBy('name')
    .execute();
  return rows.map((row) => row.name);
}
