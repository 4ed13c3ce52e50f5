import { generateApiKey } from '../domain/api-key.js';
import { NotFoundError } from '../domain/errors.js';
import { insertApiKey, listLiveApiKeysOfUser, revokeApiKey as markRevoked, type ApiKeyRecord } from '../db/repositories/api-keys.js';
import { findUser, findUserAcrossAccounts } from '../db/repositories/users.js';
import { newId } from '../ids.js';
import type { Principal, UseCaseContext } from './context.js';

export interface CreatedApiKey extends ApiKeyRecord {
  /** The secret; shown once, never stored in clear. */
  apiKey: string;
}

/** A new key for the caller themselves. */
export async function createApiKey(ctx: UseCaseContext, principal: Principal, name: string): Promise<CreatedApiKey> {
  return issueApiKey(ctx, principal.accountUuid, principal.userUuid, name);
}

/** An operator action (CLI `key create`): a new key for any active user. */
export async function createApiKeyForUser(
  ctx: UseCaseContext,
  userUuid: string,
  name = 'Operator-issued key',
): Promise<CreatedApiKey & { username: string }> {
  const user = await findUserAcrossAccounts(ctx.db, userUuid);
  if (!user || user.deactivatedAt !== null) throw new NotFoundError('user');
  const created = await issueApiKey(ctx, user.accountUuid, userUuid, name);
  return { ...created, username: user.username };
}

export async function listApiKeys(ctx: UseCaseContext, principal: Principal): Promise<ApiKeyRecord[]> {
  return listLiveApiKeysOfUser(ctx.db, principal.userUuid);
}

/** Revokes one of the caller's keys (the caller's current key included). */
export async function revokeApiKey(ctx: UseCaseContext, principal: Principal, keyUuid: string): Promise<void> {
  if (!(await markRevoked(ctx.db, principal.userUuid, keyUuid, ctx.now()))) throw new NotFoundError('API key');
}

async function issueApiKey(ctx: UseCaseContext, accountUuid: string, userUuid: string, name: string): Promise<CreatedApiKey> {
  const user = await findUser(ctx.db, accountUuid, userUuid);
  if (!user || user.deactivatedAt !== null) throw new NotFoundError('user');
  const now = ctx.now();
  const key = generateApiKey();
  const record: ApiKeyRecord = { uuid: newId(now), accountUuid, userUuid, name: name.trim() || 'API key', createdAt: now, lastUsedAt: null };
  await insertApiKey(ctx.db, { ...record, lookup: key.lookup, secretHash: key.secretHash });
  return { ...record, apiKey: key.apiKey };
}
