import type { JobKind, JobPayload } from './job-kinds.js';

/** A claimed job as its handler gets it: the worker has checked its payload against its kind's schema. */
export interface HandledJob<Payload = unknown> {
  uuid: string;
  payload: Payload;
  /** Attempts made before this one. */
  attempts: number;
  /** The claim's token, for `completeJob` in the handler's own transaction. */
  claim: string;
}

/**
 * A handler runs the jobs of one kind; the worker claims, runs and retries every kind the
 * same way. termin's kinds have typed handlers (`JobHandler`), all registered in one place
 * (src/background.ts); the worker itself runs any kind, which its own tests use.
 */
export interface OutboxHandler<Kind extends string = string, Payload = unknown> {
  kind: Kind;
  /**
   * Does the job's work. Throwing schedules a retry: after `retryDelayMs`, or later when the
   * error carries a numeric `retryAfterMs` (a vendor's `Retry-After`, as ProviderError and
   * the SMS and payment errors do), at most a day later (MAX_RETRY_AFTER_MS), the attempt
   * counted either way. A DeferJobError puts the job off without counting an attempt. A handler whose work is writing to the
   * database completes the job itself, in the same transaction (`completeJob` with the job's
   * claim), so a crash can never apply it twice, and answers 'completed' so the worker does
   * not; when that completion is refused it throws LostClaimError. For outside effects (SMTP,
   * HTTP) the worker completes the job afterwards, which makes them at-least-once.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a handler that leaves completing to the worker returns nothing at all.
  handle(job: HandledJob<Payload>): Promise<void | 'completed'>;
  /** Attempts before the job is given up as `failed` (default 20). */
  maxAttempts?: number;
  /** Delay before attempt n+1 (default: 5 s doubling to an hour, with jitter). */
  retryDelayMs?(attempts: number): number;
  /** How many of this kind's jobs run at once in this process (default 1): one slow job need not hold up the rest. */
  concurrency?: number;
  /**
   * Runs up to `batch.size` jobs of this kind per slot in one go: `batch.handle` gets them in
   * the order they were queued and completes each itself, all in one transaction (all or
   * nothing). When it throws, the worker runs the same jobs one at a time through `handle`, so
   * each gets its own retry or failure. Worth it for a kind whose jobs are mostly database
   * work with one slot (events, fanned out in order): one turn of the commit for many jobs.
   */
  batch?: { size: number; handle(jobs: HandledJob<Payload>[]): Promise<void> };
}

/** The handler of one of termin's job kinds: its jobs' payloads come typed by the kind's schema (src/outbox/job-kinds.ts). */
export type JobHandler<K extends JobKind> = OutboxHandler<K, JobPayload<K>>;

/** Every kind's handler, by kind: a kind without one does not compile. */
export type JobHandlers = { readonly [K in JobKind]: JobHandler<K> };

/** A job that will never succeed (unknown kind, unreadable payload): given up at once. */
export class PermanentJobError extends Error {}

/**
 * The job's claim was lost: its lease ran out while the handler worked and another worker
 * claimed it, so that worker does the job and this attempt must leave no trace. A handler
 * throws it when its own `completeJob` is refused, which also rolls its transaction back.
 */
export class LostClaimError extends Error {
  constructor(jobUuid: string) {
    super(`job ${jobUuid} was claimed again by another worker after its lease ran out`);
  }
}

/**
 * "Not yet, come back at `until`": the job waits for something else to end (another attempt's
 * lease on the same work), which is no failure of its own. The worker puts it off until then
 * without counting an attempt or touching its last error, so waits neither stretch its backoff
 * nor bring it nearer to being given up.
 */
export class DeferJobError extends Error {
  constructor(
    readonly until: number,
    reason: string,
  ) {
    super(reason);
    this.name = 'DeferJobError';
  }
}
