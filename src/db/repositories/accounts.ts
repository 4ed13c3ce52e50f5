import type { Account, Place } from '../../domain/account.js';
import type { AccountRow, DbOrTrx, Trx } from '../database.js';

/** Retention (`participant_data_days`) is read on its own (findRetention): the booking's hot read of the account leaves it out. */
export function accountRowToAccount(row: Omit<AccountRow, 'participant_data_days'>): Account {
  return {
    uuid: row.id,
    name: row.name,
    timezone: row.default_timezone,
    maxUsers: row.max_users,
    places: JSON.parse(row.places) as Place[],
    ownerUuid: row.owner_user_id,
    createdAt: row.created_at,
  };
}

export async function insertAccount(db: DbOrTrx, account: Account): Promise<void> {
  await db
    .insertInto('accounts')
    .values({
      id: account.uuid,
      name: account.name,
      default_timezone: account.timezone,
      max_users: account.maxUsers,
      places: JSON.stringify(account.places),
      owner_user_id: account.ownerUuid,
      created_at: account.createdAt,
    })
    .execute();
}

/** Makes `userUuid` the account's owner (a user of that account: the caller checks). */
export async function setAccountOwner(db: DbOrTrx, accountUuid: string, userUuid: string): Promise<void> {
  await db.updateTable('accounts').set({ owner_user_id: userUuid }).where('id', '=', accountUuid).execute();
}

export async function findAccount(db: DbOrTrx, accountUuid: string): Promise<Account | undefined> {
  const row = await db.selectFrom('accounts').selectAll().where('id', '=', accountUuid).executeTakeFirst();
  return row && accountRowToAccount(row);
}

export interface AccountChanges {
  name?: string;
  /** Retention: days a meeting's personal data is kept after it ended; null: until erased. */
  participantDataDays?: number | null;
  timezone?: string;
  maxUsers?: number;
  places?: Place[];
}

export async function writeAccountChanges(db: DbOrTrx, accountUuid: string, changes: AccountChanges): Promise<void> {
  const values = {
    ...(changes.name !== undefined && { name: changes.name }),
    ...(changes.timezone !== undefined && { default_timezone: changes.timezone }),
    ...(changes.maxUsers !== undefined && { max_users: changes.maxUsers }),
    ...(changes.places !== undefined && { places: JSON.stringify(changes.places) }),
    ...(changes.participantDataDays !== undefined && { participant_data_days: changes.participantDataDays }),
  };
  if (Object.keys(values).length === 0) return;
  await db.updateTable('accounts').set(values).where('id', '=', accountUuid).execute();
}

/** The account's retention: days a meeting's personal data is kept after it ended; null: until erased. */
export async function findRetention(db: DbOrTrx, accountUuid: string): Promise<number | null> {
  const row = await db.selectFrom('accounts').select('participant_data_days').where('id', '=', accountUuid).executeTakeFirst();
  return row?.participant_data_days ?? null;
}

/** The accounts that keep personal data for a limited time, with how long. */
export async function listRetentions(db: DbOrTrx): Promise<{ accountUuid: string; days: number }[]> {
  const rows = await db.selectFrom('accounts').select(['id', 'participant_data_days']).where('participant_data_days', 'is not', null).orderBy('id').execute();
  return rows.map((row) => ({ accountUuid: row.id, days: row.participant_data_days! }));
}

/**
 * Takes the account's row lock for the rest of the transaction (a write, so it works the
 * same on PostgreSQL, where it locks the row, and on SQLite, where the transaction already
 * holds the database's write lock). Seat counting and admin checks run under it, so
 * concurrent requests of one account see each other's effects.
 */
export async function lockAccount(trx: Trx, accountUuid: string): Promise<boolean> {
  const result = await trx
    .updateTable('accounts')
    .set((eb) => ({ lock_version: eb('lock_version', '+', 1) }))
    .where('id', '=', accountUuid)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Seats in use: the account's users that are not deactivated. */
export async function countActiveUsers(db: DbOrTrx, accountUuid: string): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountUuid)
    .where('deactivated_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function hasAnyAccount(db: DbOrTrx): Promise<boolean> {
  const row = await db.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
  return row !== undefined;
}

export async function listAccounts(db: DbOrTrx): Promise<Account[]> {
  const rows = await db.selectFrom('accounts').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map(accountRowToAccount);
}
