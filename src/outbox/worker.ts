import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import { isDatabaseUnavailable } from '../db/errors.js';
import { inSharedCommit } from '../db/transaction.js';
import { claimJobs, completeJob, deferJob, failJob, type ClaimedJob } from '../db/repositories/outbox.js';
import { RepeatThrottle } from '../domain/repeat-throttle.js';
import { newId } from '../ids.js';
import { DeferJobError, LostClaimError, PermanentJobError, type HandledJob, type JobHandlers, type OutboxHandler } from './job-handler.js';
import { payloadProblem, type JobKind, type JobPayload } from './job-kinds.js';
import type { OutboxPace } from './pace.js';

export interface OutboxRun {
  db: Db;
  /** Every kind's handler (src/background.ts), or a few handlers (tests, one-off runs). */
  handlers: JobHandlers | readonly OutboxHandler[];
  log: Logger;
  now: () => number;
  /** A claimed job is claimed again by anyone after this long (its worker may have died). */
  leaseMs?: number;
  /** Told how late each claim's jobs were, to hold bookings back while the outbox lags (src/outbox/pace.ts). */
  pace?: OutboxPace;
  /** Shared with the instance's other background work, so one outage is logged once for all of it. */
  errors?: RepeatThrottle;
}

export interface JobCounts {
  done: number;
  failed: number;
}

export interface OutboxWorker {
  /** Fills every kind's free slots with due jobs (the timer's tick). */
  wake(): void;
  /** Fills the free slots of these kinds only (a booking just queued its event: nothing else can be due because of it yet). */
  wakeKinds(kinds: readonly string[]): void;
  /**
   * Runs jobs until none is due and none is running, then answers what ran meanwhile. Jobs
   * queued by the jobs that ran (an event's e-mails) run too, in the same drain.
   */
  drain(): Promise<JobCounts>;
  /** Claims nothing more; resolves once the jobs running have finished (the caller bounds the wait). */
  stop(): Promise<void>;
}

const DEFAULT_LEASE_MS = 60_000;
/** A drain repeats while its last round ran something, so a job queued meanwhile by a request runs too; this bounds it. */
const MAX_DRAIN_ROUNDS = 10;
const BASE_RETRY_MS = 5_000;
const MIN_DEFER_MS = 1_000;
const MAX_RETRY_MS = 3_600_000;

/**
 * The longest a provider's `Retry-After` holds a job back: Zoom's daily limit on meeting
 * create/update calls per user resets at 00:00 UTC (its "Rate limits" page), so a day covers
 * any wait a vendor names for a reason of its own; a longer one (or a date far off) is not
 * trusted further.
 */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/**
 * When the next attempt may run: the handler's backoff, or later when the failure named a wait
 * (`retryAfterMs`, a vendor's Retry-After), so retries are not spent inside a provider's limit
 * window; never more than MAX_RETRY_AFTER_MS. `retryDelayAfter(5_000, 3_600_000)` → 3_600_000;
 * `retryDelayAfter(5_000, 1_000)` → 5_000; `retryDelayAfter(5_000, 7 * 86_400_000)` → 86_400_000.
 */
export function retryDelayAfter(backoffMs: number, retryAfterMs: number | null): number {
  if (retryAfterMs === null || !Number.isFinite(retryAfterMs)) return backoffMs;
  return Math.min(Math.max(backoffMs, retryAfterMs), Math.max(backoffMs, MAX_RETRY_AFTER_MS));
}

/** The wait a failure asked for: any thrown value with a numeric `retryAfterMs` (ProviderError, SmsDeliveryError, GatewayError). */
function retryAfterOf(error: unknown): number | null {
  const value = typeof error === 'object' && error !== null ? (error as { retryAfterMs?: unknown }).retryAfterMs : undefined;
  return typeof value === 'number' && value > 0 ? value : null;
}

/** Delay before attempt n+1: 5 s, 10 s, 20 s … capped at an hour, ±20 % jitter so retries spread out. */
export function defaultRetryDelayMs(attempts: number): number {
  const exponential = Math.min(BASE_RETRY_MS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_MS);
  return Math.round(exponential * (0.8 + Math.random() * 0.4));
}

interface KindState {
  handler: OutboxHandler;
  slots: number;
  running: number;
  /** A claim of this kind is under way; `again` asks it to look once more when it returns. */
  claiming: boolean;
  again: boolean;
  /** A job of this kind finished since its due jobs last ran out (it may have queued other kinds'). */
  finishedSinceIdle: boolean;
}

/**
 * The outbox worker of one process. Every kind has `handler.concurrency` slots (default 1);
 * a free slot is filled by claiming due jobs of that kind, as many as there are free slots,
 * in one statement, and a job that finishes frees its slot and claims again at once. So a
 * slow kind (a dead webhook receiver) never delays another (e-mail), a hanging job holds only
 * its own slot, and a job is claimed only when it can start: its lease runs from its start.
 * Every instance may run one; the claim's token makes each job's outcome count once.
 */
export function createOutboxWorker(run: OutboxRun): OutboxWorker {
  const leaseMs = run.leaseMs ?? DEFAULT_LEASE_MS;
  const handlers: readonly OutboxHandler[] = isHandlerList(run.handlers) ? run.handlers : Object.values(run.handlers);
  const kinds: KindState[] = handlers.map((handler) => ({
    handler,
    slots: Math.max(1, handler.concurrency ?? 1),
    running: 0,
    claiming: false,
    again: false,
    finishedSinceIdle: false,
  }));
  const counts = { done: 0, failed: 0, lost: 0, deferred: 0 };
  // A claim that fails every tick (a full disk) is logged once, then once a minute with a count.
  const errors = run.errors ?? new RepeatThrottle();
  const logFailure = (error: unknown, fields: Record<string, unknown>) =>
    errors.logError((line, message) => run.log.error(line, message), error, 'background job failed', Date.now(), fields);
  let stopped = false;
  // Claims and jobs under way, of every kind; drain and stop wait for none.
  let busy = 0;
  let idleWaiters: (() => void)[] = [];
  const begin = () => {
    busy += 1;
  };
  const end = () => {
    busy -= 1;
    if (busy > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };
  const idle = () => (busy === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve)));

  const fill = (kind: KindState) => {
    if (kind.claiming) {
      kind.again = true;
      return;
    }
    kind.claiming = true;
    begin();
    claimInto(kind)
      .catch((error: unknown) => logFailure(error, { kind: kind.handler.kind }))
      .finally(() => {
        kind.claiming = false;
        end();
      });
  };
  const wakeAll = (except?: KindState) => {
    for (const kind of kinds) if (kind !== except) fill(kind);
  };

  const claimInto = async (kind: KindState) => {
    for (;;) {
      kind.again = false;
      const free = kind.slots - kind.running;
      if (free <= 0 || stopped) return;
      const perSlot = kind.handler.batch ? Math.max(1, kind.handler.batch.size) : 1;
      const limit = free * perSlot;
      const now = run.now();
      const jobs = await inSharedCommit(run.db, (db) => claimJobs(db, kind.handler.kind, newId(), now, leaseMs, limit));
      // Claimed jobs start even if stop() came meanwhile: better run now than after their lease.
      if (perSlot === 1) for (const job of jobs) start(kind, job);
      else for (const group of inQueueOrder(jobs, perSlot)) startBatch(kind, group);
      // Behind, as far as the pace knows, for as long as nothing claims again: when more were due,
      // and when every slot is now taken (what is queued meanwhile waits, unseen, until one frees).
      const behind = jobs.length === limit || kind.running >= kind.slots;
      run.pace?.report(kind.handler.kind, now, jobs.length === 0 ? null : Math.min(...jobs.map((job) => job.dueAt)), behind);
      if (jobs.length === limit || kind.again) continue;
      // None of this kind is left due. What its jobs did may have queued other kinds' jobs
      // (an event's e-mails): claim those now, not a tick later.
      if (kind.finishedSinceIdle) {
        kind.finishedSinceIdle = false;
        wakeAll(kind);
      }
      return;
    }
  };

  const start = (kind: KindState, job: ClaimedJob) => {
    kind.running += 1;
    begin();
    runJob(run, kind.handler, job)
      .then((outcome) => {
        counts[outcome] += 1;
        if (outcome === 'done') kind.finishedSinceIdle = true;
      })
      .catch((error: unknown) => logFailure(error, { kind: kind.handler.kind, jobId: job.uuid }))
      .finally(() => {
        kind.running -= 1;
        fill(kind); // before end(): a drain must not see the worker idle in between
        end();
      });
  };

  // A slot's batch: one call of the handler's batch.handle, or each job alone when it throws.
  const startBatch = (kind: KindState, jobs: ClaimedJob[]) => {
    if (jobs.length === 1) return start(kind, jobs[0]!);
    kind.running += 1;
    begin();
    runBatch(run, kind.handler, jobs)
      .then((outcomes) => {
        for (const outcome of outcomes) counts[outcome] += 1;
        if (outcomes.includes('done')) kind.finishedSinceIdle = true;
      })
      .catch((error: unknown) => logFailure(error, { kind: kind.handler.kind, jobIds: jobs.map((job) => job.uuid) }))
      .finally(() => {
        kind.running -= 1;
        fill(kind);
        end();
      });
  };

  return {
    wake: () => wakeAll(),
    wakeKinds(names) {
      for (const kind of kinds) if (names.includes(kind.handler.kind)) fill(kind);
    },
    async drain() {
      const before = { ...counts };
      for (let round = 0; round < MAX_DRAIN_ROUNDS && !stopped; round += 1) {
        const ran = counts.done + counts.failed + counts.lost;
        wakeAll();
        await idle();
        if (counts.done + counts.failed + counts.lost === ran) break;
      }
      return { done: counts.done - before.done, failed: counts.failed - before.failed };
    },
    stop() {
      stopped = true;
      return idle();
    },
  };
}

/** Runs jobs until none is due, outside the background jobs' worker (a one-off run, tests). */
export async function runDueJobs(run: OutboxRun): Promise<JobCounts> {
  const worker = createOutboxWorker(run);
  try {
    return await worker.drain();
  } finally {
    await worker.stop();
  }
}

/** What a job of kind `K` carries: typed by its schema for termin's kinds, as stored for any other. */
export type PayloadOf<K extends string> = K extends JobKind ? JobPayload<K> : unknown;

/**
 * The claimed job as its handler gets it, its payload checked against its kind's schema
 * (src/outbox/job-kinds.ts). A payload that does not fit never will: a PermanentJobError,
 * so the job is given up at once, with the reason its kind gives.
 */
export function readJob<K extends string>(kind: K, job: ClaimedJob): HandledJob<PayloadOf<K>> {
  const problem = payloadProblem(kind, job.payload);
  if (problem !== null) throw new PermanentJobError(problem);
  // Checked just above against the schema that types PayloadOf<K>.
  return job as HandledJob<PayloadOf<K>>;
}

function isHandlerList(handlers: OutboxRun['handlers']): handlers is readonly OutboxHandler[] {
  return Array.isArray(handlers);
}

/**
 * Claimed jobs in the order they were queued, in groups of `size`. Job ids are time-ordered
 * (UUID v7, strictly increasing within a process), and a claim returns its rows in no
 * particular order: events must be fanned out in the order they happened.
 */
function inQueueOrder(jobs: ClaimedJob[], size: number): ClaimedJob[][] {
  const sorted = [...jobs].sort((a, b) => (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0));
  const groups: ClaimedJob[][] = [];
  for (let at = 0; at < sorted.length; at += size) groups.push(sorted.slice(at, at + size));
  return groups;
}

/**
 * Runs a slot's batch through the handler's `batch.handle` (which completes every job itself,
 * in one transaction). If it throws, nothing of it committed: the jobs run again one at a time,
 * in order, each with its own outcome (a lost claim, a retry, a job given up).
 */
async function runBatch(run: OutboxRun, handler: OutboxHandler, jobs: ClaimedJob[]): Promise<JobOutcome[]> {
  try {
    // A payload that does not fit throws here: each job then runs alone, and that one is given up.
    await handler.batch!.handle(jobs.map((job) => readJob(handler.kind, job)));
    return jobs.map(() => 'done' as const);
  } catch (error) {
    run.log.debug({ kind: handler.kind, jobs: jobs.length, err: error }, 'a batch of outbox jobs failed: running them one at a time');
    const outcomes: JobOutcome[] = [];
    for (const job of jobs) outcomes.push(await runJob(run, handler, job));
    return outcomes;
  }
}

/** What became of one claimed job: `deferred`, put off by its handler without an attempt counted. */
type JobOutcome = 'done' | 'failed' | 'lost' | 'deferred';

/**
 * Runs one claimed job and records its outcome under its claim. A failure schedules a retry
 * with the handler's backoff (the change that queued the job is never affected). An outcome
 * refused because the claim was lost is dropped: the worker that holds the job now records its
 * own, and the job has run at least once either way.
 */
async function runJob(run: OutboxRun, handler: OutboxHandler, job: ClaimedJob): Promise<JobOutcome> {
  const { db, log, now } = run;
  const lost = () => {
    log.warn({ jobId: job.uuid, kind: handler.kind }, 'an outbox job was claimed again after its lease ran out: this run of it records nothing');
    return 'lost' as const;
  };
  let handled: Awaited<ReturnType<OutboxHandler['handle']>>;
  try {
    handled = await handler.handle(readJob(handler.kind, job));
  } catch (error) {
    if (error instanceof LostClaimError) return lost();
    if (error instanceof DeferJobError) {
      // Waiting for someone else is no attempt of this job's: nothing counted, its last error kept.
      // At least a second on: a handler that keeps answering "now" must not spin its slot.
      if (!(await inSharedCommit(db, (trx) => deferJob(trx, job, Math.max(error.until, now() + MIN_DEFER_MS))))) return lost();
      log.debug({ jobId: job.uuid, kind: handler.kind, until: error.until, reason: error.message }, 'an outbox job was put off');
      return 'deferred';
    }
    const attempts = job.attempts + 1;
    const reason = error instanceof Error ? error.message : String(error);
    const giveUp = error instanceof PermanentJobError || attempts >= (handler.maxAttempts ?? 20);
    const nextAttemptAt = giveUp ? null : now() + retryDelayAfter((handler.retryDelayMs ?? defaultRetryDelayMs)(attempts), retryAfterOf(error));
    if (!(await inSharedCommit(db, (trx) => failJob(trx, job, reason, nextAttemptAt)))) return lost();
    log.warn({ jobId: job.uuid, kind: handler.kind, attempts, reason, giveUp }, 'an outbox job failed');
    return 'failed';
  }
  if (handled !== 'completed' && !(await completeSoon(() => inSharedCommit(db, (trx) => completeJob(trx, job, now()))))) return lost();
  return 'done';
}

/** Waits between tries to record a job done while the database is out of reach: about 8 s in all, well inside a lease. */
const COMPLETION_RETRY_DELAYS_MS = [100, 300, 600, 1_000, 2_000, 4_000];

/**
 * Records a job done right after its outside effect (an SMTP server's acceptance), trying
 * again for a few seconds while the database is unreachable (a failover, terminated
 * connections): a job left claimed would run again after its lease and send its message a
 * second time. Anything else, or an outage longer than that, is thrown as before.
 */
async function completeSoon(complete: () => Promise<boolean>): Promise<boolean> {
  for (const delay of [...COMPLETION_RETRY_DELAYS_MS, null]) {
    try {
      return await complete();
    } catch (error) {
      if (delay === null || !isDatabaseUnavailable(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
  throw new Error('unreachable');
}
