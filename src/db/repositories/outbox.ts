import type { DbOrTrx } from '../database.js';

export interface OutboxMessage {
  uuid: string;
  kind: string;
  payload: unknown;
  attempts: number;
}

/** Queues messages in one statement, in the caller's transaction. */
export async function enqueueMessages(db: DbOrTrx, messages: { uuid: string; kind: string; payload: unknown }[], now: number): Promise<void> {
  if (messages.length === 0) return;
  await db
    .insertInto('outbox')
    .values(
      messages.map((message) => ({
        id: message.uuid,
        kind: message.kind,
        payload: JSON.stringify(message.payload),
        status: 'pending',
        next_attempt_at: now,
        last_error: null,
        created_at: now,
        sent_at: null,
      })),
    )
    .execute();
}

/** Pending messages that are due, oldest first. */
export async function findDueMessages(db: DbOrTrx, now: number, limit: number): Promise<OutboxMessage[]> {
  const rows = await db
    .selectFrom('outbox')
    .select(['id', 'kind', 'payload', 'attempts'])
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ uuid: row.id, kind: row.kind, payload: JSON.parse(row.payload) as unknown, attempts: row.attempts }));
}

/**
 * Claims a message for `leaseMs` by pushing its next attempt into the future; only one
 * instance wins the conditional update, and a sender that dies lets the lease run out.
 */
export async function claimMessage(db: DbOrTrx, uuid: string, now: number, leaseMs: number): Promise<boolean> {
  const result = await db
    .updateTable('outbox')
    .set({ next_attempt_at: now + leaseMs })
    .where('id', '=', uuid)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function markMessageSent(db: DbOrTrx, uuid: string, now: number): Promise<void> {
  await db
    .updateTable('outbox')
    .set((eb) => ({ status: 'sent', sent_at: now, attempts: eb('attempts', '+', 1), last_error: null }))
    .where('id', '=', uuid)
    .execute();
}

export async function markMessageFailed(db: DbOrTrx, uuid: string, error: string, nextAttemptAt: number | null): Promise<void> {
  await db
    .updateTable('outbox')
    .set((eb) => ({
      status: nextAttemptAt === null ? 'failed' : 'pending',
      next_attempt_at: nextAttemptAt ?? 0,
      attempts: eb('attempts', '+', 1),
      last_error: error.slice(0, 2000),
    }))
    .where('id', '=', uuid)
    .execute();
}


/** Forgets messages sent before `before`: the outbox is a queue, not an archive. */
export async function deleteSentMessagesBefore(db: DbOrTrx, before: number): Promise<number> {
  const result = await db.deleteFrom('outbox').where('status', '=', 'sent').where('sent_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
