import { isLang } from '../../domain/lang.js';
import type { HostLimits } from '../../domain/period-limits.js';
import type { Member, User } from '../../domain/user.js';
import { compileOnce } from '../compiled-query.js';
import type { DbOrTrx, UserRow } from '../database.js';

export function userRowToUser(row: UserRow): User {
  return {
    uuid: row.id,
    accountUuid: row.account_id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    username: row.username,
    timezone: row.timezone,
    language: isLang(row.language) ? row.language : null,
    createdAt: row.created_at,
    deactivatedAt: row.deactivated_at,
  };
}

/** A stored language termin still speaks; anything else reads as "not chosen". */

export interface NewUser extends User {
  emailNormalized: string;
  /** Serialised domain Availability. */
  availabilityJson: string;
}

export async function insertUser(db: DbOrTrx, user: NewUser): Promise<void> {
  await db
    .insertInto('users')
    .values({
      id: user.uuid,
      account_id: user.accountUuid,
      first_name: user.firstName,
      last_name: user.lastName,
      email: user.email,
      email_normalized: user.emailNormalized,
      username: user.username,
      timezone: user.timezone,
      availability: user.availabilityJson,
      created_at: user.createdAt,
      deactivated_at: null,
    })
    .execute();
}

/** A user of the account (active or not); another account's user is simply not found. */
export async function findUser(db: DbOrTrx, accountUuid: string, userUuid: string): Promise<User | undefined> {
  const row = await db.selectFrom('users').selectAll().where('account_id', '=', accountUuid).where('id', '=', userUuid).executeTakeFirst();
  return row && userRowToUser(row);
}

export async function findUserByEmail(db: DbOrTrx, accountUuid: string, emailNormalized: string): Promise<User | undefined> {
  const row = await db.selectFrom('users').selectAll().where('account_id', '=', accountUuid).where('email_normalized', '=', emailNormalized).executeTakeFirst();
  return row && userRowToUser(row);
}

/**
 * Usernames equal to `base` or of the form `base-…`, across all accounts (usernames are
 * global), given-up ones included: a generated username never takes over someone's old link.
 */
export async function findUsernamesStartingWith(db: DbOrTrx, base: string): Promise<string[]> {
  const rows = await db
    .selectFrom('users')
    .select('username')
    .where((eb) => eb.or([eb('username', '=', base), eb('username', 'like', `${base}-%`)]))
    .unionAll(
      db
        .selectFrom('previous_usernames')
        .select('username')
        .where((eb) => eb.or([eb('username', '=', base), eb('username', 'like', `${base}-%`)])),
    )
    .execute();
  return rows.map((row) => row.username);
}

/** Who holds a username now: a current user, or the user who gave it up and when (null: free). */
export async function findUsernameHolder(db: DbOrTrx, username: string): Promise<{ userUuid: string; retiredAt: number | null } | null> {
  const current = await db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirst();
  if (current) return { userUuid: current.id, retiredAt: null };
  const previous = await db.selectFrom('previous_usernames').select(['user_id', 'retired_at']).where('username', '=', username).executeTakeFirst();
  return previous ? { userUuid: previous.user_id, retiredAt: Number(previous.retired_at) } : null;
}

/**
 * Renames a user: the old username is kept as a previous one (its links redirect), and the new
 * one, if it was a previous username (theirs, or one whose hold has passed), stops being one.
 */
export async function renameUser(db: DbOrTrx, userUuid: string, from: string, to: string, now: number): Promise<void> {
  await db.deleteFrom('previous_usernames').where('username', 'in', [from, to]).execute();
  await db.insertInto('previous_usernames').values({ username: from, user_id: userUuid, retired_at: now }).execute();
  await db.updateTable('users').set({ username: to }).where('id', '=', userUuid).execute();
}

/** The current username of whoever gave up `username` (an active user), for the redirect of an old booking link. */
export async function findCurrentUsernameOf(db: DbOrTrx, previousUsername: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('previous_usernames')
    .innerJoin('users', 'users.id', 'previous_usernames.user_id')
    .select('users.username')
    .where('previous_usernames.username', '=', previousUsername)
    .where('users.deactivated_at', 'is', null)
    .executeTakeFirst();
  return row?.username;
}

export async function setUserLanguage(db: DbOrTrx, userUuid: string, language: string | null): Promise<void> {
  await db.updateTable('users').set({ language }).where('id', '=', userUuid).execute();
}

export async function setUserDeactivated(db: DbOrTrx, userUuid: string, deactivatedAt: number | null): Promise<void> {
  await db.updateTable('users').set({ deactivated_at: deactivatedAt }).where('id', '=', userUuid).execute();
}

/** The team's members with their admin flag, ordered by last then first name. */
export async function selectTeamMembers(db: DbOrTrx, teamUuid: string): Promise<Member[]> {
  const rows = await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .selectAll('users')
    .select('memberships.is_admin')
    .where('memberships.team_id', '=', teamUuid)
    .orderBy('users.last_name')
    .orderBy('users.first_name')
    .orderBy('users.id')
    .execute();
  return rows.map((row) => ({ ...userRowToUser(row), admin: row.is_admin === 1 }));
}

/** Any account's user: for operator commands, which act across accounts. */
export async function findUserAcrossAccounts(db: DbOrTrx, userUuid: string): Promise<User | undefined> {
  const row = await db.selectFrom('users').selectAll().where('id', '=', userUuid).executeTakeFirst();
  return row && userRowToUser(row);
}

/** Active users of the account with these usernames (missing ones are simply absent). */
export async function findActiveUsersByUsernames(db: DbOrTrx, accountUuid: string, usernames: string[]): Promise<User[]> {
  if (usernames.length === 0) return [];
  const rows = await db.selectFrom('users').selectAll().where('account_id', '=', accountUuid).where('username', 'in', usernames).where('deactivated_at', 'is', null).execute();
  return rows.map(userRowToUser);
}

/** An active user by username; `accountUuid` null searches every account (usernames are global). */
export async function findActiveUserByUsername(db: DbOrTrx, accountUuid: string | null, username: string): Promise<User | undefined> {
  let query = db.selectFrom('users').selectAll().where('username', '=', username).where('deactivated_at', 'is', null);
  if (accountUuid !== null) query = query.where('account_id', '=', accountUuid);
  const row = await query.executeTakeFirst();
  return row && userRowToUser(row);
}

/** A user of the account by username, active or deactivated (the explanation answers HOST_INACTIVE for the latter). */
export async function findUserByUsername(db: DbOrTrx, accountUuid: string, username: string): Promise<User | undefined> {
  const row = await db.selectFrom('users').selectAll().where('username', '=', username).where('account_id', '=', accountUuid).executeTakeFirst();
  return row && userRowToUser(row);
}

/** Ids of the users in any team the given user administers (the user included if so). */
export async function findUserIdsManagedBy(db: DbOrTrx, adminUuid: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('memberships as mine')
    .innerJoin('memberships as theirs', 'theirs.team_id', 'mine.team_id')
    .select('theirs.user_id')
    .distinct()
    .where('mine.user_id', '=', adminUuid)
    .where('mine.is_admin', '=', 1)
    .execute();
  return new Set(rows.map((row) => row.user_id));
}

/** The user's stored availability (JSON of the domain Availability). */
export async function findAvailabilityJson(db: DbOrTrx, userUuid: string): Promise<string | undefined> {
  return (await availabilityOf(db, userUuid)).rows[0]?.availability;
}

/** Several users' availability JSON by uuid, in one statement (a cold team view's hosts). */
export async function findAvailabilityJsonOfUsers(db: DbOrTrx, userUuids: readonly string[]): Promise<Map<string, string>> {
  if (userUuids.length === 0) return new Map();
  const rows = await db
    .selectFrom('users')
    .select(['id', 'availability'])
    .where('id', 'in', [...userUuids])
    .execute();
  return new Map(rows.map((row) => [row.id, row.availability]));
}

// The month view reads these on PostgreSQL for every host: compiled once.
const availabilityOf = compileOnce((db, userUuid: string) => db.selectFrom('users').select('availability').where('id', '=', userUuid));

/** Stores the availability; its time zone becomes the user's time zone. */
export async function updateAvailability(db: DbOrTrx, userUuid: string, timezone: string, availabilityJson: string): Promise<void> {
  await db
    .updateTable('users')
    .set((eb) => ({ timezone, availability: availabilityJson, calendar_version: eb('calendar_version', '+', 1) }))
    .where('id', '=', userUuid)
    .execute();
}

/** The host's calendar version (see UserTable.calendar_version). */
export async function findCalendarVersion(db: DbOrTrx, userUuid: string): Promise<number | undefined> {
  return (await calendarVersionOf(db, userUuid)).rows[0]?.calendar_version;
}

const calendarVersionOf = compileOnce((db, userUuid: string) => db.selectFrom('users').select('calendar_version').where('id', '=', userUuid));

/** The host's own limits across topics, with the zone they count in; undefined: no such user. */
export async function findHostLimits(db: DbOrTrx, userUuid: string): Promise<HostLimits | undefined> {
  const row = await db.selectFrom('users').select(['timezone', 'limit_daily', 'limit_weekly']).where('id', '=', userUuid).executeTakeFirst();
  return row && { timezone: row.timezone, daily: row.limit_daily ?? null, weekly: row.limit_weekly ?? null };
}

/** findHostLimits of several users in one statement (a cold team view's hosts). */
export async function findHostLimitsOfUsers(db: DbOrTrx, userUuids: readonly string[]): Promise<Map<string, HostLimits>> {
  if (userUuids.length === 0) return new Map();
  const rows = await db
    .selectFrom('users')
    .select(['id', 'timezone', 'limit_daily', 'limit_weekly'])
    .where('id', 'in', [...userUuids])
    .execute();
  return new Map(rows.map((row) => [row.id, { timezone: row.timezone, daily: row.limit_daily ?? null, weekly: row.limit_weekly ?? null }]));
}

/** Stores the host's limits and bumps the calendar version: every instance's cached views of the host see them at once. */
export async function updateHostLimits(db: DbOrTrx, userUuid: string, limits: { daily: number | null; weekly: number | null }): Promise<void> {
  await db
    .updateTable('users')
    .set((eb) => ({ limit_daily: limits.daily, limit_weekly: limits.weekly, calendar_version: eb('calendar_version', '+', 1) }))
    .where('id', '=', userUuid)
    .execute();
}
