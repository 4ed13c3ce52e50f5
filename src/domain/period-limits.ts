import { localEpochDay } from './time-zones.js';

/**
 * Busy time that is not a meeting (a remote calendar's event) carries this prefix in place
 * of a topic uuid: it blocks like a meeting, but never counts toward any limit.
 */
export const EXTERNAL_BUSY_PREFIX = 'external:';

/**
 * A host's own limits across all their topics (`PUT /users/{uuid}/limits`), counted in
 * calendar days and weeks (Monday first) of the host's time zone; null: no limit.
 */
export interface HostLimits {
  timezone: string;
  daily: number | null;
  weekly: number | null;
}

/** The most meetings a host limit may allow per period. */
export const HOST_LIMIT_RANGES = { daily: [1, 100], weekly: [1, 500] } as const;

/** Per-topic limits next to `dailyLimit`: most meetings of the topic per host per period. */
export interface TopicPeriodLimits {
  topicUuid: string;
  /** Counted in `zone` (the zone of the hours the topic uses). */
  weeklyLimit?: number | null | undefined;
  monthlyLimit?: number | null | undefined;
}

/**
 * A full period, as the engine's trace names it (see Exclusion in slots.ts): `scope` says
 * whether the topic's limit or the host's own (across topics) is reached; `count` is how
 * many meetings that period already holds.
 */
export interface LimitExclusion {
  code: 'DAILY_LIMIT' | 'WEEKLY_LIMIT' | 'MONTHLY_LIMIT';
  scope: 'topic' | 'host';
  limit: number;
  count: number;
}

/** What is counted: meetings that hold the host's time, by start. */
export interface CountedMeeting {
  start: number;
  topicUuid: string;
}

/**
 * The Monday (epoch day) of the calendar week containing an epoch day:
 * `weekOfDay(parseLocalDate('2027-03-28'))` (a Sunday) → `parseLocalDate('2027-03-22')`.
 */
export function weekOfDay(epochDay: number): number {
  // 1970-01-01 was a Thursday: three days after a Monday.
  return epochDay - ((((epochDay + 3) % 7) + 7) % 7);
}

/**
 * Months since 1970-01 of an epoch day: `monthOfDay(parseLocalDate('2027-03-31'))` →
 * (2027 − 1970) × 12 + 2 = 686 (Howard Hinnant's civil-from-days).
 */
export function monthOfDay(epochDay: number): number {
  const z = epochDay + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return (year - 1970) * 12 + month - 1;
}

/**
 * Which starts fall in a period that is already full, by the topic's weekly and monthly
 * limits (in `zone`) and the host's own daily and weekly limits across topics (in the
 * host's zone); null when none of these applies, so the engine pays nothing for them.
 * A remote calendar's busy time counts toward none.
 *
 * Topic `weeklyLimit: 2` in Europe/Warsaw, meetings of the topic on Mon 2027-03-22 and
 * Sun 2027-03-28 23:30 local (21:30Z, after the clocks went forward): a start on Wed
 * 2027-03-24 → full; one on Mon 2027-03-29 00:30 local → not (a new week).
 */
export function findFullPeriods(
  busy: readonly CountedMeeting[],
  topic: TopicPeriodLimits,
  zone: string,
  host: HostLimits | null | undefined,
): ((start: number, trace?: { push(exclusion: LimitExclusion): unknown } | null) => boolean) | null {
  const weekly = topic.weeklyLimit ?? null;
  const monthly = topic.monthlyLimit ?? null;
  const hostDaily = host?.daily ?? null;
  const hostWeekly = host?.weekly ?? null;
  if (weekly === null && monthly === null && hostDaily === null && hostWeekly === null) return null;
  const fullWeeks = new Set<number>();
  const fullMonths = new Set<number>();
  const fullHostDays = new Set<number>();
  const fullHostWeeks = new Set<number>();
  const topicWeeks = new Map<number, number>();
  const topicMonths = new Map<number, number>();
  const hostDays = new Map<number, number>();
  const hostWeeks = new Map<number, number>();
  const add = (counts: Map<number, number>, full: Set<number>, key: number, limit: number | null) => {
    if (limit === null) return;
    const count = (counts.get(key) ?? 0) + 1;
    counts.set(key, count);
    if (count >= limit) full.add(key);
  };
  for (const meeting of busy) {
    if (meeting.topicUuid.startsWith(EXTERNAL_BUSY_PREFIX)) continue;
    if (meeting.topicUuid === topic.topicUuid && (weekly !== null || monthly !== null)) {
      const day = localEpochDay(zone, meeting.start);
      add(topicWeeks, fullWeeks, weekOfDay(day), weekly);
      add(topicMonths, fullMonths, monthOfDay(day), monthly);
    }
    if (host && (hostDaily !== null || hostWeekly !== null)) {
      const day = localEpochDay(host.timezone, meeting.start);
      add(hostDays, fullHostDays, day, hostDaily);
      add(hostWeeks, fullHostWeeks, weekOfDay(day), hostWeekly);
    }
  }
  if (fullWeeks.size + fullMonths.size + fullHostDays.size + fullHostWeeks.size === 0) return () => false;
  // With a trace, every full period is recorded; without, the first one answers.
  return (start, trace) => {
    let full = false;
    const hit = (code: LimitExclusion['code'], scope: LimitExclusion['scope'], limit: number | null, count: number | undefined) => {
      full = true;
      trace?.push({ code, scope, limit: limit!, count: count! });
      return !trace;
    };
    if (fullWeeks.size + fullMonths.size > 0) {
      const day = localEpochDay(zone, start);
      const week = weekOfDay(day);
      if (fullWeeks.has(week) && hit('WEEKLY_LIMIT', 'topic', weekly, topicWeeks.get(week))) return true;
      const month = monthOfDay(day);
      if (fullMonths.has(month) && hit('MONTHLY_LIMIT', 'topic', monthly, topicMonths.get(month))) return true;
    }
    if (host && fullHostDays.size + fullHostWeeks.size > 0) {
      const day = localEpochDay(host.timezone, start);
      if (fullHostDays.has(day) && hit('DAILY_LIMIT', 'host', hostDaily, hostDays.get(day))) return true;
      const week = weekOfDay(day);
      if (fullHostWeeks.has(week) && hit('WEEKLY_LIMIT', 'host', hostWeekly, hostWeeks.get(week))) return true;
    }
    return full;
  };
}

/**
 * How far around a span of starts the host's meetings must be read so that every calendar
 * week (and, with a monthly limit, month) a start in it belongs to is counted whole, in any
 * zone: a week and a day, or a month and a day.
 */
export function periodReachDays(topic: Pick<TopicPeriodLimits, 'monthlyLimit'>): number {
  return (topic.monthlyLimit ?? null) !== null ? 32 : 8;
}
