import { describe, expect, it } from 'vitest';
import { createScheduleCache, estimateBytes, type CachedSchedule } from './cache.js';

/** A month view of a round-the-clock topic on a 5-minute grid: ~8,900 slots. */
function monthEntry(slotsPerDay: number): CachedSchedule {
  const days = Array.from({ length: 31 }, (_, d) => ({
    date: `2027-03-${String(d + 1).padStart(2, '0')}`,
    slots: Array.from({ length: slotsPerDay }, (_, i) => ({ start: new Date(Date.UTC(2027, 2, d + 1) + i * 300_000).toISOString(), username: 'anna-nowak' })),
  }));
  return { calendarVersion: 1, computedFor: 0, readAt: 0, validUntil: 60_000, days, firstStart: 0, lastStart: 0 };
}

describe('schedule cache', () => {
  it('holds no more than its byte budget however many large views arrive', () => {
    const budget = 20 * 1024 * 1024;
    const cache = createScheduleCache(budget);
    const entry = monthEntry(288);
    expect(estimateBytes('k', entry)).toBeGreaterThan(1_000_000);
    for (let i = 0; i < 1_150; i += 1) cache.set(`view-${i}`, entry);
    expect(cache.stats().bytes).toBeLessThanOrEqual(budget);
    expect(cache.stats().entries).toBeGreaterThan(5);
    // The most recent views are the ones kept.
    expect(cache.get('view-1149')).toBe(entry);
    expect(cache.get('view-0')).toBeUndefined();
  });

  it('keeps thousands of small week views, and refuses one entry larger than a tenth of the budget', () => {
    const cache = createScheduleCache(64 * 1024 * 1024);
    const week = { ...monthEntry(16), days: monthEntry(16).days.slice(0, 7) };
    for (let i = 0; i < 2_000; i += 1) cache.set(`week-${i}`, week);
    expect(cache.stats().entries).toBe(2_000);
    const small = createScheduleCache(8 * 1024 * 1024);
    small.set('huge', monthEntry(288));
    expect(small.get('huge')).toBeUndefined();
    expect(small.stats()).toEqual({ bytes: 0, entries: 0 });
  });

  it('replacing a key does not count it twice', () => {
    const cache = createScheduleCache(10 * 1024 * 1024);
    const entry = monthEntry(16);
    cache.set('a', entry);
    const once = cache.stats().bytes;
    cache.set('a', entry);
    expect(cache.stats()).toEqual({ bytes: once, entries: 1 });
  });
});
