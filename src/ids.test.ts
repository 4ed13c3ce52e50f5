import { describe, expect, it } from 'vitest';
import { newId } from './ids.js';

describe('newId', () => {
  it('makes RFC 9562 version 7 UUIDs', () => {
    expect(newId()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('orders ids by creation, even within one millisecond and when the clock stands still', () => {
    const ids = Array.from({ length: 5000 }, () => newId(1_800_000_000_000));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives every id randomness of its own, across refills of the random pool', () => {
    // Distinct milliseconds, so only the random tail (after the variant) could make two alike.
    const tails = Array.from({ length: 2000 }, (_, i) => newId(1_900_000_000_000 + i * 1000).slice(19));
    expect(new Set(tails).size).toBe(tails.length);
    expect(tails.every((tail) => /^[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(tail))).toBe(true);
  });
});
