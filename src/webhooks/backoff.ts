/**
 * When a failed webhook delivery is tried again, when it is given up, and when a
 * subscription that keeps failing is switched off. Pure: times are epoch milliseconds
 * passed in, as everywhere in termin, so the tests are tables.
 */

export const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;
/** A delivery is retried until its latest attempt is at least this long after its first. */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** A subscription failing without a single success for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 3 * 24 * 60 * 60 * 1000;
/** The largest share of a delay that jitter removes. */
export const JITTER_FRACTION = 0.2;

/**
 * The wait after the `attempt`-th failed attempt (1-based): base, 2×base, 4×base …, at
 * most one hour, then shortened by a random 0–20 % ("proportional jitter", downward only).
 * Downward, so the one-hour cap stays a true ceiling and jitter still applies at the cap,
 * where the retries of a long outage pile up and spreading them matters most; at most
 * 20 %, so the delays stay near the documented 5 s, 10 s, 20 s ….
 *
 * @example
 * webhookRetryDelayMs(1, 5, () => 0)   // 5_000
 * webhookRetryDelayMs(3, 5, () => 0)   // 20_000
 * webhookRetryDelayMs(3, 5, () => 0.5) // 18_000
 * webhookRetryDelayMs(20, 5, () => 0)  // 3_600_000 (capped)
 */
export function webhookRetryDelayMs(attempt: number, baseSeconds: number, random: () => number = Math.random): number {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be a positive integer, not ${attempt}`);
  if (!(baseSeconds > 0) || !Number.isFinite(baseSeconds)) throw new RangeError(`baseSeconds must be positive, not ${baseSeconds}`);
  // 2 ** large is Infinity, which the cap absorbs.
  const delay = Math.min(MAX_RETRY_DELAY_MS, baseSeconds * 1000 * 2 ** (attempt - 1));
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.round(delay * (1 - JITTER_FRACTION * r));
}

/**
 * When to try again after the `attempt`-th attempt failed at `now`, or null to give up:
 * once `now` is 24 hours or more after the first attempt. So the last attempt of a failed
 * delivery is always at least 24 hours after its first.
 *
 * @example
 * nextAttemptAt(0, 1, 0, 5, () => 0)                  // 5_000
 * nextAttemptAt(0, 30, 23 * 3_600_000, 5, () => 0)    // 24 * 3_600_000: one more try
 * nextAttemptAt(0, 31, 24 * 3_600_000, 5)             // null: retried for 24 h, failed
 */
export function nextAttemptAt(firstAttemptAt: number, attempt: number, now: number, baseSeconds: number, random: () => number = Math.random): number | null {
  if (now - firstAttemptAt >= RETRY_WINDOW_MS) return null;
  return now + webhookRetryDelayMs(attempt, baseSeconds, random);
}

/**
 * Whether a subscription whose deliveries have failed since `failingSince` (null when its
 * latest delivery succeeded) should be disabled at `now`: after 3 days of failure.
 *
 * @example
 * shouldDisableSubscription(null, now)                      // false
 * shouldDisableSubscription(now - 3 * 86_400_000, now)      // true
 */
export function shouldDisableSubscription(failingSince: number | null, now: number): boolean {
  return failingSince !== null && now - failingSince >= DISABLE_AFTER_FAILING_MS;
}
