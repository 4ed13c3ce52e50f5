import { compileOnce } from '../compiled-query.js';
import type { ApiKeyRecord } from '../../domain/api-key.js';
import type { DbOrTrx } from '../database.js';

export interface ApiKeyCredentials {
  keyUuid: string;
  secretHash: string;
  accountUuid: string;
  userUuid: string;
  username: string;
  lastUsedAt: number | null;
}

export async function insertApiKey(
  db: DbOrTrx,
  key: { uuid: string; accountUuid: string; userUuid: string; name: string; lookup: string; secretHash: string; createdAt: number },
): Promise<void> {
  await db
    .insertInto('api_keys')
    .values({
      id: key.uuid,
      account_id: key.accountUuid,
      user_id: key.userUuid,
      name: key.name,
      lookup: key.lookup,
      secret_hash: key.secretHash,
      created_at: key.createdAt,
      revoked_at: null,
      last_used_at: null,
    })
    .execute();
}

/** The live key with this lookup part: not revoked, and its user not deactivated. */
export async function findLiveApiKeyByLookup(db: DbOrTrx, lookup: string): Promise<ApiKeyCredentials | undefined> {
  // Every API call starts here: compiled once.
  return (await liveApiKeyByLookup(db, lookup)).rows[0];
}

const liveApiKeyByLookup = compileOnce((db, lookup: string) =>
  db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .select([
      'api_keys.id as keyUuid',
      'api_keys.secret_hash as secretHash',
      'api_keys.account_id as accountUuid',
      'api_keys.user_id as userUuid',
      'api_keys.last_used_at as lastUsedAt',
      'users.username as username',
    ])
    .where('api_keys.lookup', '=', lookup)
    .where('api_keys.revoked_at', 'is', null)
    .where('users.deactivated_at', 'is', null),
);

export async function touchApiKey(db: DbOrTrx, keyUuid: string, usedAt: number): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: usedAt }).where('id', '=', keyUuid).execute();
}

/** One of the user's keys that is not revoked. */
export async function findLiveApiKeyOfUser(db: DbOrTrx, userUuid: string, keyUuid: string): Promise<ApiKeyRecord | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .select(['id', 'account_id', 'user_id', 'name', 'created_at', 'last_used_at'])
    .where('id', '=', keyUuid)
    .where('user_id', '=', userUuid)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row && apiKeyRowToRecord(row);
}

/** The user's keys that are not revoked, oldest first. */
export async function listLiveApiKeysOfUser(db: DbOrTrx, userUuid: string): Promise<ApiKeyRecord[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select(['id', 'account_id', 'user_id', 'name', 'created_at', 'last_used_at'])
    .where('user_id', '=', userUuid)
    .where('revoked_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(apiKeyRowToRecord);
}

function apiKeyRowToRecord(row: { id: string; account_id: string; user_id: string; name: string; created_at: number; last_used_at: number | null }): ApiKeyRecord {
  return { uuid: row.id, accountUuid: row.account_id, userUuid: row.user_id, name: row.name, createdAt: row.created_at, lastUsedAt: row.last_used_at };
}

/** Revokes one of the user's live keys; false when there was none to revoke. */
export async function revokeApiKey(db: DbOrTrx, userUuid: string, keyUuid: string, revokedAt: number): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: revokedAt })
    .where('id', '=', keyUuid)
    .where('user_id', '=', userUuid)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function revokeAllApiKeysOfUser(db: DbOrTrx, userUuid: string, revokedAt: number): Promise<void> {
  await db.updateTable('api_keys').set({ revoked_at: revokedAt }).where('user_id', '=', userUuid).where('revoked_at', 'is', null).execute();
}
