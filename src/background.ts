import type { AppContext } from './context.js';
import { sendDueMessages } from './mail/outbox-worker.js';
import { createMailTransport, type MailTransport } from './mail/transport.js';
import { runMaintenance } from './scheduling/meetings.js';

export interface BackgroundJobs {
  transport: MailTransport;
  /** Runs every job once now (tests, and a final flush on shutdown). */
  runOnce(): Promise<void>;
  /** Stops the timers and waits for a run in progress. */
  stop(): Promise<void>;
}

/**
 * The outbox sender and housekeeping, on timers in the server process. Every instance may
 * run them: claims and conditional updates make each message go out once.
 */
export function startBackgroundJobs(ctx: AppContext, options: { mailIntervalMs?: number; maintenanceIntervalMs?: number; transport?: MailTransport } = {}): BackgroundJobs {
  const transport = options.transport ?? createMailTransport(ctx.config.mail);
  let running: Promise<void> | null = null;
  let lastMaintenance = 0;
  const maintenanceEvery = options.maintenanceIntervalMs ?? 30_000;

  const runOnce = async (forceMaintenance = true) => {
    try {
      const result = await sendDueMessages({ db: ctx.db, transport, log: ctx.log, now: ctx.now });
      if (result.sent > 0) ctx.log.info(result, 'outbox messages sent');
      if (forceMaintenance || Date.now() - lastMaintenance >= maintenanceEvery) {
        lastMaintenance = Date.now();
        const done = await runMaintenance(ctx);
        if (done.expired > 0) ctx.log.info(done, 'payment holds expired');
      }
    } catch (error) {
      ctx.log.error({ err: error }, 'background job failed');
    }
  };
  const tick = () => {
    if (running) return;
    running = runOnce(false).finally(() => {
      running = null;
    });
  };
  const timer = setInterval(tick, options.mailIntervalMs ?? 2_000);
  timer.unref();

  return {
    transport,
    async runOnce() {
      if (running) await running;
      await runOnce(true);
    },
    async stop() {
      clearInterval(timer);
      if (running) await running;
      transport.close();
    },
  };
}
