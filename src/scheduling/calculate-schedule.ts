import type { Availability } from '../domain/availability.js';
import { NotFoundError, ValidationError } from '../domain/errors.js';
import { TOPIC_LIMITS, checkTopicTeam, findTopicHost, type MeetingTopic, type TopicHost } from '../domain/meeting-topic.js';
import { resolveScheduleRange, validateScheduleRangeInput } from '../domain/schedule-range.js';
import { computeBusyWindow, computeSlots, type DaySlots, type HostCalendar, type SlotRules } from '../domain/slots.js';
import { createKyselyReads, type FastReads } from '../db/fast-reads.js';
import type { CachedSchedule } from './schedule-cache.js';
import type { Principal, UseCaseContext } from './context.js';

export interface CalculateScheduleInput {
  username: string;
  meetingTopic: string;
  timezone: string;
  offset: number;
  month?: number | undefined;
  year?: number | undefined;
  team?: string | undefined;
}

export interface Schedule {
  username: string;
  meetingTopic: string;
  team: string | null;
  timezone: string;
  durationMinutes: number;
  from: string;
  to: string;
  days: DaySlots[];
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
// Local dates span at most UTC−12…UTC+14 around the same UTC date.
const ZONE_SLACK_MS = 2 * DAY_MS;

/**
 * Seed endpoint 6: the host's free slots on each local date of the participant's range.
 * Public; when a key is sent, the topic must belong to the key's account.
 *
 * Schedules are cached (see schedule-cache.ts): computed for the start of the current
 * minute with the window stretched by that minute, then trimmed to the exact `now`, which
 * gives the same slots as computing for `now` itself, since only the notice and window
 * bounds depend on the clock. The host's calendar version is read before the calendar, so
 * an entry can be older than its version says, never newer.
 */
export async function calculateSchedule(ctx: UseCaseContext, principal: Principal | null, input: CalculateScheduleInput): Promise<Schedule> {
  const now = ctx.now();
  const rangeInput = { now, timezone: input.timezone, offset: input.offset, month: input.month, year: input.year };
  const errors = validateScheduleRangeInput(rangeInput);
  if (errors.length > 0) throw new ValidationError(errors);
  const reads = ctx.reads ?? createKyselyReads(ctx.db);
  const topic = await reads.findTopic(principal?.accountUuid ?? null, input.meetingTopic);
  if (!topic) throw new NotFoundError('meeting topic');
  checkTopicTeam(topic, input.team);
  const host = findTopicHost(topic, input.username, '/username');
  const range = resolveScheduleRange(rangeInput);
  const rules = slotRulesOf(topic);
  const calendarVersion = host.calendarVersion ?? (await reads.findCalendarVersion(host.uuid));
  if (calendarVersion === undefined) throw new NotFoundError('host');

  const key = JSON.stringify([rules, host.uuid, input.timezone, range.from, range.to]);
  let entry = ctx.scheduleCache?.get(key);
  if (!entry || entry.calendarVersion !== calendarVersion || now < entry.readAt || now >= entry.validUntil) {
    entry = await computeEntry(reads, host, rules, input.timezone, range, now, calendarVersion);
    ctx.scheduleCache?.set(key, entry);
  }

  const earliest = now + rules.minimumNoticeMinutes * MINUTE_MS;
  const latest = now + rules.bookingWindowDays * DAY_MS;
  const untrimmed = entry.firstStart === null || (entry.firstStart >= earliest && entry.lastStart! <= latest);
  if (untrimmed && entry.response) return entry.response as Schedule;
  const days = untrimmed
    ? entry.days
    : entry.days.map((day) => ({
        date: day.date,
        slots: day.slots.filter((slot) => {
          const start = Date.parse(slot.start);
          return start >= earliest && start <= latest;
        }),
      }));
  const schedule: Schedule = {
    username: host.username,
    meetingTopic: topic.uuid,
    team: topic.teamUuid,
    timezone: input.timezone,
    durationMinutes: topic.durationMinutes,
    from: range.from,
    to: range.to,
    days,
  };
  if (untrimmed) entry.response = schedule;
  return schedule;
}

async function computeEntry(
  reads: FastReads,
  host: TopicHost,
  rules: SlotRules,
  participantTimezone: string,
  range: { from: string; to: string },
  now: number,
  calendarVersion: number,
): Promise<CachedSchedule> {
  const computedFor = Math.floor(now / MINUTE_MS) * MINUTE_MS;
  const fromInstant = Date.parse(`${range.from}T00:00:00Z`) - ZONE_SLACK_MS;
  const toInstant = Date.parse(`${range.to}T00:00:00Z`) + DAY_MS + ZONE_SLACK_MS;
  const calendar = await loadHostCalendar(reads, host, rules, fromInstant, toInstant, now);
  // A minute later the window reaches a minute further: compute that far, trim per request.
  const stretched = { ...rules, bookingWindowDays: rules.bookingWindowDays + MINUTE_MS / DAY_MS };
  const days = computeSlots(calendar, stretched, { now: computedFor, participantTimezone, from: range.from, to: range.to });
  const starts = days.flatMap((day) => day.slots.map((slot) => slot.start));
  // A hold stops blocking without any write: the entry must not outlive the first to end.
  const holdsEnd = calendar.busy.map((meeting) => meeting.holdExpiresAt ?? Infinity);
  return {
    calendarVersion,
    computedFor,
    readAt: now,
    validUntil: Math.min(computedFor + MINUTE_MS, ...holdsEnd),
    days,
    firstStart: starts.length > 0 ? Date.parse(starts[0]!) : null,
    lastStart: starts.length > 0 ? Date.parse(starts[starts.length - 1]!) : null,
  };
}

export function slotRulesOf(topic: MeetingTopic): SlotRules {
  return {
    topicUuid: topic.uuid,
    durationMinutes: topic.durationMinutes,
    slotIntervalMinutes: topic.slotIntervalMinutes,
    bufferBeforeMinutes: topic.bufferBeforeMinutes,
    bufferAfterMinutes: topic.bufferAfterMinutes,
    minimumNoticeMinutes: topic.minimumNoticeMinutes,
    bookingWindowDays: topic.bookingWindowDays,
    dailyLimit: topic.dailyLimit,
  };
}

/**
 * The host's hours and everything that could block a slot between the two instants. The
 * calculation (prepared reads) and the booking check (the booking's transaction, through
 * createKyselyReads) both load a calendar here, so they see the same busy time.
 */
export async function loadHostCalendar(
  reads: FastReads,
  host: TopicHost,
  rules: SlotRules,
  fromInstant: number,
  toInstant: number,
  now: number,
): Promise<HostCalendar> {
  // Other topics' buffers are at most the topic limit, so this window sees every blocker.
  const window = computeBusyWindow(rules, fromInstant, toInstant, TOPIC_LIMITS.bufferMinutes[1]);
  const [availabilityJson, busy] = await Promise.all([
    reads.findAvailabilityJson(host.uuid),
    // Holds are read as of `now`: one that ended earlier this minute no longer blocks.
    reads.findBusySpans(host.uuid, window.from, window.to, now),
  ]);
  if (availabilityJson === undefined) throw new NotFoundError('host');
  return { username: host.username, availability: JSON.parse(availabilityJson) as Availability, busy };
}
