import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatInstant } from '../../domain/slots.js';
import { teamScheduleDays, type HostEntry } from './team-schedule.js';

const RANGE = { from: '2027-03-01', to: '2027-03-01' };
const DAY_START = Date.parse('2027-03-01T00:00:00Z');
const HALF_HOUR = 30 * 60_000;

/** A host's entry for 2027-03-01 (a Monday: one ISO week) free at `free`, with meetings of the topic at `booked`. */
function entry(username: string, free: readonly number[], booked: readonly number[]): HostEntry {
  const starts = [...free].sort((a, b) => a - b);
  return {
    calendarVersion: 1,
    computedFor: 0,
    readAt: 0,
    validUntil: Infinity,
    days: [{ date: RANGE.from, slots: starts.map((start) => ({ start: formatInstant(start), username })) }],
    starts: [starts],
    firstStart: starts[0] ?? null,
    lastStart: starts.at(-1) ?? null,
    topicStarts: [...booked],
    placeFacts: { connected: [], details: {} },
  };
}

const USERNAMES = ['anna', 'bob', 'cecil', 'dora'];

/**
 * Books `bookings` participants one after another through the team view: each picks a
 * slot of the view (by `pick`), and the host the view names takes it. Every host is equally
 * available (the picked time leaves the view for all, as if each participant chose a time
 * nobody had yet): what is left to decide the host is the weighted order alone.
 * Returns each host's number of meetings.
 */
function simulate(weights: readonly number[], bookings: number, pick: (offered: number) => number): number[] {
  // 48 half-hour starts a day, every host free at all of them to begin with.
  const free = weights.map(() => new Set(Array.from({ length: 48 }, (_, i) => DAY_START + i * HALF_HOUR)));
  const booked: number[][] = weights.map(() => []);
  for (let n = 0; n < bookings; n += 1) {
    const entries = weights.map((_, h) => entry(USERNAMES[h]!, [...free[h]!], booked[h]!));
    const slots = teamScheduleDays(entries, RANGE, [], weights)[0]!.slots;
    if (slots.length === 0) break;
    const slot = slots[pick(slots.length) % slots.length]!;
    const h = USERNAMES.indexOf(slot.username);
    const start = Date.parse(slot.start);
    for (const hours of free) hours.delete(start);
    booked[h]!.push(start);
  }
  return booked.map((meetings) => meetings.length);
}

describe('teamScheduleDays: weighted round robin', () => {
  it('with equal weights is the plain least-loaded order', () => {
    const entries = [entry('anna', [DAY_START], [DAY_START + 1, DAY_START + 2]), entry('bob', [DAY_START], [DAY_START + 3])];
    expect(teamScheduleDays(entries, RANGE)[0]!.slots[0]!.username).toBe('bob');
    expect(teamScheduleDays(entries, RANGE, [], [1, 1])[0]!.slots[0]!.username).toBe('bob');
  });

  it.each([
    // [anna's weight, bob's, anna's meetings, bob's, who gets the next one]
    // A host below their share of n + 1 (meetings × total weight < (n + 1) × weight) first,
    // then the smaller (meetings + 1) / weight; a tie goes to the smaller username.
    [3, 1, 0, 0, 'anna'], // 1/3 < 1/1
    [3, 1, 1, 0, 'anna'], // 2/3 < 1/1
    [3, 1, 2, 0, 'anna'], // 3/3 ties 1/1
    [3, 1, 3, 0, 'bob'], // anna has her 3 of 4 (3 × 4 = 4 × 3): bob is the one below his share
    [3, 1, 3, 1, 'anna'], // 4/3 < 2/1
    [1, 3, 0, 0, 'bob'],
    [1, 3, 0, 1, 'bob'], // 2/3 < 1/1
    [1, 3, 0, 3, 'anna'], // bob has his 3 of 4
    [2, 4, 1, 3, 'anna'], // 2/2 ties 4/4
    [2, 4, 2, 3, 'bob'], // anna has her 2 of 6 (2 × 6 = 6 × 2), and 4/4 < 3/2 besides
    [100, 1, 99, 0, 'anna'], // 100/100 ties 1/1
    [100, 1, 100, 0, 'bob'], // anna has her 100 of 101
  ])('weights %i:%i, meetings %i:%i → %s', (annaWeight, bobWeight, annaMeetings, bobMeetings, expected) => {
    // Meetings later the same ISO week: round robin counts per week.
    const earlier = (count: number) => Array.from({ length: count }, (_, i) => DAY_START + 86_400_000 + i * HALF_HOUR);
    const entries = [entry('anna', [DAY_START + 10 * HALF_HOUR], earlier(annaMeetings)), entry('bob', [DAY_START + 10 * HALF_HOUR], earlier(bobMeetings))];
    expect(teamScheduleDays(entries, RANGE, [], [annaWeight, bobWeight])[0]!.slots[0]!.username).toBe(expected);
  });

  it('keeps the heavy host within a meeting of their share where Sainte-Laguë let them fall behind (2, 2, 62, 13 over 23)', () => {
    // Shares 0.58, 0.58, 18.05, 3.78: Sainte-Laguë's order gave 1, 1, 17, 4.
    expect(simulate([2, 2, 62, 13], 23, () => 0)).toEqual([0, 0, 19, 4]);
  });

  it('shares follow the weights over many bookings, whichever slots participants pick', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 2, maxLength: 4 }),
        fc.integer({ min: 20, max: 45 }),
        fc.infiniteStream(fc.nat()),
        (weights, bookings, picks) => {
          const counts = simulate(weights, bookings, (offered) => picks.next().value % offered);
          const total = counts.reduce((sum, count) => sum + count, 0);
          const weightSum = weights.reduce((sum, weight) => sum + weight, 0);
          expect(total).toBe(bookings);
          // Each host's share is within one meeting of its weight's share: the order never lets a host run ahead.
          for (const [h, count] of counts.entries()) expect(Math.abs(count - (bookings * weights[h]!) / weightSum)).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 400 },
    );
  });
});
