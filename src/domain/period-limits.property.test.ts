import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { findFullPeriods, type HostLimits } from './period-limits.js';

/**
 * findFullPeriods against a naive oracle: Luxon tells each instant's local ISO week (Monday
 * first) and month, and a period is full when the meetings counted in it reach the limit.
 * Meetings and starts fall around the 2027 clock changes of zones that shift by an hour, half
 * an hour (Lord Howe) or at midnight (Santiago), so DST weeks and months are most of the cases.
 */
const ZONES = ['Europe/Warsaw', 'America/New_York', 'Australia/Lord_Howe', 'America/Santiago', 'Asia/Kolkata', 'UTC'];
const CENTRES = ['2027-03-14T00:00Z', '2027-03-28T00:00Z', '2027-04-04T00:00Z', '2027-10-31T00:00Z', '2027-11-07T00:00Z'].map(Date.parse);
const TOPICS = ['topic-a', 'topic-b', 'external:cal'];
const HOUR = 3_600_000;

const weekKey = (zone: string, ms: number) => {
  const local = DateTime.fromMillis(ms, { zone });
  return `${local.weekYear}-W${local.weekNumber}`;
};
const monthKey = (zone: string, ms: number) => DateTime.fromMillis(ms, { zone }).toFormat('yyyy-MM');
const dayKey = (zone: string, ms: number) => DateTime.fromMillis(ms, { zone }).toISODate();

describe('findFullPeriods (property)', () => {
  it('marks a start full exactly when some limit’s period already holds that many meetings', () => {
    const arbitrary = fc.record({
      zone: fc.constantFrom(...ZONES),
      hostZone: fc.constantFrom(...ZONES),
      centre: fc.constantFrom(...CENTRES),
      meetings: fc.array(fc.record({ hours: fc.integer({ min: -24 * 20, max: 24 * 20 }), topic: fc.constantFrom(...TOPICS) }), { maxLength: 25 }),
      starts: fc.array(fc.integer({ min: -24 * 20, max: 24 * 20 }), { minLength: 1, maxLength: 20 }),
      weekly: fc.option(fc.integer({ min: 1, max: 4 })),
      monthly: fc.option(fc.integer({ min: 1, max: 6 })),
      hostDaily: fc.option(fc.integer({ min: 1, max: 3 })),
      hostWeekly: fc.option(fc.integer({ min: 1, max: 5 })),
    });
    fc.assert(
      fc.property(arbitrary, ({ zone, hostZone, centre, meetings, starts, weekly, monthly, hostDaily, hostWeekly }) => {
        const busy = meetings.map((meeting) => ({ start: centre + meeting.hours * HOUR + 30 * 60_000, topicUuid: meeting.topic }));
        const host: HostLimits = { timezone: hostZone, daily: hostDaily, weekly: hostWeekly };
        const check = findFullPeriods(busy, { topicUuid: 'topic-a', weeklyLimit: weekly, monthlyLimit: monthly }, zone, host);
        const ours = busy.filter((meeting) => meeting.topicUuid === 'topic-a');
        const all = busy.filter((meeting) => !meeting.topicUuid.startsWith('external:'));
        for (const hours of starts) {
          const start = centre + hours * HOUR;
          const count = (list: typeof busy, key: (zone: string, ms: number) => string | null, z: string) => list.filter((m) => key(z, m.start) === key(z, start)).length;
          const expected =
            (weekly !== null && count(ours, weekKey, zone) >= weekly) ||
            (monthly !== null && count(ours, monthKey, zone) >= monthly) ||
            (hostDaily !== null && count(all, dayKey, hostZone) >= hostDaily) ||
            (hostWeekly !== null && count(all, weekKey, hostZone) >= hostWeekly);
          const none = weekly === null && monthly === null && hostDaily === null && hostWeekly === null;
          if (none) expect(check).toBeNull();
          else expect(check!(start), `${new Date(start).toISOString()} in ${zone}/${hostZone}`).toBe(expected);
        }
      }),
      { numRuns: 400 },
    );
  });
});
