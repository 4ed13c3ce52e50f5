import { WEEKDAYS, parseLocalTime, type Availability, type LocalInterval } from './availability.js';
import { EXTERNAL_BUSY_PREFIX, findFullPeriods, type HostLimits, type LimitExclusion } from './period-limits.js';
import { formatLocalDate, localEpochDay, localToInstant, nextOffsetChange, parseLocalDate, zoneOffset } from './time-zones.js';
import { holidayOn } from './holidays.js';

/**
 * What of a topic decides its slots. The one list of these fields: a topic's settings
 * (src/domain/meeting-topic.ts) extend it, and `pickSlotRules` copies exactly these.
 */
export interface SlotRuleSettings {
  durationMinutes: number;
  slotIntervalMinutes: number;
  bufferBeforeMinutes: number;
  bufferAfterMinutes: number;
  minimumNoticeMinutes: number;
  bookingWindowDays: number;
  dailyLimit: number | null;
  /** Most meetings of the topic per host per calendar week (Monday first) / month of the hours' zone; null or absent: none. */
  weeklyLimit?: number | null;
  monthlyLimit?: number | null;
  /**
   * Which of a host's schedules gives the hours (an individual topic's `schedule`, a team
   * topic's `hostSchedules` by username); absent: the default. The engine gets the hours
   * already chosen (loadHostCalendar); they are here so that a cached view's key changes
   * with the choice.
   */
  schedule?: string | null;
  hostSchedules?: Readonly<Record<string, string>>;
  /** Participants per slot (group meetings, see seats.ts); unset is one. */
  seats?: number;
}

export interface SlotRules extends SlotRuleSettings {
  topicUuid: string;
}

/** Every field of SlotRuleSettings: the compiler refuses this object if one is missing or extra. */
const SLOT_RULE_FIELDS: Readonly<Record<keyof SlotRuleSettings, true>> = {
  durationMinutes: true,
  slotIntervalMinutes: true,
  bufferBeforeMinutes: true,
  bufferAfterMinutes: true,
  minimumNoticeMinutes: true,
  bookingWindowDays: true,
  dailyLimit: true,
  weeklyLimit: true,
  monthlyLimit: true,
  schedule: true,
  hostSchedules: true,
  seats: true,
};

/** A topic's slot rules, nothing else of it: `pickSlotRules({ uuid, name, durationMinutes: 30, … })` → `{ topicUuid: uuid, durationMinutes: 30, … }`. */
export function pickSlotRules(topic: SlotRuleSettings & { uuid: string }): SlotRules {
  const rules: Record<string, unknown> = { topicUuid: topic.uuid };
  for (const field of Object.keys(SLOT_RULE_FIELDS) as (keyof SlotRuleSettings)[]) rules[field] = topic[field];
  return rules as unknown as SlotRules;
}

/** A meeting that blocks the host's time; buffers are those of the meeting's own topic. */
export interface BusyMeeting {
  start: number;
  end: number;
  bufferBeforeMinutes: number;
  bufferAfterMinutes: number;
  topicUuid: string;
  /** For a meeting pending payment: when its hold ends and it stops blocking. */
  holdExpiresAt?: number | null;
  /** The meeting's uuid, when the reader loaded it (the explanation names meetings; the month view needs none). */
  uuid?: string;
}

export interface HostCalendar {
  username: string;
  availability: Availability;
  busy: BusyMeeting[];
  /** The host's own limits across topics (see period-limits.ts); absent: none. */
  limits?: HostLimits | null;
  /** A deactivated host offers nothing (only the explanation meets one: views list active hosts). */
  inactive?: boolean;
  /** The host's time off (see time-off.ts) near the span read: no meeting may overlap one. */
  timeOff?: readonly TimeOffSpan[];
}

/** A span the host is away, as instants. */
export interface TimeOffSpan {
  start: number;
  end: number;
}

/**
 * Why the engine leaves a start out: the engine's own trace, one entry per rule that
 * excludes it (see explainSlot). Instants are epoch milliseconds; `date` is the host-local
 * date. A BUFFER's `bufferAfterMinutes` is the earlier one's buffer after and
 * `bufferBeforeMinutes` the later one's buffer before: the two that meet in the gap.
 */
export type Exclusion =
  | { code: 'HOST_INACTIVE' }
  | { code: 'MINIMUM_NOTICE'; earliest: number }
  | { code: 'BOOKING_WINDOW'; latest: number }
  | { code: 'OUTSIDE_HOURS'; date: string; hours: LocalInterval[] }
  | { code: 'DAY_OFF'; date: string }
  | { code: 'HOLIDAY'; date: string; name: string }
  | { code: 'TIME_OFF'; start: number; end: number }
  | { code: 'OFF_GRID'; previous: number | null; next: number | null }
  | { code: 'MEETING'; meetingUuid: string | null; start: number; end: number }
  | { code: 'BUFFER'; meetingUuid: string | null; start: number; end: number; bufferBeforeMinutes: number; bufferAfterMinutes: number }
  | { code: 'CALENDAR_EVENT'; calendarUuid: string; from: number; to: number }
  | LimitExclusion
  | { code: 'SEATS_FULL'; seats: number };

/** Where a trace collects exclusions; null: the fast path, which stops at the first one. */
export type Trace = Exclusion[] | null;

export interface SlotQuery {
  now: number;
  participantTimezone: string;
  /** Inclusive participant-local dates. */
  from: string;
  to: string;
}

export interface Slot {
  start: string;
  username: string;
  /** Topics with more than one seat only: seats still free at this start (see seats.ts). */
  seatsLeft?: number;
}

export interface DaySlots {
  date: string;
  slots: Slot[];
}

const MINUTE = 60_000;
const DAY = 86_400_000;

/** One interval of host hours as instants, with the continuous stretch it belongs to. */
interface HostInterval {
  start: number;
  end: number;
  /** End of the continuous availability this interval starts: touching intervals join. */
  reach: number;
  /** Its wall-clock start as if the zone were UTC (local epoch day × DAY + minutes): the grid counts from there. */
  wallStart: number;
}

/**
 * The free slots of a host on each participant-local date of the query.
 *
 * A slot starts on the wall-clock grid of the host interval it falls in: the host-local
 * times interval start + k × slot interval, each at every instant it denotes, so the grid
 * stays on the hour (or :15, :30…) across a clock change. A time that a fall-back overlap
 * repeats gives two slots; one that a spring-forward gap skips gives none (an interval bound
 * in a gap still moves to the jump). Hourly 00:00–06:00 on Lord Howe's fall-back day
 * (02:00 → 01:30) gives 00:00, 01:00, 02:00 … 05:00, not 01:30, 02:30 … The whole
 * meeting fits in the host's continuous availability: intervals that touch, across
 * midnight too (`24:00` then `00:00`), count as one stretch, so a meeting may run from one
 * into the next. It starts no sooner than `now` + notice and no later than `now` + window,
 * on a host-local day still under the daily limit (and in no calendar week or month the
 * topic's or the host's own limits fill: period-limits.ts), and its span widened by its buffers
 * overlaps no busy meeting's span widened by that meeting's buffers (touching is fine).
 *
 * `computeSlots(anna, { durationMinutes: 30, slotIntervalMinutes: 30, … }, { now, participantTimezone: 'Asia/Tokyo', from: '2027-03-01', to: '2027-03-07' })`
 * → 7 `{ date, slots }` entries, slots grouped under their Tokyo date.
 */
export function computeSlots(host: HostCalendar, rules: SlotRules, query: SlotQuery): DaySlots[] {
  return computeSlotsWithStarts(host, rules, query).days;
}

/**
 * computeSlots, with each slot's start also as a number (`starts[d][i]` is
 * `days[d].slots[i].start`): whoever works on the starts (the team view, trimming to
 * `now`) need not read them back from their text.
 */
export function computeSlotsWithStarts(host: HostCalendar, rules: SlotRules, query: SlotQuery): { days: DaySlots[]; starts: number[][] } {
  const zone = host.availability.timezone;
  const firstDay = parseLocalDate(query.from);
  const lastDay = parseLocalDate(query.to);
  // Participant day boundaries: bounds[i] is the start of date i, bounds[n] the end of the range.
  const bounds: number[] = [];
  for (let day = firstDay; day <= lastDay + 1; day += 1) bounds.push(localToInstant(query.participantTimezone, day, 0));
  const days: DaySlots[] = [];
  const starts: number[][] = [];
  for (let day = firstDay; day <= lastDay; day += 1) {
    days.push({ date: formatLocalDate(day), slots: [] });
    starts.push([]);
  }
  const rangeStart = bounds[0]!;
  const rangeEnd = bounds[bounds.length - 1]!;
  if (!(rangeStart < rangeEnd)) return { days, starts };

  const judge = createStartJudge(host, rules, query.now, true);
  const earliest = Math.max(rangeStart, judge.earliest);
  const latest = Math.min(rangeEnd - 1, judge.latest);
  if (earliest > latest) return { days, starts };

  const intervals = buildHostIntervals(host.availability, localEpochDay(zone, earliest) - 1, localEpochDay(zone, latest) + 1);
  const step = rules.slotIntervalMinutes * MINUTE;

  let dayIndex = 0;
  eachInterval: for (const interval of intervals) {
    if (interval.end <= earliest) continue;
    if (interval.start > latest) break;
    // Between clock changes the wall-clock grid is an elapsed one counted from where the
    // interval's wall start would be at the current offset; a change inside the interval
    // (only on DST days) starts a new piece with the new offset.
    for (let from = interval.start; from < interval.end && from <= latest; ) {
      const to = nextOffsetChange(zone, from, interval.end);
      const anchor = gridAnchor(zone, interval, from);
      const low = Math.max(from, earliest);
      // First grid point at or after `low`, never before the wall start (k ≥ 0).
      let start = low <= anchor ? anchor : anchor + Math.ceil((low - anchor) / step) * step;
      for (; start < to && start <= latest; start += step) {
        const verdict = judgeStart(judge, start, interval.reach, null);
        if (verdict === PAST_HOURS) continue eachInterval;
        if (verdict !== OFFERED) continue;
        while (bounds[dayIndex + 1]! <= start) dayIndex += 1;
        days[dayIndex]!.slots.push({ start: formatInstant(start), username: host.username });
        starts[dayIndex]!.push(start);
      }
      from = to;
    }
  }
  return { days, starts };
}

/**
 * The booking check: true exactly when `computeSlots` would offer `start` at `now`, by
 * the same rules, evaluated for that one instant (judgeSlot without a trace).
 */
export function isSlotAvailable(host: HostCalendar, rules: SlotRules, now: number, start: number): boolean {
  return judgeSlot(host, rules, now, start, null);
}

/**
 * Every reason the engine leaves `start` out, `[]` exactly when `computeSlots` offers it:
 * the same rules as the month view, each one run to the end instead of stopping at the
 * first that fails.
 *
 * Anna (Europe/Warsaw, Mon 09:00–17:00, 30-minute slots, 60 minutes' notice), a meeting
 * 10:00–11:00: `explainSlot(anna, rules, now, Date.parse('2027-03-29T08:15:00Z'))` (10:15
 * local) → `[{ code: 'OFF_GRID', previous: 08:00Z, next: 08:30Z }, { code: 'MEETING', … }]`.
 */
export function explainSlot(host: HostCalendar, rules: SlotRules, now: number, start: number): Exclusion[] {
  const trace: Exclusion[] = [];
  judgeSlot(host, rules, now, start, trace);
  return trace;
}

/**
 * One start against every rule: where it lies in the host's hours and on their grid (as
 * computeSlots enumerates them), then the judge's rules. With a trace, records each
 * exclusion and carries on; without, stops at the first.
 */
export function judgeSlot(host: HostCalendar, rules: SlotRules, now: number, start: number, trace: Trace): boolean {
  if (!Number.isFinite(start)) return false;
  const zone = host.availability.timezone;
  const day = localEpochDay(zone, start);
  let offered = true;
  const interval = buildHostIntervals(host.availability, day - 1, day + 1).find((candidate) => candidate.start <= start && start < candidate.end);
  if (interval === undefined) {
    if (trace === null) return false;
    offered = false;
    const hours = localHoursOf(host.availability, day);
    trace.push(
      hours.holiday !== null
        ? { code: 'HOLIDAY', date: formatLocalDate(day), name: hours.holiday }
        : hours.override && hours.intervals.length === 0
          ? { code: 'DAY_OFF', date: formatLocalDate(day) }
          : { code: 'OUTSIDE_HOURS', date: formatLocalDate(day), hours: hours.intervals },
    );
  } else {
    const step = rules.slotIntervalMinutes * MINUTE;
    const anchor = gridAnchor(zone, interval, start);
    if (!(start >= anchor && (start - anchor) % step === 0)) {
      if (trace === null) return false;
      offered = false;
      // The grid starts either side within this interval, as computeSlots steps through it.
      const k = Math.floor((start - anchor) / step);
      const previous = anchor + k * step;
      const next = anchor + (k + 1) * step;
      trace.push({ code: 'OFF_GRID', previous: previous >= interval.start && previous >= anchor ? previous : null, next: next < interval.end ? next : null });
    }
  }
  // Outside the hours there is no stretch to fit in: the reach rule has nothing more to say.
  const verdict = judgeStart(createStartJudge(host, rules, now, false), start, interval?.reach ?? Number.POSITIVE_INFINITY, trace);
  return verdict === OFFERED && offered;
}

/** The judge's verdict on a start: offered, excluded, or excluded with every later start of its stretch. */
const OFFERED = 0;
const EXCLUDED = 1;
const PAST_HOURS = 2;
type Verdict = typeof OFFERED | typeof EXCLUDED | typeof PAST_HOURS;

/** What the per-start rules need of a host and topic, prepared once (createStartJudge). */
interface StartJudge {
  host: HostCalendar;
  rules: SlotRules;
  zone: string;
  inactive: boolean;
  /** The first and last instant notice and window allow: the month view starts and stops there. */
  earliest: number;
  latest: number;
  duration: number;
  before: number;
  after: number;
  dailyLimit: number | null;
  /** The topic's meetings per host-local day, and the days the daily limit fills (null: no limit). */
  dayCounts: Map<number, number> | null;
  fullDays: Set<number> | null;
  fullPeriods: ReturnType<typeof findFullPeriods>;
  timeOff: readonly TimeOffSpan[];
  /** Sequential callers only: busy spans merged, and the forward pointer into them. */
  blocked: { start: number; end: number }[] | null;
  blockedIndex: number;
}

/**
 * `sequential`: the caller (computeSlots) asks in time order, so blocked spans are merged
 * once and passed by one forward pointer; otherwise each call looks at every busy span.
 */
function createStartJudge(host: HostCalendar, rules: SlotRules, now: number, sequential: boolean): StartJudge {
  const zone = host.availability.timezone;
  const dailyLimit = rules.dailyLimit;
  const days = dailyLimit === null ? null : countByHostDay(host.busy, rules.topicUuid, zone, dailyLimit);
  return {
    host,
    rules,
    zone,
    inactive: host.inactive === true,
    earliest: now + rules.minimumNoticeMinutes * MINUTE,
    latest: now + rules.bookingWindowDays * DAY,
    duration: rules.durationMinutes * MINUTE,
    before: rules.bufferBeforeMinutes * MINUTE,
    after: rules.bufferAfterMinutes * MINUTE,
    dailyLimit,
    dayCounts: days?.counts ?? null,
    fullDays: days?.full ?? null,
    fullPeriods: findFullPeriods(host.busy, rules, zone, host.limits),
    timeOff: host.timeOff ?? [],
    blocked: sequential ? mergeBlocked(host.busy) : null,
    blockedIndex: 0,
  };
}

/**
 * The per-start rules, the one place they are written: host active, notice, window, the
 * meeting within the host's stretch (`reach`: the end of the stretch it starts in), the
 * topic's daily limit, the period limits (period-limits.ts), and no busy span widened by its
 * buffers overlapping the start's own widened span. Without a trace (the month view, the
 * booking check) it stops at the first failure; with one it records every exclusion.
 * A module-level function, not a closure per judge, and each exclusion built out of line
 * (note…): so V8 inlines it into the month view's loop.
 */
function judgeStart(judge: StartJudge, start: number, reach: number, trace: Trace): Verdict {
  let verdict: Verdict = OFFERED;
  if (judge.inactive) {
    if (trace === null) return EXCLUDED;
    verdict = note(trace, { code: 'HOST_INACTIVE' });
  }
  if (start < judge.earliest) {
    if (trace === null) return EXCLUDED;
    verdict = note(trace, { code: 'MINIMUM_NOTICE', earliest: judge.earliest });
  }
  if (start > judge.latest) {
    if (trace === null) return EXCLUDED;
    verdict = note(trace, { code: 'BOOKING_WINDOW', latest: judge.latest });
  }
  const end = start + judge.duration;
  if (end > reach) {
    // Every later start of this stretch ends later still.
    if (trace === null) return PAST_HOURS;
    verdict = noteOutsideHours(trace, judge.host.availability, localEpochDay(judge.zone, start));
  }
  if (judge.fullDays !== null) {
    const day = localEpochDay(judge.zone, start);
    if (judge.fullDays.has(day)) {
      if (trace === null) return EXCLUDED;
      verdict = noteDailyLimit(trace, judge, day);
    }
  }
  if (judge.fullPeriods?.(start, trace)) {
    if (trace === null) return EXCLUDED;
    verdict = EXCLUDED;
  }
  // Time off takes the meeting itself, not its buffers: a buffer may run into it as into the end of the hours.
  for (const away of judge.timeOff) {
    if (!(away.start < end && start < away.end)) continue;
    if (trace === null) return EXCLUDED;
    verdict = note(trace, { code: 'TIME_OFF', start: away.start, end: away.end });
  }
  const spanStart = start - judge.before;
  const spanEnd = end + judge.after;
  const blocked = judge.blocked;
  if (blocked !== null && trace === null) {
    let index = judge.blockedIndex;
    while (index < blocked.length && blocked[index]!.end <= spanStart) index += 1;
    judge.blockedIndex = index;
    const next = blocked[index];
    return next !== undefined && next.start < spanEnd ? EXCLUDED : verdict;
  }
  return noteBlockers(judge.host.busy, judge.rules, start, end, spanStart, spanEnd, trace) ? verdict : EXCLUDED;
}

function noteDailyLimit(trace: Exclusion[], judge: StartJudge, day: number): Verdict {
  return note(trace, { code: 'DAILY_LIMIT', scope: 'topic', limit: judge.dailyLimit!, count: judge.dayCounts!.get(day)! });
}

/** Records an exclusion: the verdict is then EXCLUDED. */
function note(trace: Exclusion[], exclusion: Exclusion): Verdict {
  trace.push(exclusion);
  return EXCLUDED;
}

function noteOutsideHours(trace: Exclusion[], availability: Availability, day: number): Verdict {
  return note(trace, { code: 'OUTSIDE_HOURS', date: formatLocalDate(day), hours: localHoursOf(availability, day).intervals });
}

/**
 * The blocked-span rule over every busy span (no forward pointer): false when one blocks
 * the start; with a trace, each that does is recorded.
 */
function noteBlockers(busy: readonly BusyMeeting[], rules: SlotRules, start: number, end: number, spanStart: number, spanEnd: number, trace: Trace): boolean {
  let free = true;
  for (const meeting of busy) {
    const blockedStart = meeting.start - meeting.bufferBeforeMinutes * MINUTE;
    const blockedEnd = meeting.end + meeting.bufferAfterMinutes * MINUTE;
    if (!(blockedStart < spanEnd && spanStart < blockedEnd)) continue;
    if (trace === null) return false;
    free = false;
    trace.push(describeBlocker(meeting, rules, start, end));
  }
  return free;
}

/** Which kind of busy time blocks a start: a remote calendar's span, the meeting itself, or only the buffers around them. */
function describeBlocker(meeting: BusyMeeting, rules: SlotRules, start: number, end: number): Exclusion {
  if (meeting.topicUuid.startsWith(EXTERNAL_BUSY_PREFIX)) {
    return { code: 'CALENDAR_EVENT', calendarUuid: meeting.topicUuid.slice(EXTERNAL_BUSY_PREFIX.length), from: meeting.start, to: meeting.end };
  }
  const meetingUuid = meeting.uuid ?? null;
  if (meeting.start < end && start < meeting.end) return { code: 'MEETING', meetingUuid, start: meeting.start, end: meeting.end };
  const earlier = meeting.end <= start;
  return {
    code: 'BUFFER',
    meetingUuid,
    start: meeting.start,
    end: meeting.end,
    bufferBeforeMinutes: earlier ? rules.bufferBeforeMinutes : meeting.bufferBeforeMinutes,
    bufferAfterMinutes: earlier ? meeting.bufferAfterMinutes : rules.bufferAfterMinutes,
  };
}

/**
 * Where an interval's wall-clock grid counts from at instant `at`: its wall start at the
 * offset then in force (grid starts are anchor + k × step, k ≥ 0, until the offset changes).
 */
function gridAnchor(zone: string, interval: HostInterval, at: number): number {
  return interval.wallStart - zoneOffset(zone, at) * MINUTE;
}

/**
 * The instants between which the caller must load the host's meetings so that every slot
 * in [from, to) sees each meeting that could block it (the longest meeting and buffers
 * either side) and every meeting on the same host-local days (for the daily limit).
 */
export function computeBusyWindow(rules: SlotRules, fromInstant: number, toInstant: number, maxBufferMinutes: number): { from: number; to: number } {
  const reach = (rules.durationMinutes + Math.max(rules.bufferBeforeMinutes, rules.bufferAfterMinutes) + maxBufferMinutes + 12 * 60) * MINUTE + 2 * DAY;
  return { from: fromInstant - reach, to: toInstant + reach };
}

/**
 * Host hours of host-local days `firstDay`…`lastDay` (+1 so a stretch's reach is known), as
 * instants in time order. An override replaces its date's weekly hours.
 */
function buildHostIntervals(availability: Availability, firstDay: number, lastDay: number): HostInterval[] {
  const zone = availability.timezone;
  const overrides = new Map(availability.overrides.map((override) => [parseLocalDate(override.date), override.intervals]));
  const result: HostInterval[] = [];
  for (let day = firstDay; day <= lastDay + 1; day += 1) {
    // A public holiday is a day off unless the host gave the date hours of its own (an override).
    const local: LocalInterval[] =
      overrides.get(day) ?? (availability.holidays && holidayOn(availability, formatLocalDate(day)) !== null ? [] : (availability.weekly[weekdayOf(day)] ?? []));
    for (const interval of local) {
      const minutes = parseLocalTime(interval.start);
      const start = localToInstant(zone, day, minutes);
      const end = localToInstant(zone, day, parseLocalTime(interval.end, true));
      // A wall-clock interval that a spring-forward gap swallows whole has no time in it.
      if (start < end) result.push({ start, end, reach: end, wallStart: day * DAY + minutes * MINUTE });
    }
  }
  result.sort((a, b) => a.start - b.start);
  // Reach: walk backwards so each interval extends to the end of the stretch it touches.
  for (let i = result.length - 2; i >= 0; i -= 1) {
    const current = result[i]!;
    const next = result[i + 1]!;
    if (next.start <= current.end) current.reach = Math.max(current.end, next.reach);
  }
  return result;
}

// Date#toISOString costs ~0.5 µs, most of a month view's budget; slots sit on whole
// minutes, so a cached day prefix plus one of 1,440 prepared suffixes gives the same text.
const MINUTE_SUFFIXES = Array.from({ length: 1440 }, (_, m) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}:00.000Z`);
const dayPrefixes = new Map<number, string>();

/** `formatInstant(Date.parse('2027-03-29T07:00Z'))` → `'2027-03-29T07:00:00.000Z'`, as toISOString would. */
export function formatInstant(ms: number): string {
  const day = Math.floor(ms / DAY);
  const rest = ms - day * DAY;
  if (rest % MINUTE !== 0) return new Date(ms).toISOString();
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    prefix = new Date(day * DAY).toISOString().slice(0, 11);
    if (dayPrefixes.size > 100_000) dayPrefixes.clear();
    dayPrefixes.set(day, prefix);
  }
  return prefix + MINUTE_SUFFIXES[rest / MINUTE]!;
}

/**
 * The inverse of formatInstant, as Date.parse would read it:
 * `parseInstant('2027-03-29T07:00:00.000Z')` → `Date.parse('2027-03-29T07:00Z')`. A slot's
 * start (`YYYY-MM-DDTHH:MM:00.000Z`, a valid date) is read digit by digit, with the day
 * counted arithmetically; anything else goes to Date.parse. Reading slots back was the
 * costliest step of a cold team month view (50 hosts × 368 slots): Date.parse first, then a
 * regular expression and a cache of days (a fifth of the view), now a few arithmetic steps.
 */
export function parseInstant(iso: string): number {
  if (
    iso.length !== 24 ||
    iso.charCodeAt(4) !== 45 || // -
    iso.charCodeAt(7) !== 45 ||
    iso.charCodeAt(10) !== 84 || // T
    iso.charCodeAt(13) !== 58 || // :
    !iso.endsWith(':00.000Z')
  ) {
    return Date.parse(iso);
  }
  const year = digits(iso, 0, 4);
  const month = digits(iso, 5, 2);
  const day = digits(iso, 8, 2);
  const hours = digits(iso, 11, 2);
  const minutes = digits(iso, 14, 2);
  // A date that does not exist (30 February) or a digit that is not one: as Date.parse reads it.
  const valid = month >= 1 && month <= 12 && day >= 1 && (day <= 28 || day <= daysInMonth(year, month)) && hours <= 23 && minutes <= 59;
  if (!valid) return Date.parse(iso);
  return (daysFromCivil(year, month, day) * 1440 + hours * 60 + minutes) * MINUTE;
}

/** The number written by `length` decimal digits of `text` at `from`; NaN if any is not a digit. */
function digits(text: string, from: number, length: number): number {
  let value = 0;
  for (let i = from; i < from + length; i += 1) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return Number.NaN;
    value = value * 10 + digit;
  }
  return value;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (the civil-from-days inverse of Howard Hinnant's date algorithms). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

function weekdayOf(epochDay: number): (typeof WEEKDAYS)[number] {
  // 1970-01-01 was a Thursday (index 3 in WEEKDAYS, which starts on Monday).
  return WEEKDAYS[(((epochDay + 3) % 7) + 7) % 7]!;
}

/** Busy spans widened by their buffers, sorted and merged, so one forward pointer can test them. */
function mergeBlocked(busy: BusyMeeting[]): { start: number; end: number }[] {
  const spans = busy
    .map((meeting) => ({ start: meeting.start - meeting.bufferBeforeMinutes * MINUTE, end: meeting.end + meeting.bufferAfterMinutes * MINUTE }))
    .sort((a, b) => a.start - b.start);
  const merged: { start: number; end: number }[] = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last && span.start < last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}

/** The topic's meetings per host-local day, and the days they reach the daily limit (the fast path asks the set, a trace reads the count). */
function countByHostDay(busy: BusyMeeting[], topicUuid: string, zone: string, limit: number): { counts: Map<number, number>; full: Set<number> } {
  const counts = new Map<number, number>();
  const full = new Set<number>();
  for (const meeting of busy) {
    if (meeting.topicUuid !== topicUuid) continue;
    const day = localEpochDay(zone, meeting.start);
    const count = (counts.get(day) ?? 0) + 1;
    counts.set(day, count);
    if (count >= limit) full.add(day);
  }
  return { counts, full };
}

/** A host-local day's hours, as buildHostIntervals reads them: its override's, else none on a public holiday, else its weekday's. */
function localHoursOf(availability: Availability, day: number): { intervals: LocalInterval[]; override: boolean; holiday: string | null } {
  const date = formatLocalDate(day);
  const override = availability.overrides.find((candidate) => candidate.date === date);
  if (override) return { intervals: override.intervals, override: true, holiday: null };
  const holiday = holidayOn(availability, date);
  return holiday !== null ? { intervals: [], override: false, holiday } : { intervals: availability.weekly[weekdayOf(day)] ?? [], override: false, holiday: null };
}
