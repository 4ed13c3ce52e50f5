import type { AppContext } from './context.js';
import { createEmailSender } from './scheduling/send-email.js';
import type { MailTransport } from './mail/transport.js';
import type { JobHandler } from './outbox/job-handler.js';
import { runDueJobs } from './outbox/worker.js';
import { createEventDispatcher } from './scheduling/dispatch-event.js';
import { runMaintenance } from './scheduling/meetings.js';
import { createPaymentEmailSender } from './scheduling/payments/emails.js';
import { createRefundJobHandler } from './scheduling/payments/refunds.js';
import { startCalendarSync } from './scheduling/calendars-sync.js';
import { createCalendarWriteHandler } from './scheduling/calendars-writes.js';
import { createWebhookDeliverer } from './scheduling/webhooks-delivery.js';

/** How long stopping waits for running jobs: half of the server's 10 s shutdown bound. */
const STOP_GRACE_MS = 5_000;

export interface BackgroundJobs {
  transport: MailTransport;
  /** Runs every job until none is due (tests, and a final flush on shutdown). */
  runOnce(): Promise<void>;
  /**
   * Stops the timers and takes no more jobs, then waits up to `graceMs` (default 5 s) for
   * the jobs running, and for a maintenance run in progress. A job still running after the
   * grace (a webhook receiver holding its 10 s) is left to its lease: it runs again once the
   * lease ends, here after a restart or on another instance (at least once), so a shutdown
   * keeps to its own bound however slow a receiver is.
   */
  stop(graceMs?: number): Promise<void>;
}

/** Every kind of outbox job and its handler: the one place they are wired. */
export function createJobHandlers(ctx: AppContext, transport: MailTransport): JobHandler[] {
  return [
    createEventDispatcher(ctx),
    createEmailSender(transport),
    createCalendarWriteHandler(ctx),
    createRefundJobHandler(ctx),
    createPaymentEmailSender(transport),
    createWebhookDeliverer(ctx),
    // payment calls, webhook deliveries and calendar writes register their handlers here
  ];
}

/**
 * The outbox worker and housekeeping, on timers in the server process. Every instance may
 * run them: claims and conditional updates make each job run once.
 */
export function startBackgroundJobs(
  ctx: AppContext,
  options: { jobIntervalMs?: number; maintenanceIntervalMs?: number; transport?: MailTransport; calendarSyncTickMs?: number } = {},
): BackgroundJobs {
  const transport = options.transport ?? ctx.mailer;
  const handlers = createJobHandlers(ctx, transport);
  let running: Promise<void> | null = null;
  let lastMaintenance = 0;
  const maintenanceEvery = options.maintenanceIntervalMs ?? 30_000;

  const runJobs = async () => {
    const result = await runDueJobs({ db: ctx.db, handlers, log: ctx.log, now: ctx.now });
    if (result.done > 0) ctx.log.debug(result, 'outbox jobs done');
    return result;
  };
  const runOnce = async (drain: boolean) => {
    try {
      if (drain || Date.now() - lastMaintenance >= maintenanceEvery) {
        lastMaintenance = Date.now();
        const done = await runMaintenance(ctx);
        if (done.expired > 0) ctx.log.info(done, 'payment holds expired');
      }
      // An event's job queues e-mails that are due at once: a drain runs until none is left.
      for (let round = 0; round < (drain ? 10 : 3); round += 1) {
        if ((await runJobs()).done === 0) break;
      }
    } catch (error) {
      ctx.log.error({ err: error }, 'background job failed');
    }
  };
  // Outside a drain, every kind runs on lanes of its own, up to its `concurrency`; a lane
  // takes one due job at a time until none is left. So a job that hangs (a webhook receiver
  // holding its 10 s) holds its own lane only: not another kind's, not the next tick, not
  // the rest of its kind, which the next tick gives a further lane.
  const lanes = new Map<string, number>();
  const lanesInFlight = new Set<Promise<void>>();
  let stopped = false;
  const runLane = async (handler: JobHandler) => {
    const one: JobHandler = {
      kind: handler.kind,
      handle: (job) => handler.handle(job),
      ...(handler.maxAttempts === undefined ? {} : { maxAttempts: handler.maxAttempts }),
      ...(handler.retryDelayMs === undefined ? {} : { retryDelayMs: (attempts: number) => handler.retryDelayMs!(attempts) }),
      batchSize: 1,
      concurrency: 1,
    };
    let worked = false;
    while (!stopped) {
      const result = await runDueJobs({ db: ctx.db, handlers: [one], log: ctx.log, now: ctx.now });
      if (result.done + result.failed === 0) break;
      worked = true;
      startLane(handler); // more may be due: widen up to the kind's concurrency
    }
    // What it did may have queued other kinds' jobs (an event's e-mails): start them now, not a tick later.
    if (worked) startLanes();
  };
  const startLane = (handler: JobHandler) => {
    const busy = lanes.get(handler.kind) ?? 0;
    if (stopped || busy >= Math.max(1, handler.concurrency ?? 1)) return;
    lanes.set(handler.kind, busy + 1);
    const lane: Promise<void> = runLane(handler)
      .catch((error: unknown) => ctx.log.error({ err: error, kind: handler.kind }, 'background job failed'))
      .finally(() => {
        lanes.set(handler.kind, (lanes.get(handler.kind) ?? 1) - 1);
        lanesInFlight.delete(lane);
      });
    lanesInFlight.add(lane);
  };
  const startLanes = () => {
    for (const handler of handlers) startLane(handler);
  };
  const tick = () => {
    if (!running && Date.now() - lastMaintenance >= maintenanceEvery) {
      lastMaintenance = Date.now();
      running = runMaintenance(ctx)
        .then((done) => {
          if (done.expired > 0) ctx.log.info(done, 'payment holds expired');
        })
        .catch((error: unknown) => ctx.log.error({ err: error }, 'background job failed'))
        .finally(() => {
          running = null;
        });
    }
    startLanes();
  };
  const timer = setInterval(tick, options.jobIntervalMs ?? 1_000);
  timer.unref();
  // Each calendar is read every CALENDAR_SYNC_INTERVAL_SECONDS; the tick only looks for due ones.
  const calendarSync = startCalendarSync(ctx, options.calendarSyncTickMs ?? Math.max(options.jobIntervalMs ?? 1_000, 15_000));

  return {
    transport,
    async runOnce() {
      if (running) await running;
      await runOnce(true);
    },
    async stop(graceMs = STOP_GRACE_MS) {
      clearInterval(timer);
      stopped = true;
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(lanesInFlight), new Promise<void>((resolve) => (grace = setTimeout(resolve, graceMs)))]);
      clearTimeout(grace);
      await calendarSync.stop();
      if (running) await running;
    },
  };
}
