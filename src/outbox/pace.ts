/**
 * Keeps bookings at the pace the outbox sends their confirmations. A saturated process (two
 * cores, bookings arriving as fast as clients can send them) spends its CPU on whatever is
 * queued first, and requests are always queued first: the outbox got what was left, its
 * backlog grew for as long as the peak lasted, and confirmations went out minutes late. So
 * the worker reports how late the due jobs it claims are, and while the confirmations' kinds
 * (events, e-mails, webhooks) are later than `lagMs`, a new booking waits, up to `maxWaitMs`,
 * for them to catch up: the peak is absorbed by the clients waiting a little longer, and the
 * backlog stays bounded. Each instance paces its own bookings by the shared queue's lateness.
 */
export interface OutboxPace {
  /**
   * The worker's report after claiming jobs of `kind`: the oldest claimed was due at
   * `oldestDueAt`; `full`: more were due, or every slot is taken, so it lags more the longer
   * nothing claims again.
   */
  report(kind: string, now: number, oldestDueAt: number | null, full: boolean): void;
  /** Resolves at once while the outbox keeps pace, else when it has caught up or after `maxWaitMs`. */
  admit(): Promise<void>;
  /** How late the paced kinds are now, as far as the last claims tell (ms). */
  lagMs(now: number): number;
}

export interface OutboxPaceSettings {
  /**
   * The kinds whose lateness holds bookings back, in the stages a confirmation goes through
   * (its event is fanned out, then its e-mail and webhooks run): a confirmation is as late as
   * the latest kind of each stage, added up.
   */
  stages: readonly (readonly string[])[];
  /** Lateness above which new bookings wait; 0: never. */
  lagMs: number;
  /** The longest one booking waits. */
  maxWaitMs: number;
  now?: () => number;
}

interface KindLag {
  /** How late the oldest claimed job was, when it was claimed. */
  lag: number;
  at: number;
  /** The claim took all it asked for: the backlog goes on, and grows late while nobody claims. */
  full: boolean;
}

export function createOutboxPace(settings: OutboxPaceSettings): OutboxPace {
  const now = settings.now ?? Date.now;
  const paced = new Set(settings.stages.flat());
  const lags = new Map<string, KindLag>();
  let waiters: (() => void)[] = [];
  const lagOf = (kind: string, at: number) => {
    const last = lags.get(kind);
    return last === undefined ? 0 : last.lag + (last.full ? Math.max(0, at - last.at) : 0);
  };
  const lagMs = (at: number) => settings.stages.reduce((sum, stage) => sum + Math.max(0, ...stage.map((kind) => lagOf(kind, at))), 0);
  const release = () => {
    const released = waiters;
    waiters = [];
    for (const resolve of released) resolve();
  };
  return {
    report(kind, at, oldestDueAt, full) {
      if (!paced.has(kind)) return;
      lags.set(kind, { lag: oldestDueAt === null ? 0 : Math.max(0, at - oldestDueAt), at, full });
      if (waiters.length > 0 && lagMs(at) <= settings.lagMs) release();
    },
    admit() {
      if (settings.lagMs <= 0 || lagMs(now()) <= settings.lagMs) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((waiter) => waiter !== done);
          resolve();
        }, settings.maxWaitMs);
        // A booking held here never keeps a stopping process alive.
        timer.unref();
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        waiters.push(done);
      });
    },
    lagMs,
  };
}
