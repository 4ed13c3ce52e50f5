import { sql } from 'kysely';
import { pino, type Logger } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../src/db/connect.js';
import type { Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { claimJobs, completeJob, failJob, insertJobs, type ClaimedJob } from '../../src/db/repositories/outbox.js';
import { newId } from '../../src/ids.js';
import { DeferJobError, PermanentJobError, type JobHandler, type OutboxHandler } from '../../src/outbox/job-handler.js';
import { createOutboxWorker, runDueJobs } from '../../src/outbox/worker.js';
import { DIALECTS, createClock, createTestDatabase, type TestClock, type TestDatabase } from '../helpers.js';

/**
 * The outbox's own guarantees, below any handler: a claim takes due jobs in one statement and
 * never the same job twice; it lasts its lease and no longer; only the claim that holds a job
 * records its outcome; failures are retried with the handler's backoff and given up in the
 * end; and the worker runs at most `concurrency` jobs of a kind at once, claiming the next as
 * soon as one ends. Time is the test clock's, and every overlap is arranged by hand.
 */

const LEASE_MS = 60_000;

/** A promise the test settles by hand. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A handler whose jobs each wait until the test releases them. */
function gatedHandler(kind: string, concurrency?: number) {
  const started: { uuid: string; release: () => void }[] = [];
  const waiting: { count: number; resolve: () => void }[] = [];
  const handler: OutboxHandler = {
    kind,
    ...(concurrency === undefined ? {} : { concurrency }),
    async handle(job) {
      const gate = deferred();
      started.push({ uuid: job.uuid, release: () => gate.resolve() });
      for (const wait of waiting.filter((w) => started.length >= w.count)) wait.resolve();
      await gate.promise;
    },
  };
  /** Resolves once `count` jobs have started (a test that waits for more than start fails by its timeout). */
  const whenStarted = (count: number) => (started.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ count, resolve })));
  return { handler, started, whenStarted };
}

/** A logger whose warnings the test reads. */
function capturingLogger(): { log: Logger; messages: string[] } {
  const messages: string[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => void messages.push((JSON.parse(line) as { msg: string }).msg) });
  return { log, messages };
}

for (const dialect of DIALECTS) {
  describe(`the outbox (${dialect})`, () => {
    let database: TestDatabase;
    let handle: DbHandle;
    let db: Db;
    let clock: TestClock;
    const silent = pino({ level: 'silent' });
    let kinds = 0;
    const newKind = () => {
      kinds += 1;
      return `test-${kinds}`;
    };

    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      handle = createDb(database.config.database);
      db = handle.db;
      await migrateToLatest(db);
      clock = createClock();
    });
    afterAll(async () => {
      await handle?.destroy();
      await database?.drop();
    });

    const row = (uuid: string) =>
      db.selectFrom('outbox').select(['status', 'attempts', 'next_attempt_at', 'claim', 'last_error', 'done_at']).where('id', '=', uuid).executeTakeFirstOrThrow();
    /** Queues jobs of `kind`, each due `dueIn` ms from now (negative: overdue); returns their uuids in that order. */
    const enqueue = async (kind: string, ...dueIn: number[]) => {
      const jobs = dueIn.map((offset, i) => ({ uuid: newId(clock.now()), kind, payload: { n: i }, runAt: clock.now() + offset }));
      await insertJobs(db, jobs, clock.now());
      return jobs.map((job) => job.uuid);
    };
    const claim = (kind: string, token: string, limit = 10) => claimJobs(db, kind, token, clock.now(), LEASE_MS, limit);
    const uuidsOf = (jobs: ClaimedJob[]) => jobs.map((job) => job.uuid).sort();

    describe('claiming', () => {
      it('takes the due pending jobs of its kind, the longest due first, up to the limit', async () => {
        const kind = newKind();
        // Two jobs due longest of all, then finished: done and failed jobs are never claimed.
        const finished = await enqueue(kind, -9_000, -9_000);
        const [done, failed] = await claim(kind, 'setup', 2);
        expect(uuidsOf([done!, failed!])).toEqual([...finished].sort());
        expect(await completeJob(db, done!, clock.now())).toBe(true);
        expect(await failJob(db, failed!, 'given up', null)).toBe(true);
        // Ids increase a < b < c, but c has been due longer than b: the order is by due time.
        const [a, b, c, later] = await enqueue(kind, -3_000, -1_000, -2_000, 1_000);
        const [otherKind] = await enqueue(newKind(), -5_000);

        const first = await claim(kind, 'first', 2);
        expect(uuidsOf(first)).toEqual([a, c].sort());
        // Each says when it was due, before its lease pushed that on: how late the outbox is.
        expect(first.find((job) => job.uuid === a)).toEqual({ uuid: a, kind, payload: { n: 0 }, attempts: 0, claim: 'first', dueAt: clock.now() - 3_000 });
        expect(first.find((job) => job.uuid === c)?.dueAt).toBe(clock.now() - 2_000);
        expect(await row(a!)).toMatchObject({ status: 'pending', claim: 'first', next_attempt_at: clock.now() + LEASE_MS });

        expect(uuidsOf(await claim(kind, 'second'))).toEqual([b]);
        expect(await claim(kind, 'third')).toEqual([]);
        expect(await row(later!)).toMatchObject({ status: 'pending', claim: null });
        expect(await row(otherKind!)).toMatchObject({ status: 'pending', claim: null });
      });

      it('never gives two claimers at once the same job', async () => {
        const kind = newKind();
        const all = await enqueue(kind, -4_000, -3_000, -2_000, -1_000);
        let first: ClaimedJob[] = [];
        let second: ClaimedJob[] = [];
        if (dialect === 'postgres') {
          // The first claim's transaction stays open, its rows locked, while the second claims:
          // the second must skip them without waiting (a wait fails on the lock timeout).
          await db.transaction().execute(async (trx) => {
            first = await claimJobs(trx, kind, 'first', clock.now(), LEASE_MS, 2);
            second = await db.transaction().execute(async (other) => {
              await sql`set local lock_timeout = '2s'`.execute(other);
              return claimJobs(other, kind, 'second', clock.now(), LEASE_MS, 10);
            });
          });
        } else {
          // SQLite has one writer: the second claim runs only once the first has committed.
          let secondClaim: Promise<ClaimedJob[]> | undefined;
          await db.transaction().execute(async (trx) => {
            first = await claimJobs(trx, kind, 'first', clock.now(), LEASE_MS, 2);
            secondClaim = claimJobs(db, kind, 'second', clock.now(), LEASE_MS, 10);
          });
          second = await secondClaim!;
        }
        expect(uuidsOf(first)).toEqual(all.slice(0, 2).sort());
        expect(uuidsOf(second)).toEqual(all.slice(2).sort());
        for (const job of first) expect((await row(job.uuid)).claim).toBe('first');
        for (const job of second) expect((await row(job.uuid)).claim).toBe('second');
      });
    });

    describe('a lease', () => {
      it('keeps a claimed job from being claimed again until it ends, and not after', async () => {
        const kind = newKind();
        const [job] = await enqueue(kind, 0);
        expect(uuidsOf(await claim(kind, 'first'))).toEqual([job]);
        clock.advance(LEASE_MS - 1);
        expect(await claim(kind, 'too-early')).toEqual([]);
        expect((await row(job!)).claim).toBe('first');
        clock.advance(1);
        const again = await claim(kind, 'after-lease');
        expect(again).toMatchObject([{ uuid: job, attempts: 0, claim: 'after-lease' }]);
        expect(await row(job!)).toMatchObject({ status: 'pending', claim: 'after-lease', next_attempt_at: clock.now() + LEASE_MS });
      });
    });

    describe('fencing', () => {
      /** A job claimed by `first`, whose lease ran out, then claimed by `second`. */
      const claimedTwice = async () => {
        const kind = newKind();
        await enqueue(kind, 0);
        const [first] = await claim(kind, 'first');
        clock.advance(LEASE_MS);
        const [second] = await claim(kind, 'second');
        return { kind, first: first!, second: second! };
      };

      it("refuses the first holder's completion and failure after the job was claimed again, changing nothing", async () => {
        const { first, second } = await claimedTwice();
        const before = await row(second.uuid);
        expect(before).toMatchObject({ status: 'pending', attempts: 0, claim: 'second', last_error: null, done_at: null });
        expect(await completeJob(db, first, clock.now())).toBe(false);
        expect(await failJob(db, first, 'late failure', clock.now() + 5_000)).toBe(false);
        expect(await failJob(db, first, 'late give-up', null)).toBe(false);
        expect(await row(second.uuid)).toEqual(before);
      });

      it("accepts the new holder's completion once, and its failure schedules the retry", async () => {
        const done = await claimedTwice();
        expect(await completeJob(db, done.second, clock.now())).toBe(true);
        expect(await row(done.second.uuid)).toMatchObject({ status: 'done', attempts: 1, claim: null, done_at: clock.now() });
        expect(await completeJob(db, done.second, clock.now())).toBe(false);

        const failed = await claimedTwice();
        expect(await failJob(db, failed.second, 'receiver down', clock.now() + 5_000)).toBe(true);
        expect(await row(failed.second.uuid)).toMatchObject({ status: 'pending', attempts: 1, claim: null, last_error: 'receiver down', next_attempt_at: clock.now() + 5_000 });
        // Its own claim ended with its failure: a late completion under it is refused too.
        expect(await completeJob(db, failed.second, clock.now())).toBe(false);
      });

      it('lets a worker whose claim was lost while its job ran record nothing, and log it', async () => {
        const { log, messages } = capturingLogger();
        for (const outcome of ['succeeds', 'fails']) {
          const kind = newKind();
          const [job] = await enqueue(kind, 0);
          const started = deferred();
          const finish = deferred();
          const handler: OutboxHandler = {
            kind,
            retryDelayMs: () => 1_000,
            async handle() {
              started.resolve();
              await finish.promise;
              if (outcome === 'fails') throw new Error('too late anyway');
            },
          };
          const run = runDueJobs({ db, handlers: [handler], log, now: clock.now, leaseMs: LEASE_MS });
          await started.promise;
          // While it runs, its lease ends and another worker claims it.
          clock.advance(LEASE_MS);
          const [taken] = await claim(kind, `other-${outcome}`);
          expect(taken?.uuid).toBe(job);
          const before = await row(job!);
          finish.resolve();
          expect(await run).toEqual({ done: 0, failed: 0 });
          expect(await row(job!)).toEqual(before);
          expect(await completeJob(db, taken!, clock.now())).toBe(true);
        }
        expect(messages.filter((m) => m.includes('claimed again after its lease ran out'))).toHaveLength(2);
      });

      it('does not complete again a job its handler completed in its own transaction', async () => {
        const kind = newKind();
        const [job] = await enqueue(kind, 0);
        const { log, messages } = capturingLogger();
        const handler: OutboxHandler = {
          kind,
          async handle(claimed) {
            expect(await completeJob(db, claimed, clock.now())).toBe(true);
            return 'completed';
          },
        };
        expect(await runDueJobs({ db, handlers: [handler], log, now: clock.now })).toEqual({ done: 1, failed: 0 });
        expect(await row(job!)).toMatchObject({ status: 'done', attempts: 1 });
        expect(messages).toEqual([]);
      });
    });

    describe('retries', () => {
      it("retries a failed job after the handler's delay, counting attempts, and gives up after maxAttempts", async () => {
        const kind = newKind();
        const [job] = await enqueue(kind, 0);
        const seen: number[] = [];
        const handler: OutboxHandler = {
          kind,
          maxAttempts: 3,
          retryDelayMs: (attempts) => attempts * 1_000,
          async handle(claimed) {
            seen.push(claimed.attempts);
            throw new Error(`refused #${claimed.attempts + 1}`);
          },
        };
        const run = () => runDueJobs({ db, handlers: [handler], log: silent, now: clock.now, leaseMs: LEASE_MS });

        expect(await run()).toEqual({ done: 0, failed: 1 });
        expect(await row(job!)).toMatchObject({ status: 'pending', attempts: 1, claim: null, last_error: 'refused #1', next_attempt_at: clock.now() + 1_000 });
        clock.advance(999);
        expect(await run()).toEqual({ done: 0, failed: 0 });
        clock.advance(1);
        expect(await run()).toEqual({ done: 0, failed: 1 });
        expect(await row(job!)).toMatchObject({ status: 'pending', attempts: 2, last_error: 'refused #2', next_attempt_at: clock.now() + 2_000 });
        clock.advance(2_000);
        expect(await run()).toEqual({ done: 0, failed: 1 });
        expect(await row(job!)).toMatchObject({ status: 'failed', attempts: 3, claim: null, last_error: 'refused #3' });
        clock.advance(24 * 3_600_000);
        expect(await run()).toEqual({ done: 0, failed: 0 });
        expect(seen).toEqual([0, 1, 2]);
      });

      it("waits out a failure's retryAfterMs (a provider's Retry-After), never less than the backoff nor more than a day, counting the attempt", async () => {
        const kind = newKind();
        const [soon, hour, week] = await enqueue(kind, 0, 0, 0);
        const asked = new Map([
          [soon!, 1_000],
          [hour!, 3_600_000],
          [week!, 7 * 24 * 3_600_000],
        ]);
        // A ProviderError or an SMS provider's refusal carries the wait this way: any error with a numeric retryAfterMs.
        const handler: OutboxHandler = {
          kind,
          concurrency: 3,
          retryDelayMs: () => 5_000,
          async handle(claimed) {
            throw Object.assign(new Error('HTTP 429'), { retryAfterMs: asked.get(claimed.uuid) });
          },
        };
        const start = clock.now();
        expect(await runDueJobs({ db, handlers: [handler], log: silent, now: clock.now })).toEqual({ done: 0, failed: 3 });
        expect(await row(soon!)).toMatchObject({ status: 'pending', attempts: 1, next_attempt_at: start + 5_000 });
        expect(await row(hour!)).toMatchObject({ status: 'pending', attempts: 1, next_attempt_at: start + 3_600_000 });
        expect(await row(week!)).toMatchObject({ status: 'pending', attempts: 1, next_attempt_at: start + 24 * 3_600_000 });
        // Nothing runs inside the window the provider named.
        clock.advance(30 * 60_000);
        expect(await runDueJobs({ db, handlers: [handler], log: silent, now: clock.now })).toEqual({ done: 0, failed: 1 });
        expect(await row(hour!)).toMatchObject({ attempts: 1 });
      });

      it('puts a job off without counting an attempt when its handler says "not yet" (DeferJobError), keeping its last error', async () => {
        const kind = newKind();
        const [job] = await enqueue(kind, 0);
        let runs = 0;
        const handler: OutboxHandler = {
          kind,
          maxAttempts: 2,
          retryDelayMs: () => 1_000,
          async handle() {
            runs += 1;
            if (runs === 1) throw new Error('provider down');
            if (runs <= 4) throw new DeferJobError(clock.now() + 10_000, 'another attempt holds the room');
          },
        };
        const run = () => runDueJobs({ db, handlers: [handler], log: silent, now: clock.now });
        expect(await run()).toEqual({ done: 0, failed: 1 });
        clock.advance(1_000);
        // Three waits in a row: none is a failed attempt, so maxAttempts (2) is not reached.
        for (let wait = 0; wait < 3; wait += 1) {
          expect(await run()).toEqual({ done: 0, failed: 0 });
          expect(await row(job!)).toMatchObject({ status: 'pending', attempts: 1, claim: null, last_error: 'provider down', next_attempt_at: clock.now() + 10_000 });
          clock.advance(9_999);
          expect(await run()).toEqual({ done: 0, failed: 0 });
          clock.advance(1);
        }
        expect(await run()).toEqual({ done: 1, failed: 0 });
        expect(await row(job!)).toMatchObject({ status: 'done', attempts: 2 });
        expect(runs).toBe(5);
      });

      it('gives a job up at once on a PermanentJobError, and completes one that succeeds', async () => {
        const kind = newKind();
        const [hopeless, fine] = await enqueue(kind, -1, 0);
        const handler: OutboxHandler = {
          kind,
          async handle(claimed) {
            if (claimed.uuid === hopeless) throw new PermanentJobError('no such event');
          },
        };
        expect(await runDueJobs({ db, handlers: [handler], log: silent, now: clock.now })).toEqual({ done: 1, failed: 1 });
        expect(await row(hopeless!)).toMatchObject({ status: 'failed', attempts: 1, claim: null, last_error: 'no such event' });
        expect(await row(fine!)).toMatchObject({ status: 'done', attempts: 1, claim: null, done_at: clock.now() });
      });

      it("checks each payload against its kind's schema before the handler sees it: one that does not fit is given up at once", async () => {
        const [fine, unreadable] = [newId(clock.now()), newId(clock.now())];
        await insertJobs(
          db,
          [
            { uuid: fine, kind: 'payment-refund', payload: { refundUuid: 'r1' } },
            { uuid: unreadable, kind: 'payment-refund', payload: { refund: 'r2' } },
          ],
          clock.now(),
        );
        const seen: unknown[] = [];
        const handler: JobHandler<'payment-refund'> = {
          kind: 'payment-refund',
          async handle(claimed) {
            seen.push(claimed.payload.refundUuid);
          },
        };
        expect(await runDueJobs({ db, handlers: [handler], log: silent, now: clock.now })).toEqual({ done: 1, failed: 1 });
        expect(seen).toEqual(['r1']);
        expect(await row(unreadable)).toMatchObject({ status: 'failed', attempts: 1, claim: null, last_error: 'a refund job without a refund' });
        expect(await row(fine)).toMatchObject({ status: 'done', attempts: 1 });
      });

      it('runs a batch holding a payload that does not fit one job at a time: the others are done, that one given up', async () => {
        const uuids = [newId(clock.now()), newId(clock.now()), newId(clock.now())];
        await insertJobs(
          db,
          uuids.map((uuid, i) => ({ uuid, kind: 'event', payload: i === 1 ? { event: 'e1' } : { eventUuid: `e${i}` } })),
          clock.now(),
        );
        const batches: string[][] = [];
        const alone: string[] = [];
        const handler: JobHandler<'event'> = {
          kind: 'event',
          async handle(claimed) {
            alone.push(claimed.payload.eventUuid);
          },
          batch: {
            size: 10,
            async handle(jobs) {
              batches.push(jobs.map((job) => job.payload.eventUuid));
            },
          },
        };
        expect(await runDueJobs({ db, handlers: [handler], log: silent, now: clock.now })).toEqual({ done: 2, failed: 1 });
        expect(batches).toEqual([]);
        expect(alone).toEqual(['e0', 'e2']);
        expect(await row(uuids[1]!)).toMatchObject({ status: 'failed', attempts: 1, last_error: 'an event job without an event' });
      });
    });

    describe('the worker', () => {
      it('runs at most `concurrency` jobs of a kind at once, and claims the next the moment one ends', async () => {
        const kind = newKind();
        const jobs = await enqueue(kind, -4, -3, -2, -1);
        const gated = gatedHandler(kind, 2);
        const worker = createOutboxWorker({ db, handlers: [gated.handler], log: silent, now: clock.now, leaseMs: LEASE_MS });
        worker.wake();
        await gated.whenStarted(2);
        expect(gated.started.map((s) => s.uuid).sort()).toEqual(jobs.slice(0, 2).sort());
        // Two slots, two jobs: the others are not even claimed, so no lease runs out while they wait.
        expect((await row(jobs[2]!)).claim).toBeNull();

        // No tick: the slot that frees claims the third itself, and only the third.
        gated.started[0]!.release();
        await gated.whenStarted(3);
        expect(gated.started[2]!.uuid).toBe(jobs[2]);
        expect(gated.started).toHaveLength(3);
        expect((await row(jobs[3]!)).claim).toBeNull();
        gated.started[1]!.release();
        await gated.whenStarted(4);
        for (const s of gated.started) s.release();
        await worker.drain();
        for (const uuid of jobs) expect((await row(uuid)).status).toBe('done');
        await worker.stop();
      });

      it("never lets a kind's hanging job hold up another kind, and starts what a job queues for another kind at once", async () => {
        const slowKind = newKind();
        const fastKind = newKind();
        const thirdKind = newKind();
        const [hanging] = await enqueue(slowKind, 0);
        const slow = gatedHandler(slowKind);
        const fastRan = deferred();
        const thirdRan = deferred();
        const fast: OutboxHandler = {
          kind: fastKind,
          async handle() {
            await insertJobs(db, [{ uuid: newId(clock.now()), kind: thirdKind, payload: {} }], clock.now());
            fastRan.resolve();
          },
        };
        const third: OutboxHandler = { kind: thirdKind, handle: async () => thirdRan.resolve() };
        const worker = createOutboxWorker({ db, handlers: [slow.handler, fast, third], log: silent, now: clock.now, leaseMs: LEASE_MS });
        worker.wake();
        await slow.whenStarted(1);
        expect(slow.started[0]!.uuid).toBe(hanging);

        // Queued while the slow job hangs, and woken by one tick: it runs beside it, and the
        // job it queues for a third kind starts without another tick.
        await enqueue(fastKind, 0);
        worker.wake();
        await fastRan.promise;
        await thirdRan.promise;

        const stopped = worker.stop();
        slow.started[0]!.release();
        await stopped;
        expect((await row(hanging!)).status).toBe('done');
      });

      it("gives a batch handler its slot's jobs in the order they were queued, and runs them one at a time when the batch fails", async () => {
        const kind = newKind();
        // All due at the same instant: the order is the order they were queued in.
        const jobs = await enqueue(kind, 0, 0, 0, 0, 0);
        const batches: string[][] = [];
        const alone: string[] = [];
        let failNext = false;
        const handler: OutboxHandler = {
          kind,
          async handle(job) {
            alone.push(job.uuid);
            if ((job.payload as { n: number }).n === 3) throw new Error('this one fails');
          },
          batch: {
            size: 3,
            async handle(claimed) {
              batches.push(claimed.map((job) => job.uuid));
              if (failNext) throw new Error('the batch fails');
              for (const job of claimed) expect(await completeJob(db, job, clock.now())).toBe(true);
            },
          },
        };
        const worker = createOutboxWorker({ db, handlers: [handler], log: silent, now: clock.now, leaseMs: LEASE_MS });
        // One slot: a batch of three, then the other two, each in the order queued.
        expect(await worker.drain()).toEqual({ done: 5, failed: 0 });
        expect(batches).toEqual([jobs.slice(0, 3), jobs.slice(3)]);
        expect(alone).toEqual([]);
        for (const uuid of jobs) expect((await row(uuid)).status).toBe('done');

        const more = await enqueue(kind, 0, 0, 0, 0);
        failNext = true;
        batches.length = 0;
        expect(await worker.drain()).toEqual({ done: 3, failed: 1 });
        // The batch failed as a whole: each job ran alone, in order, and only the failing one is retried.
        // (The fourth came alone in the next claim: a batch of one is an ordinary job.)
        expect(batches).toEqual([more.slice(0, 3)]);
        expect(alone).toEqual(more);
        expect((await row(more[3]!)).status).toBe('pending');
        expect((await row(more[3]!)).last_error).toBe('this one fails');
        for (const uuid of more.slice(0, 3)) expect((await row(uuid)).status).toBe('done');
        await worker.stop();
      });

      it('claims nothing once stopped, and stop waits for the jobs running', async () => {
        const kind = newKind();
        const [running, waiting] = await enqueue(kind, -1, 0);
        const gated = gatedHandler(kind);
        const worker = createOutboxWorker({ db, handlers: [gated.handler], log: silent, now: clock.now, leaseMs: LEASE_MS });
        worker.wake();
        await gated.whenStarted(1);
        let stopped = false;
        const stopping = worker.stop().then(() => (stopped = true));
        worker.wake();
        expect(await worker.drain()).toEqual({ done: 0, failed: 0 });
        expect(stopped).toBe(false);
        gated.started[0]!.release();
        await stopping;
        expect(await row(running!)).toMatchObject({ status: 'done' });
        // The slot that freed did not claim the next: it stays for another worker, unclaimed.
        expect(await row(waiting!)).toMatchObject({ status: 'pending', claim: null });
        expect(gated.started).toHaveLength(1);
      });
    });
  });
}
