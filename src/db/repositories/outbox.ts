import type { Insertable } from 'kysely';
import { changedAny, compileOnce } from '../compiled-query.js';
import { isPostgres, type DbOrTrx, type OutboxTable } from '../database.js';

/**
 * A job to store. The outbox types each kind's payload (`NewJob` in src/outbox/job-kinds.ts,
 * which use cases queue through); this layer stores any kind as JSON.
 */
export interface JobToInsert<Kind extends string = string, Payload = unknown> {
  uuid: string;
  kind: Kind;
  payload: Payload;
  /** Not before this instant (default: at once). */
  runAt?: number;
  /**
   * Why the previous attempt at the same work failed, when this job is its retry (a webhook
   * delivery retries in a new job): the job then counts as retrying, like one failJob put back.
   */
  lastError?: string | null;
}

/** Queues jobs in one statement, in the caller's transaction: they exist exactly when it commits. */
export async function insertJobs(db: DbOrTrx, jobs: readonly JobToInsert[], now: number): Promise<void> {
  if (jobs.length === 0) return;
  await db.insertInto('outbox').values(jobRows(jobs, now)).execute();
}

export function jobRows(jobs: readonly JobToInsert[], now: number): Insertable<OutboxTable>[] {
  return jobs.map((job) => ({
    id: job.uuid,
    kind: job.kind,
    payload: JSON.stringify(job.payload),
    status: 'pending',
    next_attempt_at: job.runAt ?? now,
    last_error: job.lastError?.slice(0, 2000) ?? null,
    created_at: now,
    done_at: null,
  }));
}

/** A job as the worker that claimed it holds it, until its lease ends. */
export interface ClaimedJob {
  uuid: string;
  kind: string;
  payload: unknown;
  /** Attempts made before this one. */
  attempts: number;
  /** The claim's token: completeJob and failJob succeed only while the job still carries it. */
  claim: string;
  /** When it was due (before the claim pushed it on by the lease): how late the outbox is. */
  dueAt: number;
}

/**
 * Claims up to `limit` due pending jobs of one kind, oldest due first, in one statement: each
 * gets the token `claim` and a lease, its next attempt pushed to `now + leaseMs`, so nobody
 * else takes it before then. A worker that dies lets the lease run out; then anyone may claim
 * the job again (at least once), and the token tells the late worker it lost it.
 *
 * The jobs are chosen in a materialized CTE so that its LIMIT is applied once: PostgreSQL may
 * run a plain `IN (subquery)` again for each row of a nested loop, and with SKIP LOCKED each run
 * can pick other rows, claiming more than `limit`. On PostgreSQL, FOR UPDATE SKIP LOCKED lets
 * instances claiming at once take different jobs without waiting for each other; SQLite has
 * one writer, so its statements never overlap. On PostgreSQL the conditions are repeated on the
 * UPDATE so a row claimed by someone else between the choice and the update is left alone whatever the plan.
 * The jobs come back in no particular order: the worker starts them all at once.
 */
export async function claimJobs(db: DbOrTrx, kind: string, claim: string, now: number, leaseMs: number, limit: number): Promise<ClaimedJob[]> {
  const { rows } = await claimDue(db, kind, claim, now, now + leaseMs, limit);
  return rows.map((row) => ({
    uuid: row.id,
    kind: row.kind,
    payload: JSON.parse(row.payload) as unknown,
    attempts: row.attempts,
    claim,
    dueAt: Number(row.due_at ?? now),
  }));
}

// The outbox's own statements run several times per job, on every instance, all day: each is
// built and compiled once per dialect (compiled-query.ts); building them anew was a tenth of
// the server's CPU under a booking peak on PostgreSQL (bench/outbox.ts, a CPU profile).
const claimDue = compileOnce((db, kind: string, claim: string, now: number, leaseUntil: number, limit: number) => {
  const postgres = isPostgres(db);
  const update = db
    .with(
      (cte) => cte('due').materialized(),
      (qb) => {
        const due = qb
          .selectFrom('outbox')
          .select(['id', 'next_attempt_at'])
          .where('kind', '=', kind)
          .where('status', '=', 'pending')
          .where('next_attempt_at', '<=', now)
          .orderBy('next_attempt_at');
        // SQLite: ties go by rowid, the order the jobs were queued in, straight off the
        // (kind, status, next_attempt_at) index. Ordering by id as well made it sort every due
        // job of the kind for each claim: with a backlog of thousands, each claim cost more
        // than the job it claimed, and the backlog fed itself.
        return postgres ? due.orderBy('id').limit(limit).forUpdate().skipLocked() : due.limit(limit);
      },
    )
    .updateTable('outbox')
    .set({ claim, next_attempt_at: leaseUntil })
    .where('id', 'in', (eb) => eb.selectFrom('due').select('due.id'));
  // On SQLite the choice and the update are one statement of the one writer: nothing can
  // claim a row in between, and repeating the conditions made its planner walk every due job
  // of every kind (the status index) instead of looking the chosen ids up.
  return (postgres ? update.where('status', '=', 'pending').where('next_attempt_at', '<=', now) : update).returning([
    'id',
    'kind',
    'payload',
    'attempts',
    // The due time the update just replaced, from the chosen rows (looked up among at most `limit`).
    (eb) => eb.selectFrom('due').select('due.next_attempt_at').whereRef('due.id', '=', 'outbox.id').as('due_at'),
  ]);
});

/**
 * Marks a job done if the claim `job.claim` still holds it; false when it does not (another
 * worker claimed it after the lease ran out, or it is no longer pending). A handler that writes
 * further jobs calls this in the same transaction, so its effects and its completion commit
 * together, and with the same claim.
 */
export async function completeJob(db: DbOrTrx, job: Pick<ClaimedJob, 'uuid' | 'claim'>, now: number): Promise<boolean> {
  return changedAny(await completeClaimed(db, job.uuid, job.claim, now));
}

const completeClaimed = compileOnce((db, uuid: string, claim: string, now: number) =>
  db
    .updateTable('outbox')
    .set((eb) => ({ status: 'done', done_at: now, attempts: eb('attempts', '+', 1), last_error: null, claim: null }))
    .where('id', '=', uuid)
    .where('claim', '=', claim)
    .where('status', '=', 'pending'),
);

/**
 * Records a failed attempt, if the claim `job.claim` still holds the job: retried at
 * `nextAttemptAt` (by whoever claims it then), or given up (`failed`) when null. False when the
 * claim was lost: the new holder's outcome is the one that counts.
 */
export async function failJob(db: DbOrTrx, job: Pick<ClaimedJob, 'uuid' | 'claim'>, error: string, nextAttemptAt: number | null): Promise<boolean> {
  return changedAny(await failClaimed(db, job.uuid, job.claim, nextAttemptAt === null ? 'failed' : 'pending', nextAttemptAt ?? 0, error.slice(0, 2000)));
}

const failClaimed = compileOnce((db, uuid: string, claim: string, status: string, nextAttemptAt: number, error: string) =>
  db
    .updateTable('outbox')
    .set((eb) => ({ status, next_attempt_at: nextAttemptAt, attempts: eb('attempts', '+', 1), last_error: error, claim: null }))
    .where('id', '=', uuid)
    .where('claim', '=', claim)
    .where('status', '=', 'pending'),
);

/**
 * Puts a job off until `until` without counting an attempt (its handler waits for something
 * else to end), if the claim `job.claim` still holds it; its last error is kept. False when
 * the claim was lost.
 */
export async function deferJob(db: DbOrTrx, job: Pick<ClaimedJob, 'uuid' | 'claim'>, until: number): Promise<boolean> {
  return changedAny(await deferClaimed(db, job.uuid, job.claim, until));
}

const deferClaimed = compileOnce((db, uuid: string, claim: string, until: number) =>
  db.updateTable('outbox').set({ next_attempt_at: until, claim: null }).where('id', '=', uuid).where('claim', '=', claim).where('status', '=', 'pending'),
);

/**
 * Makes pending jobs that nobody holds due at `now` if they were due later: a job that was
 * put off until something ended, once it has. Jobs already due, running or done are left.
 */
export async function advanceJobs(db: DbOrTrx, uuids: readonly string[], now: number): Promise<void> {
  if (uuids.length === 0) return;
  await db
    .updateTable('outbox')
    .set({ next_attempt_at: now })
    .where('id', 'in', uuids)
    .where('status', '=', 'pending')
    .where('claim', 'is', null)
    .where('next_attempt_at', '>', now)
    .execute();
}
