import { generateApiKey, type ApiKeyRecord } from '../../domain/api-key.js';
import { DomainError, NotFoundError } from '../../domain/errors.js';
import { lockAccount } from '../../db/repositories/accounts.js';
import { inTransaction } from '../../db/transaction.js';
import { findLiveApiKeyOfUser, insertApiKey, listLiveApiKeysOfUser, revokeApiKey as markRevoked } from '../../db/repositories/api-keys.js';
import { findUser, findUserAcrossAccounts } from '../../db/repositories/users.js';
import { newId } from '../../ids.js';
import type { Principal, UseCaseContext } from '../context.js';
import { OPERATOR_ACTOR, type Actor } from '../../domain/audit.js';
import type { DbOrTrx } from '../../db/database.js';
import { actorOf, recordAuditEvent } from '../audit/record-audit.js';

export interface CreatedApiKey extends ApiKeyRecord {
  /** The secret; shown once, never stored in clear. */
  apiKey: string;
}

/** A new key for the caller themselves. */
export async function createApiKey(ctx: Pick<UseCaseContext, 'maxApiKeysPerUser' | 'now' | 'db'>, principal: Principal, name: string): Promise<CreatedApiKey> {
  return issueApiKey(ctx, principal.accountUuid, principal.userUuid, name, actorOf(principal));
}

/** An operator action (CLI `key create`): a new key for any active user. */
export async function createApiKeyForUser(
  ctx: Pick<UseCaseContext, 'maxApiKeysPerUser' | 'now' | 'db'>,
  userUuid: string,
  name = 'Operator-issued key',
): Promise<CreatedApiKey & { username: string }> {
  const user = await findUserAcrossAccounts(ctx.db, userUuid);
  if (!user || user.deactivatedAt !== null) throw new NotFoundError('user');
  const created = await issueApiKey(ctx, user.accountUuid, userUuid, name, OPERATOR_ACTOR);
  return { ...created, username: user.username };
}

export async function listApiKeys(ctx: Pick<UseCaseContext, 'db'>, principal: Principal): Promise<ApiKeyRecord[]> {
  return listLiveApiKeysOfUser(ctx.db, principal.userUuid);
}

/** One of the caller's live keys (its metadata: the secret is not stored); another user's or a revoked one is not found. */
export async function getApiKey(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, keyUuid: string): Promise<ApiKeyRecord> {
  const key = await findLiveApiKeyOfUser(ctx.db, principal.userUuid, keyUuid);
  if (!key) throw new NotFoundError('API key');
  return key;
}

/** Revokes one of the caller's keys (the caller's current key included). */
export async function revokeApiKey(ctx: Pick<UseCaseContext, 'now' | 'db'>, principal: Principal, keyUuid: string): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const now = ctx.now();
    if (!(await markRevoked(trx, principal.userUuid, keyUuid, now))) throw new NotFoundError('API key');
    await recordKeyRevoked(trx, { accountUuid: principal.accountUuid, keyUuid, userUuid: principal.userUuid }, actorOf(principal), now);
  });
}

/** `key.revoked` in the audit log, in the revoking transaction (also the operator's, src/scheduling/operator). */
export async function recordKeyRevoked(trx: DbOrTrx, key: { accountUuid: string; keyUuid: string; userUuid: string }, actor: Actor, now: number): Promise<void> {
  await recordAuditEvent(trx, {
    accountUuid: key.accountUuid,
    action: 'key.revoked',
    actor,
    target: { type: 'api-key', uuid: key.keyUuid },
    details: { userUuid: key.userUuid },
    now,
  });
}

/**
 * Keys are capped per user (MAX_API_KEYS_PER_USER, 50 by default): each one is a credential to guard and revoke,
 * and an unbounded number lets one leaked key mint thousands more. The count and the insert
 * run under the account's lock, so concurrent requests cannot go past the cap together.
 */
async function issueApiKey(
  ctx: Pick<UseCaseContext, 'maxApiKeysPerUser' | 'now' | 'db'>,
  accountUuid: string,
  userUuid: string,
  name: string,
  actor: Actor,
): Promise<CreatedApiKey> {
  const maxKeys = ctx.maxApiKeysPerUser;
  const now = ctx.now();
  const key = generateApiKey();
  const record: ApiKeyRecord = { uuid: newId(now), accountUuid, userUuid, name: name.trim() || 'API key', createdAt: now, lastUsedAt: null };
  await inTransaction(ctx.db, async (trx) => {
    await lockAccount(trx, accountUuid);
    const user = await findUser(trx, accountUuid, userUuid);
    if (!user || user.deactivatedAt !== null) throw new NotFoundError('user');
    const live = await listLiveApiKeysOfUser(trx, userUuid);
    if (live.length >= maxKeys) {
      throw new DomainError('PLAN_LIMIT_REACHED', `A user may hold at most ${maxKeys} API keys; revoke one (DELETE /api/v1/api-keys/{uuid}) before creating another`);
    }
    await insertApiKey(trx, { ...record, lookup: key.lookup, secretHash: key.secretHash });
    // The key's name and owner, never its secret or lookup.
    await recordAuditEvent(trx, { accountUuid, action: 'key.created', actor, target: { type: 'api-key', uuid: record.uuid }, details: { userUuid, name: record.name }, now });
  });
  return { ...record, apiKey: key.apiKey };
}
