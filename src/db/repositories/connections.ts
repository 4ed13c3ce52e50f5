import type { Selectable } from 'kysely';
import type { Connection, ConnectionStatus, HostPlaceFacts, IntegrationProvider } from '../../domain/integrations.js';
import type { PlaceDetails } from '../../domain/place-details.js';
import type { ConnectionTable, DbOrTrx } from '../database.js';

/** The sealed tokens of a connection, for the use case that opens them right before a call. */
export interface SealedTokens {
  accessTokenSealed: string | null;
  refreshTokenSealed: string | null;
  accessExpiresAt: number | null;
}

function rowToConnection(row: Selectable<ConnectionTable>): Connection {
  return {
    uuid: row.id,
    accountUuid: row.account_id,
    userUuid: row.user_id,
    provider: row.provider as IntegrationProvider,
    status: row.status as ConnectionStatus,
    accountEmail: row.account_email,
    lastError: row.last_error,
    createdAt: Number(row.created_at),
    connectedAt: row.connected_at === null ? null : Number(row.connected_at),
  };
}

function rowToTokens(row: Selectable<ConnectionTable>): SealedTokens {
  return {
    accessTokenSealed: row.access_token_sealed,
    refreshTokenSealed: row.refresh_token_sealed,
    accessExpiresAt: row.access_expires_at === null ? null : Number(row.access_expires_at),
  };
}

export async function insertConnection(db: DbOrTrx, connection: Connection, now: number): Promise<void> {
  await db
    .insertInto('connections')
    .values({
      id: connection.uuid,
      account_id: connection.accountUuid,
      user_id: connection.userUuid,
      provider: connection.provider,
      status: connection.status,
      account_email: null,
      last_error: null,
      access_token_sealed: null,
      refresh_token_sealed: null,
      access_expires_at: null,
      refresh_claim: null,
      refresh_lease_until: null,
      tokens_refreshed_at: null,
      created_at: connection.createdAt,
      connected_at: null,
      updated_at: now,
    })
    .execute();
}

export async function findConnection(db: DbOrTrx, connectionUuid: string): Promise<Connection | undefined> {
  const row = await db.selectFrom('connections').selectAll().where('id', '=', connectionUuid).executeTakeFirst();
  return row && rowToConnection(row);
}

/** The connection with its sealed tokens (never for the API). */
export async function findConnectionWithTokens(db: DbOrTrx, connectionUuid: string): Promise<{ connection: Connection; tokens: SealedTokens } | undefined> {
  const row = await db.selectFrom('connections').selectAll().where('id', '=', connectionUuid).executeTakeFirst();
  return row && { connection: rowToConnection(row), tokens: rowToTokens(row) };
}

export async function findConnectionOfUser(db: DbOrTrx, userUuid: string, provider: IntegrationProvider): Promise<Connection | undefined> {
  const row = await db.selectFrom('connections').selectAll().where('user_id', '=', userUuid).where('provider', '=', provider).executeTakeFirst();
  return row && rowToConnection(row);
}

/** The user's connections, oldest first. */
export async function listConnectionsOfUser(db: DbOrTrx, userUuid: string): Promise<Connection[]> {
  const rows = await db.selectFrom('connections').selectAll().where('user_id', '=', userUuid).orderBy('created_at').orderBy('id').execute();
  return rows.map(rowToConnection);
}

/** Per host, the providers whose connection works now and their own place details: what makes their places ready (absent: no such user). */
export async function findPlaceFactsOfUsers(db: DbOrTrx, userUuids: readonly string[]): Promise<Map<string, HostPlaceFacts>> {
  const result = new Map<string, HostPlaceFacts>();
  if (userUuids.length === 0) return result;
  const unique = [...new Set(userUuids)];
  const [users, connected] = await Promise.all([
    db.selectFrom('users').select(['id', 'place_details']).where('id', 'in', unique).execute(),
    db.selectFrom('connections').select(['user_id', 'provider']).where('user_id', 'in', unique).where('status', '=', 'connected').orderBy('provider').execute(),
  ]);
  for (const user of users) result.set(user.id, { connected: [], details: JSON.parse(user.place_details) as PlaceDetails });
  for (const row of connected) (result.get(row.user_id)?.connected as IntegrationProvider[] | undefined)?.push(row.provider as IntegrationProvider);
  return result;
}

/**
 * A change of what the host's places can give (a connection made, refused or removed): the
 * host's cached schedules, which say which places are ready, are stale from now on.
 */
async function bumpCalendarVersionOfConnection(db: DbOrTrx, connectionUuid: string): Promise<void> {
  await db
    .updateTable('users')
    .set((eb) => ({ calendar_version: eb('calendar_version', '+', 1) }))
    .where('id', '=', (eb) => eb.selectFrom('connections').select('user_id').where('id', '=', connectionUuid))
    .execute();
}

export async function deleteConnection(db: DbOrTrx, connectionUuid: string): Promise<boolean> {
  await bumpCalendarVersionOfConnection(db, connectionUuid);
  const result = await db.deleteFrom('connections').where('id', '=', connectionUuid).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** A completed authorization: tokens sealed, the provider account's e-mail, `connected`. */
export async function storeConnected(db: DbOrTrx, connectionUuid: string, values: { accountEmail: string | null; tokens: SealedTokens }, now: number): Promise<void> {
  await db
    .updateTable('connections')
    .set({
      status: 'connected',
      account_email: values.accountEmail,
      last_error: null,
      access_token_sealed: values.tokens.accessTokenSealed,
      refresh_token_sealed: values.tokens.refreshTokenSealed,
      access_expires_at: values.tokens.accessExpiresAt,
      refresh_claim: null,
      refresh_lease_until: null,
      tokens_refreshed_at: now,
      connected_at: now,
      updated_at: now,
    })
    .where('id', '=', connectionUuid)
    .execute();
  await bumpCalendarVersionOfConnection(db, connectionUuid);
}

/**
 * Claims a connection's refresh for `leaseMs` under `claim`: of several instances (or
 * requests) that find its access token expiring, one refreshes, the others wait for its result.
 * Only while its sealed access token is still `seenAccessSealed`, the one the caller read: a
 * refresh that ended since (its lease then free again) left new tokens, which the caller reads
 * instead of refreshing with a refresh token that provider may have rotated meanwhile.
 */
export async function claimTokenRefresh(db: DbOrTrx, connectionUuid: string, claim: string, seenAccessSealed: string | null, now: number, leaseMs: number): Promise<boolean> {
  const result = await db
    .updateTable('connections')
    .set({ refresh_claim: claim, refresh_lease_until: now + leaseMs })
    .where('id', '=', connectionUuid)
    .where('status', '=', 'connected')
    .where((eb) => eb.or([eb('refresh_lease_until', 'is', null), eb('refresh_lease_until', '<=', now)]))
    .where((eb) => (seenAccessSealed === null ? eb('access_token_sealed', 'is', null) : eb('access_token_sealed', '=', seenAccessSealed)))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Stores refreshed tokens and releases the claim, if `claim` still holds it. */
export async function storeRefreshedTokens(db: DbOrTrx, connectionUuid: string, claim: string, tokens: SealedTokens, now: number): Promise<boolean> {
  const result = await db
    .updateTable('connections')
    .set({
      access_token_sealed: tokens.accessTokenSealed,
      refresh_token_sealed: tokens.refreshTokenSealed,
      access_expires_at: tokens.accessExpiresAt,
      refresh_claim: null,
      refresh_lease_until: null,
      tokens_refreshed_at: now,
      updated_at: now,
    })
    .where('id', '=', connectionUuid)
    .where('refresh_claim', '=', claim)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Up to `limit` connected connections whose tokens were last stored at `before` or earlier, the
 * longest idle first, none whose refresh is claimed now: the ones to refresh before their
 * refresh token lapses unused.
 */
export async function findIdleConnections(db: DbOrTrx, before: number, now: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('connections')
    .select('id')
    .where('status', '=', 'connected')
    .where((eb) => eb.or([eb('tokens_refreshed_at', 'is', null), eb('tokens_refreshed_at', '<=', before)]))
    .where((eb) => eb.or([eb('refresh_lease_until', 'is', null), eb('refresh_lease_until', '<=', now)]))
    .orderBy('tokens_refreshed_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** Lets the claim go without new tokens (the refresh failed for a reason worth trying again). */
export async function releaseTokenRefresh(db: DbOrTrx, connectionUuid: string, claim: string): Promise<void> {
  await db.updateTable('connections').set({ refresh_claim: null, refresh_lease_until: null }).where('id', '=', connectionUuid).where('refresh_claim', '=', claim).execute();
}

/** The provider refused the connection's grant: `error` until the host connects again; true when this call made the change. */
export async function markConnectionFailed(db: DbOrTrx, connectionUuid: string, error: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('connections')
    .set({ status: 'error', last_error: error.slice(0, 1000), refresh_claim: null, refresh_lease_until: null, updated_at: now })
    .where('id', '=', connectionUuid)
    .where('status', '<>', 'error')
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) return false;
  await bumpCalendarVersionOfConnection(db, connectionUuid);
  return true;
}

export async function insertOauthState(
  db: DbOrTrx,
  state: { stateHash: string; connectionUuid: string; codeVerifierSealed: string; expiresAt: number; appSessionUuid: string | null },
  now: number,
): Promise<void> {
  await db
    .insertInto('oauth_states')
    .values({
      state_hash: state.stateHash,
      connection_id: state.connectionUuid,
      code_verifier_sealed: state.codeVerifierSealed,
      expires_at: state.expiresAt,
      used_at: null,
      created_at: now,
      app_session_id: state.appSessionUuid,
    })
    .execute();
}

/** Whether a `state` still to be used (unused, unexpired) was started from an `/app` session; nothing is changed. */
export async function isOauthStateSessionBound(db: DbOrTrx, stateHash: string, now: number): Promise<boolean> {
  const row = await db
    .selectFrom('oauth_states')
    .select('app_session_id')
    .where('state_hash', '=', stateHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row !== undefined && row.app_session_id !== null;
}

/**
 * Uses up a `state` once: answers its connection, sealed verifier and the `/app` session it is
 * bound to (null: none) when it exists, is unused and unexpired, and marks it used in the same
 * statement; undefined otherwise.
 */
export async function consumeOauthState(
  db: DbOrTrx,
  stateHash: string,
  now: number,
): Promise<{ connectionUuid: string; codeVerifierSealed: string; appSessionUuid: string | null } | undefined> {
  const row = await db
    .updateTable('oauth_states')
    .set({ used_at: now })
    .where('state_hash', '=', stateHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['connection_id', 'code_verifier_sealed', 'app_session_id'])
    .executeTakeFirst();
  return row && { connectionUuid: row.connection_id, codeVerifierSealed: row.code_verifier_sealed, appSessionUuid: row.app_session_id };
}

/** Forgets authorizations that ended more than a day ago. */
export async function deleteOldOauthStates(db: DbOrTrx, before: number): Promise<void> {
  await db.deleteFrom('oauth_states').where('expires_at', '<', before).execute();
}
