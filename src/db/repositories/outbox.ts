import type { Insertable } from 'kysely';
import type { DbOrTrx, OutboxTable } from '../database.js';

export interface Job {
  uuid: string;
  kind: string;
  payload: unknown;
  attempts: number;
}

export interface NewJob {
  uuid: string;
  kind: string;
  payload: unknown;
  /** Not before this instant (default: at once). */
  runAt?: number;
}

/** Queues jobs in one statement, in the caller's transaction: they exist exactly when it commits. */
export async function enqueueJobs(db: DbOrTrx, jobs: NewJob[], now: number): Promise<void> {
  if (jobs.length === 0) return;
  await db.insertInto('outbox').values(jobRows(jobs, now)).execute();
}

export function jobRows(jobs: NewJob[], now: number): Insertable<OutboxTable>[] {
  return jobs.map((job) => ({
    id: job.uuid,
    kind: job.kind,
    payload: JSON.stringify(job.payload),
    status: 'pending',
    next_attempt_at: job.runAt ?? now,
    last_error: null,
    created_at: now,
    done_at: null,
  }));
}

/** Pending jobs of one kind that are due, oldest first. */
export async function findDueJobs(db: DbOrTrx, kind: string, now: number, limit: number): Promise<Job[]> {
  const rows = await db
    .selectFrom('outbox')
    .select(['id', 'kind', 'payload', 'attempts'])
    .where('kind', '=', kind)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ uuid: row.id, kind: row.kind, payload: JSON.parse(row.payload) as unknown, attempts: row.attempts }));
}

/**
 * Claims a job for `leaseMs` by pushing its next attempt into the future; only one
 * instance wins the conditional update, and a worker that dies lets the lease run out.
 */
export async function claimJob(db: DbOrTrx, uuid: string, now: number, leaseMs: number): Promise<boolean> {
  const result = await db
    .updateTable('outbox')
    .set({ next_attempt_at: now + leaseMs })
    .where('id', '=', uuid)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Marks a pending job done; false when it already was. A handler that writes further jobs
 * calls this in the same transaction, so its effects and its completion commit together.
 */
export async function completeJob(db: DbOrTrx, uuid: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('outbox')
    .set((eb) => ({ status: 'done', done_at: now, attempts: eb('attempts', '+', 1), last_error: null }))
    .where('id', '=', uuid)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Records a failed attempt: retried at `nextAttemptAt`, or given up (`failed`) when null. */
export async function failJob(db: DbOrTrx, uuid: string, error: string, nextAttemptAt: number | null): Promise<void> {
  await db
    .updateTable('outbox')
    .set((eb) => ({
      status: nextAttemptAt === null ? 'failed' : 'pending',
      next_attempt_at: nextAttemptAt ?? 0,
      attempts: eb('attempts', '+', 1),
      last_error: error.slice(0, 2000),
    }))
    .where('id', '=', uuid)
    .where('status', '=', 'pending')
    .execute();
}

/** Forgets jobs finished before `before`: the outbox is a queue, not an archive (events are). */
export async function deleteDoneJobsBefore(db: DbOrTrx, before: number): Promise<number> {
  const result = await db.deleteFrom('outbox').where('status', '=', 'done').where('done_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
