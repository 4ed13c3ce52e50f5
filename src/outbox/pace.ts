/**
 * Keeps bookings at the pace the outbox sends their confirmations. A saturated process (two
 * cores, bookings arriving as fast as clients can send them) spends its CPU on whatever is
 * queued first, and requests are always queued first: the outbox got what was left, its
 * backlog grew for as long as the peak lasted, and confirmations went out minutes late. So
 * the worker reports how late the due jobs it claims are, and while the confirmations' kinds
 * (events, e-mails, webhooks) are later than `lagMs`, a new booking waits, up to `maxWaitMs`,
 * for them to catch up: the peak is absorbed by the clients waiting a little longer, and the
 * backlog stays bounded. Each instance paces its own bookings by the shared queue's lateness,
 * and by its own bookings that no claim has seen yet (`queued`). The bound is the backlog's,
 * not the e-mails' promptness (OUTBOX_PACE_LAG_MS, 30 s by default): a participant kept
 * seconds for a booking's answer is worse off than one whose e-mail comes seconds late
 * (bench/pace.ts), so a burst goes at full speed and only an overload without end is paced.
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
  /**
   * A booking made here committed its jobs at `at`. Until a claim of the first stage that
   * began after it reports (in a process whose worker listens), that stage counts as late
   * since `at`: the claims alone told of a backlog only once the worker next claimed (up to
   * its 1 s tick later), and in that second a cold start let ~1,000 bookings through, whose
   * e-mails then went out 10–13 s late. It also wakes the worker (`onQueued`), so a
   * confirmation starts at once, not on the next tick.
   */
  queued(at: number): void;
  /** Who `queued` wakes (the outbox worker of this process; none in a process without one). Returns the unsubscribe. */
  onQueued(listener: () => void): () => void;
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
  const firstStage = settings.stages[0] ?? [];
  // The first booking committed here since the first stage's last claim began: unseen by any claim yet.
  let unclaimedSince: number | null = null;
  let listeners: (() => void)[] = [];
  const stageLag = (stage: readonly string[], at: number) => {
    const claimed = Math.max(0, ...stage.map((kind) => lagOf(kind, at)));
    return stage === firstStage && unclaimedSince !== null ? Math.max(claimed, at - unclaimedSince) : claimed;
  };
  const lagMs = (at: number) => settings.stages.reduce((sum, stage) => sum + stageLag(stage, at), 0);
  const release = () => {
    const released = waiters;
    waiters = [];
    for (const resolve of released) resolve();
  };
  return {
    report(kind, at, oldestDueAt, full) {
      if (!paced.has(kind)) return;
      lags.set(kind, { lag: oldestDueAt === null ? 0 : Math.max(0, at - oldestDueAt), at, full });
      // A claim that began after the first unseen booking committed has seen it (and what it did not take, `full` tells).
      if (unclaimedSince !== null && firstStage.includes(kind) && at >= unclaimedSince) unclaimedSince = null;
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
    queued(at) {
      // Only where a worker listens: its claims are what clears the mark (a process without one
      // would otherwise hold every booking after the first).
      if (settings.lagMs > 0 && listeners.length > 0) unclaimedSince ??= at;
      for (const listener of listeners) listener();
    },
    onQueued(listener) {
      listeners = [...listeners, listener];
      return () => {
        listeners = listeners.filter((other) => other !== listener);
        if (listeners.length === 0) unclaimedSince = null;
      };
    },
    lagMs,
  };
}
