import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import { claimJobs, completeJob, failJob, type ClaimedJob } from '../db/repositories/outbox.js';
import { newId } from '../ids.js';
import { LostClaimError, PermanentJobError, type JobHandler } from './job-handler.js';

export interface OutboxRun {
  db: Db;
  handlers: readonly JobHandler[];
  log: Logger;
  now: () => number;
  /** A claimed job is retried by anyone after this long (its worker may have died). */
  leaseMs?: number;
}

const BASE_RETRY_MS = 5_000;
const MAX_RETRY_MS = 3_600_000;

/** Delay before attempt n+1: 5 s, 10 s, 20 s … capped at an hour, ±20 % jitter so retries spread out. */
export function defaultRetryDelayMs(attempts: number): number {
  const exponential = Math.min(BASE_RETRY_MS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_MS);
  return Math.round(exponential * (0.8 + Math.random() * 0.4));
}

/**
 * Runs every due job once: per kind, claim (so only one instance runs it), handle, record.
 * Kinds run side by side, so a slow kind (a dead webhook receiver) never delays another
 * (e-mail). A failure schedules a retry with backoff; the change that queued the job is
 * never affected.
 */
export async function runDueJobs(run: OutboxRun): Promise<{ done: number; failed: number }> {
  const results = await Promise.all(run.handlers.map((handler) => runKind(run, handler)));
  return results.reduce((sum, result) => ({ done: sum.done + result.done, failed: sum.failed + result.failed }), { done: 0, failed: 0 });
}

async function runKind(run: OutboxRun, handler: JobHandler): Promise<{ done: number; failed: number }> {
  let done = 0;
  let failed = 0;
  let left = handler.batchSize ?? 50;
  // Each lane claims one job at a time, right before running it, so its lease runs from its start.
  const lane = async () => {
    while (left > 0) {
      left -= 1;
      const [job] = await claimJobs(run.db, handler.kind, newId(), run.now(), run.leaseMs ?? 60_000, 1);
      if (!job) return;
      const outcome = await runJob(run, handler, job);
      if (outcome === 'done') done += 1;
      else if (outcome === 'failed') failed += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, handler.concurrency ?? 1) }, lane));
  return { done, failed };
}

/**
 * Runs one claimed job and records its outcome under its claim. A failure schedules a retry
 * with the handler's backoff (the change that queued the job is never affected). An outcome
 * refused because the claim was lost is dropped: the worker that holds the job now records its
 * own, and the job has run at least once either way.
 */
async function runJob(run: OutboxRun, handler: JobHandler, job: ClaimedJob): Promise<'done' | 'failed' | 'lost'> {
  const { db, log, now } = run;
  const lost = () => {
    log.warn({ jobId: job.uuid, kind: handler.kind }, 'an outbox job was claimed again after its lease ran out: this run of it records nothing');
    return 'lost' as const;
  };
  let handled: void | 'completed';
  try {
    handled = await handler.handle(job);
  } catch (error) {
    if (error instanceof LostClaimError) return lost();
    const attempts = job.attempts + 1;
    const reason = error instanceof Error ? error.message : String(error);
    const giveUp = error instanceof PermanentJobError || attempts >= (handler.maxAttempts ?? 20);
    const nextAttemptAt = giveUp ? null : now() + (handler.retryDelayMs ?? defaultRetryDelayMs)(attempts);
    if (!(await failJob(db, job, reason, nextAttemptAt))) return lost();
    log.warn({ jobId: job.uuid, kind: handler.kind, attempts, reason, giveUp }, 'an outbox job failed');
    return 'failed';
  }
  if (handled !== 'completed' && !(await completeJob(db, job, now()))) return lost();
  return 'done';
}
