import { findEvent } from '../db/repositories/events.js';
import { completeJob, enqueueJobs } from '../db/repositories/outbox.js';
import { inTransaction } from '../db/transaction.js';
import { LostClaimError, PermanentJobError, type JobHandler } from '../outbox/job-handler.js';
import type { UseCaseContext } from './context.js';
import { EVENT_REACTIONS } from './reactions/index.js';
import { EVENT_JOB_KIND } from './record-events.js';

/**
 * The `event` job: turns one recorded event into the jobs its reactions imply, and
 * completes itself in the same transaction, so an event is fanned out exactly once even
 * when two instances or a crash and a retry get to it.
 */
export function createEventDispatcher(ctx: Pick<UseCaseContext, 'config' | 'now' | 'db' | 'secretKey'>): JobHandler {
  return {
    kind: EVENT_JOB_KIND,
    async handle(job) {
      const { eventUuid } = job.payload as { eventUuid?: string };
      if (typeof eventUuid !== 'string') throw new PermanentJobError('an event job without an event');
      await inTransaction(ctx.db, async (trx) => {
        const now = ctx.now();
        // Refused: this claim's lease ran out and the job's new holder fans the event out
        // itself, so nothing may commit here; the throw rolls the transaction back.
        if (!(await completeJob(trx, job, now))) throw new LostClaimError(job.uuid);
        const event = await findEvent(trx, eventUuid);
        if (!event) throw new PermanentJobError(`event ${eventUuid} does not exist`);
        for (const react of EVENT_REACTIONS) await enqueueJobs(trx, await react(trx, event, now, ctx), now);
      });
      return 'completed';
    },
  };
}
