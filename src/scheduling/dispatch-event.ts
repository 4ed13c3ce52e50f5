import { findEvent } from '../db/repositories/events.js';
import type { DbOrTrx } from '../db/database.js';
import { completeJob } from '../db/repositories/outbox.js';
import { inTransaction } from '../db/transaction.js';
import { LostClaimError, PermanentJobError, type HandledJob, type JobHandler } from '../outbox/job-handler.js';
import { EVENT_JOB_KIND, enqueueJobs, type EventJobPayload } from '../outbox/job-kinds.js';
import type { UseCaseContext } from './context.js';
import { EVENT_REACTIONS } from './reactions/index.js';

/**
 * The `event` job: turns one recorded event into the jobs its reactions imply, and
 * completes itself in the same transaction, so an event is fanned out exactly once even
 * when two instances or a crash and a retry get to it.
 */
export function createEventDispatcher(ctx: Pick<UseCaseContext, 'publicUrl' | 'now' | 'db' | 'secretKey'>, options: { batchSize?: number } = {}): JobHandler<'event'> {
  const fanOut = async (trx: DbOrTrx, job: HandledJob<EventJobPayload>, now: number) => {
    const { eventUuid } = job.payload;
    // Refused: this claim's lease ran out and the job's new holder fans the event out
    // itself, so nothing may commit here; the throw rolls the transaction back.
    if (!(await completeJob(trx, job, now))) throw new LostClaimError(job.uuid);
    const event = await findEvent(trx, eventUuid);
    if (!event) throw new PermanentJobError(`event ${eventUuid} does not exist`);
    for (const react of EVENT_REACTIONS) await enqueueJobs(trx, await react(trx, event, now, ctx), now);
  };
  return {
    kind: EVENT_JOB_KIND,
    async handle(job) {
      await inTransaction(ctx.db, (trx) => fanOut(trx, job, ctx.now()));
      return 'completed';
    },
    // Events fan out one batch at a time, in the order they happened, in one transaction: one
    // at a time each waited for a turn of the commit, and under a booking peak events were
    // fanned out far slower than bookings made them, so every e-mail and webhook fell behind.
    // One slot keeps each subscription's deliveries in the order of its events.
    batch: {
      size: options.batchSize ?? 1,
      async handle(jobs) {
        await inTransaction(ctx.db, async (trx) => {
          const now = ctx.now();
          for (const job of jobs) await fanOut(trx, job, now);
        });
      },
    },
  };
}
