import type { AppContext } from './context.js';
import { createEmailSender } from './scheduling/send-email.js';
import type { MailTransport } from './mail/transport.js';
import type { JobHandler, JobHandlers } from './outbox/job-handler.js';
import { EVENT_JOB_KIND, type JobKind } from './outbox/job-kinds.js';
import { createOutboxWorker } from './outbox/worker.js';
import { createEventDispatcher } from './scheduling/dispatch-event.js';
import { runMaintenance } from './scheduling/meetings/meetings.js';
import { createPaymentEmailSender } from './scheduling/payments/emails.js';
import { createRefundJobHandler } from './scheduling/payments/refunds.js';
import { startCalendarSync } from './scheduling/calendars/sync.js';
import { createCalendarWriteHandler } from './scheduling/calendars/writes.js';
import { createWebhookDeliverer } from './scheduling/webhooks/delivery.js';
import { createConferenceRoomHandler } from './scheduling/integrations/rooms.js';
import { createRoomNoticeDigestHandler } from './scheduling/integrations/room-notices.js';
import { refreshIdleConnections } from './scheduling/integrations/provider-access.js';
import { createReminderSender } from './scheduling/meetings/reminders.js';
import { createSignInLinkSender } from './scheduling/host-app/sign-in.js';
import { RepeatThrottle } from './domain/repeat-throttle.js';
import { pruneTables } from './scheduling/maintenance/prune.js';
import { refreshStatistics } from './scheduling/maintenance/statistics.js';
import { applyRetention } from './scheduling/participants/retention.js';

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

/** Every kind of outbox job and its handler: the one place they are wired, and a kind left out does not compile. */
export function createJobHandlers(ctx: AppContext, transport: MailTransport): JobHandlers {
  // How many of each kind run at once is the operator's (OUTBOX_*_CONCURRENCY); the handlers' own are only defaults.
  const at = <K extends JobKind>(handler: JobHandler<K>, concurrency: number): JobHandler<K> => ({ ...handler, concurrency });
  const { outbox } = ctx.config;
  return {
    event: at(createEventDispatcher(ctx, { batchSize: outbox.eventBatch }), outbox.event),
    email: at(createEmailSender(transport), outbox.email),
    'calendar-write': at(createCalendarWriteHandler(ctx), outbox.calendar),
    'payment-refund': createRefundJobHandler(ctx),
    'payment-email': at(createPaymentEmailSender(transport), outbox.email),
    webhook: createWebhookDeliverer(ctx, { concurrency: outbox.webhook, leaseMs: outbox.leaseMs }),
    'conference-room': at(createConferenceRoomHandler(ctx), outbox.conference),
    'room-notice-digest': createRoomNoticeDigestHandler(ctx),
    reminder: at(createReminderSender(ctx), outbox.email),
    'sign-in-links': createSignInLinkSender(ctx),
  };
}

/**
 * The outbox worker, housekeeping, idle connections' refresh, retention and the calendar sync, on timers in the server process.
 * Every instance may run them: a job's claim makes its outcome count once, and housekeeping
 * is conditional updates that any instance may repeat.
 */
export function startBackgroundJobs(
  ctx: AppContext,
  options: {
    jobIntervalMs?: number;
    maintenanceIntervalMs?: number;
    transport?: MailTransport;
    calendarSyncTickMs?: number;
    /** Whether a booking made in this process wakes the worker at once (default true); false leaves the jobs to the tick and to runOnce, for tests that step them by hand. */
    wakeOnBooking?: boolean;
  } = {},
): BackgroundJobs {
  const transport = options.transport ?? ctx.mailer;
  const handlers = createJobHandlers(ctx, transport);
  // Each kind runs up to its `concurrency` jobs at once and claims more as soon as one ends:
  // a job that hangs (a webhook receiver holding its 10 s) holds its own slot only.
  // The outbox's jobs and the beat's (holds, tokens, retention, pruning) fail alike in an outage (a full disk, the
  // database away): the first failure is logged with its stack, the rest once a minute with a count.
  const failures = new RepeatThrottle();
  const logFailure = (error: unknown): void => failures.logError((fields, message) => ctx.log.error(fields, message), error, 'background job failed', Date.now());
  const worker = createOutboxWorker({ db: ctx.db, handlers, log: ctx.log, now: ctx.now, leaseMs: ctx.config.outbox.leaseMs, pace: ctx.outboxPace, errors: failures });
  let maintaining: Promise<void> | null = null;
  let lastMaintenance = 0;
  const maintenanceEvery = options.maintenanceIntervalMs ?? 30_000;
  // Housekeeping (holds that lapsed, finished jobs): one run at a time, shared by whoever asks meanwhile.
  const maintain = (): Promise<void> => {
    if (!maintaining) {
      lastMaintenance = Date.now();
      maintaining = runMaintenance(ctx)
        .then((done) => {
          if (done.expired > 0) ctx.log.info(done, 'payment holds expired');
        })
        .catch(logFailure)
        .finally(() => {
          maintaining = null;
        });
    }
    return maintaining;
  };
  // Idle connections' tokens refreshed before they lapse: on the maintenance beat, apart from it
  // (outbound calls of up to 10 s each must not hold back the holds' expiry), one run at a time.
  let refreshingIdle: Promise<void> | null = null;
  let stopping = false;
  const refreshIdle = (): Promise<void> => {
    if (!refreshingIdle) {
      refreshingIdle = refreshIdleConnections(ctx, { stopped: () => stopping })
        .then((done) => {
          if (done.refreshed + done.refused + done.failed > 0) ctx.log.info(done, 'idle connections refreshed');
        })
        .catch(logFailure)
        .finally(() => {
          refreshingIdle = null;
        });
    }
    return refreshingIdle;
  };
  // Retention (accounts' participantDataDays, then the tables' RETENTION_* rules): on the maintenance beat, apart from it (a first run may erase
  // thousands of meetings, in batches), one run at a time here and, by its lease, across instances.
  let retaining: Promise<void> | null = null;
  const retain = (): Promise<void> => {
    if (!retaining) {
      retaining = applyRetention(ctx, { lease: true, stopped: () => stopping })
        .then(async (done) => {
          if (done.accounts.length > 0) ctx.log.info({ accounts: done.accounts }, 'retention applied');
          // Then each table's own rule (events, deliveries, sessions, …), by age, under a lease of its own.
          const pruned = await pruneTables(ctx, ctx.config.retention, { lease: true, stopped: () => stopping });
          if (pruned.pruned.length > 0) ctx.log.info({ pruned: pruned.pruned }, 'old rows pruned');
          // The planner's statistics where the tables grew (or the pruning shrank them) enough to matter (SQLite).
          await refreshStatistics(ctx);
        })
        .catch(logFailure)
        .finally(() => {
          retaining = null;
        });
    }
    return retaining;
  };
  const tick = () => {
    if (Date.now() - lastMaintenance >= maintenanceEvery) {
      void maintain();
      void refreshIdle();
      void retain();
    }
    worker.wake();
  };
  const timer = setInterval(tick, options.jobIntervalMs ?? 1_000);
  timer.unref();
  // A booking made here fans its event out at once instead of on the next tick (and the pace hears of it; see pace.ts).
  const unsubscribe = options.wakeOnBooking === false ? () => undefined : ctx.outboxPace.onQueued(() => worker.wakeKinds([EVENT_JOB_KIND]));
  // Each calendar is read every CALENDAR_SYNC_INTERVAL_SECONDS; the tick only looks for due ones.
  const calendarSync = startCalendarSync(ctx, options.calendarSyncTickMs ?? Math.max(options.jobIntervalMs ?? 1_000, 15_000));

  return {
    transport,
    async runOnce() {
      // After a run already under way (it may have started before the caller's change), a fresh one.
      if (maintaining) await maintaining;
      if (refreshingIdle) await refreshingIdle;
      if (retaining) await retaining;
      await Promise.all([maintain(), refreshIdle(), retain()]);
      try {
        // An event's job queues e-mails that are due at once: a drain runs until none is left.
        const result = await worker.drain();
        if (result.done > 0) ctx.log.debug(result, 'outbox jobs done');
      } catch (error) {
        logFailure(error);
      }
    },
    async stop(graceMs = STOP_GRACE_MS) {
      clearInterval(timer);
      unsubscribe();
      // No idle connection's refresh starts now; the one under way (its rotated token to store) shares the grace.
      stopping = true;
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all([worker.stop(), refreshingIdle]), new Promise<void>((resolve) => (grace = setTimeout(resolve, graceMs)))]);
      clearTimeout(grace);
      await calendarSync.stop();
      if (maintaining) await maintaining;
      // A retention run stops after the batch under way.
      if (retaining) await retaining;
    },
  };
}
