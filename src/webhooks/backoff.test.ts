import { describe, expect, it } from 'vitest';
import { nextAttemptAt, shouldDisableSubscription, webhookRetryDelayMs } from './backoff.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const noJitter = (): number => 0;
const maxJitter = (): number => 1;

describe('webhookRetryDelayMs', () => {
  it.each([
    // attempt, base s, random, delay ms
    [1, 5, noJitter, 5 * SECOND],
    [2, 5, noJitter, 10 * SECOND],
    [3, 5, noJitter, 20 * SECOND],
    [4, 5, noJitter, 40 * SECOND],
    [10, 5, noJitter, 2560 * SECOND],
    [11, 5, noJitter, HOUR], // 5120 s, capped
    [12, 5, noJitter, HOUR],
    [5000, 5, noJitter, HOUR], // 2 ** 4999 is Infinity: still the cap
    [1, 1, noJitter, SECOND],
    [1, 7200, noJitter, HOUR], // a base above the cap is capped too
    [1, 5, maxJitter, 4 * SECOND], // jitter takes at most 20 %
    [3, 5, (): number => 0.5, 18 * SECOND],
    [11, 5, maxJitter, 48 * MINUTE], // jitter applies at the cap as well
  ] as const)('attempt %i, base %i s → %i ms', (attempt, base, random, expected) => {
    expect(webhookRetryDelayMs(attempt, base, random)).toBe(expected);
  });

  it('stays within (0.8 × nominal, nominal] with the real random source', () => {
    for (let attempt = 1; attempt <= 15; attempt += 1) {
      const nominal = Math.min(HOUR, 5 * SECOND * 2 ** (attempt - 1));
      const delay = webhookRetryDelayMs(attempt, 5);
      expect(delay).toBeGreaterThanOrEqual(0.8 * nominal);
      expect(delay).toBeLessThanOrEqual(nominal);
    }
  });

  it.each([
    [0, 5],
    [-1, 5],
    [1.5, 5],
    [1, 0],
    [1, -5],
    [1, Number.NaN],
  ])('refuses attempt %d with base %d', (attempt, base) => {
    expect(() => webhookRetryDelayMs(attempt, base)).toThrow(RangeError);
  });
});

describe('nextAttemptAt', () => {
  const first = Date.UTC(2026, 2, 1, 9, 0, 0);
  it.each([
    // attempt, elapsed since first attempt, next (relative to now) or null
    [1, 0, 5 * SECOND],
    [2, 5 * SECOND, 10 * SECOND],
    [20, 20 * HOUR, HOUR],
    [30, 24 * HOUR - 1, HOUR], // just short of 24 h: one more try, ending past 24 h
    [31, 24 * HOUR, null], // tried for 24 h: give up
    [31, 25 * HOUR, null],
  ] as const)('after attempt %i at first + %i ms → %s', (attempt, elapsed, expected) => {
    const now = first + elapsed;
    expect(nextAttemptAt(first, attempt, now, 5, noJitter)).toBe(expected === null ? null : now + expected);
  });

  it('keeps a failing delivery going for at least 24 hours, and not much more, whatever the jitter', () => {
    for (const random of [noJitter, maxJitter, Math.random]) {
      let now = first;
      let attempt = 1;
      for (;;) {
        const next = nextAttemptAt(first, attempt, now, 5, random);
        if (next === null) break;
        expect(next).toBeGreaterThan(now);
        now = next;
        attempt += 1;
      }
      expect(now - first).toBeGreaterThanOrEqual(DAY);
      expect(now - first).toBeLessThan(DAY + HOUR);
    }
  });
});

describe('shouldDisableSubscription', () => {
  const now = Date.UTC(2026, 2, 4, 12, 0, 0);
  it.each([
    [null, false],
    [now, false],
    [now - 2 * DAY, false],
    [now - 3 * DAY + 1, false],
    [now - 3 * DAY, true],
    [now - 10 * DAY, true],
  ] as const)('failing since %s → %s', (failingSince, expected) => {
    expect(shouldDisableSubscription(failingSince, now)).toBe(expected);
  });
});
