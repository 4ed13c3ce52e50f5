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
 * Records the response. A concurrent request with the same key that got here first makes
 * this insert fail on the primary key; the caller's transaction retry then replays it.
 */
export async function insertIdempotentResponse(db: DbOrTrx, accountUuid: string, key: string, response: StoredResponse): Promise<void> {
  await db
    .insertInto('idempotency_keys')
    .values({
      account_id: accountUuid,
      key,
      request_hash: response.requestHash,
      response_status: response.status,
      response_body: response.body,
      created_at: response.createdAt,
    })
    .execute();
}

export async function deleteIdempotentResponse(db: DbOrTrx, accountUuid: string, key: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('account_id', '=', accountUuid).where('key', '=', key).execute();
}

export async function deleteIdempotentResponsesBefore(db: DbOrTrx, before: number): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
