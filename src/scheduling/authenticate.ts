import { parseApiKey, verifySecret } from '../domain/api-key.js';
import { UnauthenticatedError } from '../domain/errors.js';
import { isStorageFull } from '../db/errors.js';
import { findLiveApiKeyByLookup, touchApiKey } from '../db/repositories/api-keys.js';
import type { Principal, UseCaseContext } from './context.js';

// Recording every use would turn each read into a write; a minute's precision is plenty.
const LAST_USED_PRECISION_MS = 60_000;

/** The caller behind an `X-Service-Api-Key` value; missing, malformed, unknown or revoked keys throw. */
export async function authenticate(ctx: Pick<UseCaseContext, 'now' | 'db'>, rawKey: string | undefined): Promise<Principal> {
  const parsed = parseApiKey(rawKey);
  if (!parsed) throw new UnauthenticatedError(rawKey === undefined ? undefined : 'The API key is not valid');
  const credentials = await findLiveApiKeyByLookup(ctx.db, parsed.lookup);
  if (!credentials || !verifySecret(parsed.secret, credentials.secretHash)) {
    throw new UnauthenticatedError('The API key is not valid');
  }
  const now = ctx.now();
  if (credentials.lastUsedAt === null || now - credentials.lastUsedAt > LAST_USED_PRECISION_MS) {
    // Bookkeeping: a database with no room to store it (a full disk) must not fail a read.
    await touchApiKey(ctx.db, credentials.keyUuid, now).catch((error: unknown) => {
      if (!isStorageFull(error)) throw error;
    });
  }
  return {
    keyUuid: credentials.keyUuid,
    userUuid: credentials.userUuid,
    accountUuid: credentials.accountUuid,
    username: credentials.username,
    actor: { type: 'user', userUuid: credentials.userUuid, via: 'api-key' },
  };
}
