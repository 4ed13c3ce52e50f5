import type { DbOrTrx } from '../database.js';

export interface StoredResponse {
  requestHash: string;
  status: number;
  body: string;
  createdAt: number;
}

export async function findIdempotentResponse(db: DbOrTrx, accountUuid: string, key: string): Promise<StoredResponse | undefined> {
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'response_status', 'response_body', 'created_at'])
    .where('account_id', '=', accountUuid)
    .where('key', '=', key)
    .executeTakeFirst();
  return row && { requestHash: row.request_hash, status: row.response_status, body: row.response_body, createdAt: row.created_at };
}

/**
 * Claims the key for this transaction with a placeholder row. A concurrent request with the
 * same key blocks on the primary key until this transaction ends, then fails with a unique
 * violation; its retry finds the finished response and replays it. If this transaction
 * rolls back, the claim goes with it.
 */
export async function claimIdempotencyKey(db: DbOrTrx, accountUuid: string, key: string, requestHash: string, now: number): Promise<void> {
  await db.insertInto('idempotency_keys').values({ account_id: accountUuid, key, request_hash: requestHash, response_status: 0, response_body: '', created_at: now }).execute();
}

/** Stores the response of a claimed key, for replay. */
export async function completeIdempotencyKey(db: DbOrTrx, accountUuid: string, key: string, status: number, body: string): Promise<void> {
  await db.updateTable('idempotency_keys').set({ response_status: status, response_body: body }).where('account_id', '=', accountUuid).where('key', '=', key).execute();
}

export async function deleteIdempotentResponse(db: DbOrTrx, accountUuid: string, key: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('account_id', '=', accountUuid).where('key', '=', key).execute();
}
