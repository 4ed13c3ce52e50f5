import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import { claimJob, completeJob, failJob, findDueJobs, type Job } from '../db/repositories/outbox.js';
import { PermanentJobError, type JobHandler } from './job-handler.js';

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
  const due = await findDueJobs(run.db, handler.kind, run.now(), handler.batchSize ?? 50);
  let done = 0;
  let failed = 0;
  const queue = [...due];
  const lane = async () => {
    for (let job = queue.shift(); job !== undefined; job = queue.shift()) {
      if (await runJob(run, handler, job)) done += 1;
      else failed += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, handler.concurrency ?? 1) }, lane));
  return { done, failed };
}

async function runJob(run: OutboxRun, handler: JobHandler, job: Job): Promise<boolean> {
  const { db, log, now } = run;
  if (!(await claimJob(db, job.uuid, now(), run.leaseMs ?? 60_000))) return true;
  try {
    await handler.handle(job);
    await completeJob(db, job.uuid, now());
    return true;
  } catch (error) {
    const attempts = job.attempts + 1;
    const reason = error instanceof Error ? error.message : String(error);
    const giveUp = error instanceof PermanentJobError || attempts >= (handler.maxAttempts ?? 20);
    const nextAttemptAt = giveUp ? null : now() + (handler.retryDelayMs ?? defaultRetryDelayMs)(attempts);
    await failJob(db, job.uuid, reason, nextAttemptAt);
    log.warn({ jobId: job.uuid, kind: handler.kind, attempts, reason, giveUp }, 'an outbox job failed');
    return false;
  }
}
