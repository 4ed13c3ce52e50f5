export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerPolicy {
  /** Failures in a row (with no success between) that open the breaker. */
  failuresToOpen: number;
  /** How long an open breaker sends nothing to the dependency before one trial call. */
  coolDownMs: number;
}

export interface BreakerEvents {
  /** Closed → open: `error` is the failure that tripped it. Not called when a trial fails. */
  opened(error: unknown, failures: number, coolDownMs: number): void;
  /** A trial succeeded: calls go to the dependency again. */
  closed(): void;
}

/** Reports how the call that `attempt()` let through went: no argument for success. */
export type OutcomeReporter = (...outcome: [] | [error: unknown]) => void;

/**
 * Decides whether a call may go to a dependency that has been failing, so that a dependency
 * that hangs costs its timeout a few times, not on every call. Closed, every call goes; after
 * `failuresToOpen` failures in a row it opens, and for `coolDownMs` no call goes (the caller
 * uses its fallback); then it is half-open: one call goes as a trial (the others still fall
 * back), and its outcome closes the breaker or opens it for another cool-down. Outcomes of
 * calls let through before the breaker opened, arriving later, change nothing.
 *
 * With 3 failures and 30 s: calls failing at 0, 0.5 and 1 s open it until 31 s;
 * `attempt()` at 10 s is null; at 31 s it returns the trial's reporter, and a second
 * `attempt()` before that trial reports is null; `report()` closes it, `report(error)`
 * opens it until 61 s (without `opened` being called again).
 */
export class CircuitBreaker {
  private current: BreakerState = 'closed';
  private failures = 0;
  private openedAt = 0;
  private trialStartedAt = 0;
  /** Changes on every transition, so late outcomes of an earlier state are ignored. */
  private generation = 0;

  constructor(
    private readonly policy: BreakerPolicy,
    private readonly now: () => number,
    private readonly events: BreakerEvents,
  ) {}

  get state(): BreakerState {
    return this.current;
  }

  /** A reporter when this call may go to the dependency; null when it must fall back. */
  attempt(): OutcomeReporter | null {
    const now = this.now();
    if (this.current === 'closed') return this.reporter(this.generation, false);
    // A trial that never reported (its caller lost it) does not keep the breaker half-open forever.
    const waitingSince = this.current === 'open' ? this.openedAt : this.trialStartedAt;
    if (now - waitingSince < this.policy.coolDownMs) return null;
    this.transition('half-open');
    this.trialStartedAt = now;
    return this.reporter(this.generation, true);
  }

  private reporter(generation: number, trial: boolean): OutcomeReporter {
    let reported = false;
    return (...outcome) => {
      if (reported || generation !== this.generation) return;
      reported = true;
      const failed = outcome.length > 0;
      if (trial) {
        if (failed) this.open();
        else {
          this.failures = 0;
          this.transition('closed');
          this.events.closed();
        }
        return;
      }
      if (!failed) {
        this.failures = 0;
        return;
      }
      this.failures += 1;
      if (this.failures >= this.policy.failuresToOpen) {
        const failures = this.failures;
        this.open();
        this.events.opened(outcome[0], failures, this.policy.coolDownMs);
      }
    };
  }

  private open(): void {
    this.transition('open');
    this.openedAt = this.now();
  }

  private transition(state: BreakerState): void {
    this.current = state;
    this.generation += 1;
  }
}
