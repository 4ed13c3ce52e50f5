import type { Delegation } from '../../db/repositories/time-off.js';
import type { HostPlaceFacts } from '../../domain/integrations.js';
import type { DaySlots, Slot } from '../../domain/slots.js';
import type { CachedSchedule } from './cache.js';

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
/** 1970-01-05, the first Monday after the epoch, as an epoch day. */
const FIRST_MONDAY = 4;

/**
 * The start of the ISO week (Monday 00:00 UTC) containing `ms`:
 * `isoWeekStartUtc(Date.parse('2027-03-31T12:00Z'))` → `Date.parse('2027-03-29T00:00Z')`.
 *
 * Round-robin counts a host's meetings of the topic per UTC ISO week, not per week in the
 * host's zone: one boundary for every host of the team, so the counts compared for one slot
 * are over the same span of time, and the count needs no zone lookups on the hot path.
 */
export function isoWeekStartUtc(ms: number): number {
  const week = Math.floor((Math.floor(ms / DAY_MS) - FIRST_MONDAY) / 7);
  return (week * 7 + FIRST_MONDAY) * DAY_MS;
}

/** A host's cached schedule, with what the team view needs: the starts of this topic's meetings. */
export interface HostEntry extends CachedSchedule {
  /** Each slot's start as a number, day by day: `starts[d][i]` is `days[d].slots[i].start`. */
  starts: number[][];
  topicStarts: number[];
  /** What makes the host's places ready, read with the calendar (a change bumps the calendar version). */
  placeFacts: HostPlaceFacts;
  /** Filled by the team view the first time it uses the entry (see team-schedule.ts). */
  team?: TeamEntry;
  /** The host's time off with a stand-in in the entry's span, read with the calendar (a change bumps the calendar version). */
  delegations?: readonly Delegation[];
}

/** Per day of a host's entry: each slot's start as a number, and the host's meetings of the topic in that slot's week. */
export interface TeamEntry {
  starts: number[][];
  counts: number[][];
  /** The host's meetings of the topic by UTC ISO week (the week's Monday as epoch ms). */
  perWeek: Map<number, number>;
}

function teamEntryOf(entry: HostEntry): TeamEntry {
  if (entry.team) return entry.team;
  const perWeek = new Map<number, number>();
  for (const start of entry.topicStarts) {
    const week = isoWeekStartUtc(start);
    perWeek.set(week, (perWeek.get(week) ?? 0) + 1);
  }
  const counts: number[][] = [];
  let lastWeek = Number.NaN;
  let lastCount = 0;
  // The entry's own numeric starts: read back from the slots' text, they cost a fifth of a cold view.
  for (const dayStarts of entry.starts) {
    const dayCounts: number[] = [];
    for (const ms of dayStarts) {
      if (!(ms >= lastWeek && ms < lastWeek + WEEK_MS)) {
        lastWeek = isoWeekStartUtc(ms);
        lastCount = perWeek.get(lastWeek) ?? 0;
      }
      dayCounts.push(lastCount);
    }
    counts.push(dayCounts);
  }
  entry.team = { starts: entry.starts, counts, perWeek };
  return entry.team;
}

/**
 * Merges the hosts' schedules of one range (the same participant dates for every host)
 * into the team view: each start at which any host is free, once, naming the free host
 * with the fewest meetings of the topic in that UTC ISO week (ties: the smaller username),
 * so the slot can go back to POST /schedule as it is. With `unready` (per entry, how many
 * of the topic's places are not ready for that host), a host with fewer goes first: a
 * meeting then gets its link at once where some host can give one.
 *
 * Hosts `anna` (2 meetings this week) and `bob` (1), both free at 09:00, only `anna` at
 * 10:00 → `[{ start: 09:00, username: 'bob' }, { start: 10:00, username: 'anna' }]`.
 *
 * With `weights` (per entry, 1…100; the topic's `hostWeights`), "fewest" is relative to the
 * weight, by Balinski and Young's quota method: of the team's n meetings of the topic that
 * week, a host whose meetings are still below their share of n + 1 (meetings × total weight <
 * (n + 1) × weight) goes before one who has reached it, and among those the smallest
 * (meetings + 1) / weight goes first. Over any run of bookings each host then stays within
 * one meeting of their weight's share; the simpler orders (Sainte-Laguë's (2m + 1) / w, or
 * the largest shortfall) let a host fall more than a meeting behind (weights 2, 2, 62, 13
 * over 23 bookings: 1, 1, 17, 4 against a share of 18.05). So with anna 3 and bob 1, neither
 * booked yet: anna three times (1/3, 2/3, then 3/3 ties bob's 1/1 and the smaller username
 * wins), then bob (anna has her 3 of 4), and again. Equal weights order exactly as the plain
 * counts do (the least-loaded host is always below its share).
 */
export function teamScheduleDays(entries: readonly HostEntry[], range: { from: string; to: string }, unready: readonly number[] = [], weights: readonly number[] = []): DaySlots[] {
  if (entries.length === 0) return emptyDays(range);
  const teams = entries.map(teamEntryOf);
  const template = entries[0]!.days;
  // Slots sit on whole minutes and a participant's day spans at most 25 hours: each day's
  // starts index a small array by minute, so merging 50 hosts is array work, not hashing.
  const span = 26 * 60;
  const bestHost = new Int32Array(span);
  const bestIndex = new Int32Array(span);
  const bestCount = new Int32Array(span);
  const bestBelow = new Uint8Array(span);
  // Equal weights (every host weighs 1 unless named): the plain counts decide, no weeks' totals needed.
  const weighted = weights.some((weight) => weight !== (weights[0] ?? 1));
  const totalWeight = entries.reduce((sum, _, h) => sum + (weights[h] ?? 1), 0);
  const teamPerWeek = new Map<number, number>();
  if (weighted) for (const team of teams) for (const [week, count] of team.perWeek) teamPerWeek.set(week, (teamPerWeek.get(week) ?? 0) + count);
  return template.map((day, d) => {
    let base = Infinity;
    for (const team of teams) {
      const first = team.starts[d]![0];
      if (first !== undefined && first < base) base = first;
    }
    if (base === Infinity) return { date: day.date, slots: [] };
    bestHost.fill(-1);
    for (let h = 0; h < entries.length; h += 1) {
      const rank = unready[h] ?? 0;
      const weight = weights[h] ?? 1;
      const slots = entries[h]!.days[d]!.slots;
      const starts = teams[h]!.starts[d]!;
      const counts = teams[h]!.counts[d]!;
      let week = Number.NaN;
      let teamCount = 0;
      for (let k = 0; k < slots.length; k += 1) {
        const start = starts[k]!;
        const minute = (start - base) / 60_000;
        const count = counts[k]!;
        let below = 1;
        if (weighted) {
          if (!(start >= week && start < week + WEEK_MS)) {
            week = isoWeekStartUtc(start);
            teamCount = teamPerWeek.get(week) ?? 0;
          }
          below = count * totalWeight < (teamCount + 1) * weight ? 1 : 0;
        }
        const current = bestHost[minute]!;
        const currentRank = current === -1 ? 0 : (unready[current] ?? 0);
        // (count + 1) / weight against the best's, cross-multiplied: integers, no rounding.
        const load = current === -1 ? 0 : weighted ? (count + 1) * (weights[current] ?? 1) - (bestCount[minute]! + 1) * weight : count - bestCount[minute]!;
        if (
          current === -1 ||
          rank < currentRank ||
          (rank === currentRank &&
            (below > bestBelow[minute]! ||
              (below === bestBelow[minute]! && (load < 0 || (load === 0 && slots[k]!.username < entries[current]!.days[d]!.slots[bestIndex[minute]!]!.username)))))
        ) {
          bestHost[minute] = h;
          bestIndex[minute] = k;
          bestCount[minute] = count;
          bestBelow[minute] = below;
        }
      }
    }
    const slots: Slot[] = [];
    for (let minute = 0; minute < span; minute += 1) {
      const h = bestHost[minute]!;
      if (h !== -1) slots.push(entries[h]!.days[d]!.slots[bestIndex[minute]!]!);
    }
    return { date: day.date, slots };
  });
}

function emptyDays(range: { from: string; to: string }): DaySlots[] {
  const days: DaySlots[] = [];
  for (let day = Date.parse(`${range.from}T00:00:00Z`); day <= Date.parse(`${range.to}T00:00:00Z`); day += DAY_MS) {
    days.push({ date: new Date(day).toISOString().slice(0, 10), slots: [] });
  }
  return days;
}
