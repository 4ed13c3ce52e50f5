import type { DbOrTrx } from '../database.js';

/** What the operator CLI reads and changes across accounts (nothing here is reachable through the API). */

export interface AccountUserRow {
  uuid: string;
  firstName: string;
  lastName: string;
  email: string;
  username: string;
  createdAt: number;
  deactivatedAt: number | null;
  teams: { uuid: string; name: string; admin: boolean }[];
  liveKeys: number;
}

export async function selectAccountUsers(db: DbOrTrx, accountUuid: string): Promise<AccountUserRow[]> {
  const users = await db
    .selectFrom('users')
    .select(['id', 'first_name', 'last_name', 'email', 'username', 'created_at', 'deactivated_at'])
    .where('account_id', '=', accountUuid)
    .orderBy('last_name')
    .orderBy('first_name')
    .orderBy('id')
    .execute();
  const teams = await db
    .selectFrom('memberships')
    .innerJoin('teams', 'teams.id', 'memberships.team_id')
    .select(['memberships.user_id', 'teams.id', 'teams.name', 'memberships.is_admin'])
    .where('teams.account_id', '=', accountUuid)
    .orderBy('teams.name')
    .execute();
  const keys = await db
    .selectFrom('api_keys')
    .select((eb) => ['user_id', eb.fn.countAll<number>().as('count')])
    .where('account_id', '=', accountUuid)
    .where('revoked_at', 'is', null)
    .groupBy('user_id')
    .execute();
  const keyCounts = new Map(keys.map((row) => [row.user_id, Number(row.count)]));
  return users.map((row) => ({
    uuid: row.id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    username: row.username,
    createdAt: row.created_at,
    deactivatedAt: row.deactivated_at,
    teams: teams.filter((team) => team.user_id === row.id).map((team) => ({ uuid: team.id, name: team.name, admin: team.is_admin === 1 })),
    liveKeys: keyCounts.get(row.id) ?? 0,
  }));
}

export interface KeyRow {
  uuid: string;
  userUuid: string;
  accountUuid: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

function keyRow(row: { id: string; user_id: string; account_id: string; name: string; created_at: number; last_used_at: number | null; revoked_at: number | null }): KeyRow {
  return { uuid: row.id, userUuid: row.user_id, accountUuid: row.account_id, name: row.name, createdAt: row.created_at, lastUsedAt: row.last_used_at, revokedAt: row.revoked_at };
}

/** Every key of the user, revoked ones too, oldest first (never the secret: only its hash is stored). */
export async function selectKeysOfUser(db: DbOrTrx, userUuid: string): Promise<KeyRow[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select(['id', 'user_id', 'account_id', 'name', 'created_at', 'last_used_at', 'revoked_at'])
    .where('user_id', '=', userUuid)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(keyRow);
}

export async function findKey(db: DbOrTrx, keyUuid: string): Promise<KeyRow | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .select(['id', 'user_id', 'account_id', 'name', 'created_at', 'last_used_at', 'revoked_at'])
    .where('id', '=', keyUuid)
    .executeTakeFirst();
  return row && keyRow(row);
}

export async function markKeyRevoked(db: DbOrTrx, keyUuid: string, now: number): Promise<void> {
  await db.updateTable('api_keys').set({ revoked_at: now }).where('id', '=', keyUuid).where('revoked_at', 'is', null).execute();
}

/** Deactivates every active user of the account; returns their ids. */
export async function deactivateUsersOfAccount(db: DbOrTrx, accountUuid: string, now: number): Promise<string[]> {
  const rows = await db.selectFrom('users').select('id').where('account_id', '=', accountUuid).where('deactivated_at', 'is', null).execute();
  if (rows.length > 0) await db.updateTable('users').set({ deactivated_at: now }).where('account_id', '=', accountUuid).where('deactivated_at', 'is', null).execute();
  return rows.map((row) => row.id);
}

export async function revokeKeysOfAccount(db: DbOrTrx, accountUuid: string, now: number): Promise<number> {
  const result = await db.updateTable('api_keys').set({ revoked_at: now }).where('account_id', '=', accountUuid).where('revoked_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function countRows(db: DbOrTrx, table: 'users' | 'meetings' | 'teams', accountUuid: string): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountUuid)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Deletes the account and everything that hangs off it. Meetings go first: they refer to
 * topics and users without a cascade; every other table cascades from the account.
 */
export async function deleteAccountRows(db: DbOrTrx, accountUuid: string): Promise<void> {
  await db.deleteFrom('meetings').where('account_id', '=', accountUuid).execute();
  await db.deleteFrom('accounts').where('id', '=', accountUuid).execute();
}

export interface OutboxGroup {
  kind: string;
  status: string;
  /** Pending jobs whose last attempt failed and that wait for their next one (webhook retries included). */
  retrying: number;
  count: number;
  oldestCreatedAt: number;
  lastError: string | null;
}

export async function selectOutboxGroups(db: DbOrTrx): Promise<OutboxGroup[]> {
  const groups = await db
    .selectFrom('outbox')
    .select((eb) => [
      'kind',
      'status',
      eb.fn.countAll<number>().as('count'),
      eb.fn.min('created_at').as('oldest'),
      eb.fn.sum<number>(eb.case().when('last_error', 'is not', null).then(1).else(0).end()).as('retrying'),
    ])
    .groupBy(['kind', 'status'])
    .orderBy('kind')
    .orderBy('status')
    .execute();
  const result: OutboxGroup[] = [];
  for (const group of groups) {
    const latest = await db
      .selectFrom('outbox')
      .select('last_error')
      .where('kind', '=', group.kind)
      .where('status', '=', group.status)
      .where('last_error', 'is not', null)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    result.push({
      kind: group.kind,
      status: group.status,
      count: Number(group.count),
      retrying: group.status === 'pending' ? Number(group.retrying ?? 0) : 0,
      oldestCreatedAt: Number(group.oldest),
      lastError: latest?.last_error ?? null,
    });
  }
  return result;
}

/** Failed jobs get a fresh set of attempts, due now; returns how many. */
export async function requeueFailedJobs(db: DbOrTrx, kind: string | undefined, now: number): Promise<number> {
  let query = db.updateTable('outbox').set({ status: 'pending', attempts: 0, next_attempt_at: now }).where('status', '=', 'failed');
  if (kind !== undefined) query = query.where('kind', '=', kind);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}
