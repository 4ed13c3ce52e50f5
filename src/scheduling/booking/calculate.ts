import type { Availability } from '../../domain/availability.js';
import { NotFoundError, ValidationError } from '../../domain/errors.js';
import { TOPIC_LIMITS, checkTopicTeam, findTopicHost, isCollective, topicForDuration, type MeetingTopic, type TopicHost } from '../../domain/meeting-topic.js';
import { intersectHostDays } from '../../domain/collective.js';
import { resolveScheduleRange } from '../../domain/schedule-range.js';
import { computeSeatedSlotsWithStarts } from '../../domain/seats.js';
import { computeBusyWindow, parseInstant, pickSlotRules, type DaySlots, type HostCalendar, type SlotRules } from '../../domain/slots.js';
import type { FastReads } from '../../db/fast-reads.js';
import type { Place } from '../../domain/account.js';
import { placesReadyOf } from '../../domain/integrations.js';
import { periodReachDays, type HostLimits } from '../../domain/period-limits.js';
import { canonicalTimeZone } from '../../domain/time-zones.js';
import type { CachedSchedule } from './cache.js';
import type { Principal, UseCaseContext } from '../context.js';
import { isoWeekStartUtc, teamScheduleDays, type HostEntry } from './team-schedule.js';

export interface CalculateScheduleInput {
  /** Required for an individual topic; left out for a team topic: the team view. */
  username?: string | undefined;
  meetingTopic: string;
  timezone: string;
  offset: number;
  month?: number | undefined;
  year?: number | undefined;
  team?: string | undefined;
  /** One of the topic's `durations`; default its `durationMinutes`. */
  duration?: number | undefined;
}

export interface Schedule {
  /** Null for the team view: each slot names its host. */
  username: string | null;
  meetingTopic: string;
  team: string | null;
  timezone: string;
  durationMinutes: number;
  from: string;
  to: string;
  days: DaySlots[];
  /** Per host of the view (by username), the topic's places at which a meeting gets its link at once (see placesReadyOf). */
  placesReady: Record<string, Place[]>;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
// Local dates span at most UTC−12…UTC+14 around the same UTC date.
const ZONE_SLACK_MS = 2 * DAY_MS;

/**
 * `POST /calculate-schedule`: the host's free slots on each local date of the participant's range.
 * Public; when a key is sent, the topic must belong to the key's account.
 *
 * Schedules are cached (see cache.ts): computed for the start of the current
 * minute with the window stretched by that minute, then trimmed to the exact `now`, which
 * gives the same slots as computing for `now` itself, since only the notice and window
 * bounds depend on the clock. The host's calendar version is read before the calendar, so
 * an entry can be older than its version says, never newer.
 */
export async function calculateSchedule(
  ctx: Pick<UseCaseContext, 'now' | 'db' | 'reads' | 'scheduleCache'>,
  principal: Principal | null,
  input: CalculateScheduleInput,
): Promise<Schedule> {
  const now = ctx.now();
  // Resolved (and so validated: a bad range is a 400 before the topic is looked up) once.
  const range = resolveScheduleRange({ now, timezone: input.timezone, offset: input.offset, month: input.month, year: input.year });
  const reads = ctx.reads;
  // A host's view reads only that host of the topic; the team view (no username) reads them all.
  const found = await reads.findTopic(principal?.accountUuid ?? null, input.meetingTopic, input.username);
  if (!found) throw new NotFoundError('meeting topic');
  checkTopicTeam(found, input.team);
  // The chosen length is the topic's length for every rule (its cache key follows the rules).
  const topic = topicForDuration(found, input.duration);
  return computeTopicSchedule(ctx, reads, topic, input.username, input.timezone, range, now);
}

/** A meeting left out of its host's busy time: the one being moved must not block its own new time. */
export interface ExcludedMeeting {
  uuid: string;
  hostUuid: string;
  /** A collective meeting's other hosts: it is left out of their calendars too. */
  coHostUuids?: readonly string[] | undefined;
  topicUuid: string;
  start: number;
  end: number;
}

/**
 * The schedule of a topic already found: one host's (`username`), or for a team topic
 * without `username` the team view (see team-schedule.ts), both from the per-host cache.
 * With `exclude`, that meeting does not block (the manage page's "move" calendar).
 */
export async function computeTopicSchedule(
  ctx: Pick<UseCaseContext, 'db' | 'scheduleCache'>,
  reads: FastReads,
  topic: MeetingTopic,
  username: string | undefined,
  timezone: string,
  range: { from: string; to: string },
  now: number,
  exclude?: ExcludedMeeting,
): Promise<Schedule> {
  const rules = slotRulesOf(topic);
  if (isCollective(topic)) return computeCollectiveSchedule(ctx, reads, topic, rules, username, timezone, range, now, exclude);
  if (username === undefined) {
    if (topic.teamUuid === null) throw new ValidationError([{ path: '/username', message: 'is required: only a team topic has a team view' }]);
    return computeTeamSchedule(ctx, reads, topic, rules, timezone, range, now, exclude);
  }
  const host = findTopicHost(topic, username, '/username');
  // A cached view's entry found without an async call and its await (findHostEntry's steps, inline).
  const entry =
    host.calendarVersion === undefined
      ? await findHostEntry(ctx, reads, host, rules, timezone, range, now, exclude)
      : (cachedHostEntry(ctx, host, rules, timezone, range, now, exclude, host.calendarVersion) ??
        (await storeNewEntry(ctx, reads, host, rules, timezone, range, now, host.calendarVersion, exclude)));

  // The host away with a stand-in: their link shows the stand-in's times there, with the stand-in's name.
  if (entry.delegations !== undefined) {
    const standIns = await standInEntries(ctx, reads, [host], [entry], rules, timezone, range, now, exclude);
    if (standIns.entries.length > 0) {
      const hosts = [host, ...standIns.hosts];
      const entries = [entry, ...standIns.entries];
      const ready = entries.map((one) => placesReadyOf(topic.places, one.placeFacts, topic.placeDetails));
      const days = teamScheduleDays(
        entries,
        range,
        ready.map((places) => topic.places.length - places.length),
      );
      const merged: MergedDays = {
        entries,
        calendarVersion: -1,
        computedFor: entry.computedFor,
        readAt: now,
        validUntil: Math.min(...entries.map((one) => one.validUntil)),
        days,
        ...startBounds(days),
      };
      return respondMerged(merged, topic, rules, hosts, ready, host.username, timezone, range, now);
    }
  }
  const earliest = now + rules.minimumNoticeMinutes * MINUTE_MS;
  const latest = now + rules.bookingWindowDays * DAY_MS;
  const untrimmed = entry.firstStart === null || (entry.firstStart >= earliest && entry.lastStart! <= latest);
  const ready = placesReadyOf(topic.places, entry.placeFacts, topic.placeDetails);
  // The response echoes the zone as the caller spelled it; entries are shared across spellings.
  // The topic's places may have changed under the same entry: the ready places are compared too.
  const cached = entry.response as Schedule | undefined;
  if (untrimmed && cached && cached.timezone === timezone && samePlaces(cached.placesReady[host.username]!, ready)) return cached;
  const days = untrimmed
    ? entry.days
    : entry.days.map((day, d) => {
        const starts = entry.starts[d]!;
        return { date: day.date, slots: day.slots.filter((_, i) => starts[i]! >= earliest && starts[i]! <= latest) };
      });
  const schedule: Schedule = {
    username: host.username,
    meetingTopic: topic.uuid,
    team: topic.teamUuid,
    timezone,
    durationMinutes: topic.durationMinutes,
    from: range.from,
    to: range.to,
    days,
    placesReady: { [host.username]: ready },
  };
  if (untrimmed) entry.response = schedule;
  return schedule;
}

function samePlaces(a: readonly Place[], b: readonly Place[]): boolean {
  return a.length === b.length && a.every((place, i) => place === b[i]);
}

/** The host's entry for this range: from the cache while the host's calendar version and the minute hold, else computed. */
export async function findHostEntry(
  ctx: Pick<UseCaseContext, 'scheduleCache'>,
  reads: FastReads,
  host: TopicHost,
  rules: SlotRules,
  timezone: string,
  range: { from: string; to: string },
  now: number,
  exclude?: ExcludedMeeting,
): Promise<HostEntry> {
  const calendarVersion = host.calendarVersion ?? (await reads.findCalendarVersion(host.uuid));
  if (calendarVersion === undefined) throw new NotFoundError('host');
  return (
    cachedHostEntry(ctx, host, rules, timezone, range, now, exclude, calendarVersion) ?? storeNewEntry(ctx, reads, host, rules, timezone, range, now, calendarVersion, exclude)
  );
}

/** The host's cached entry, if it may still be served at this calendar version. */
function cachedHostEntry(
  ctx: Pick<UseCaseContext, 'scheduleCache'>,
  host: TopicHost,
  rules: SlotRules,
  timezone: string,
  range: { from: string; to: string },
  now: number,
  exclude: ExcludedMeeting | undefined,
  calendarVersion: number,
): HostEntry | undefined {
  return servableEntry(ctx, ctx.scheduleCache.hostKey(host, rules, timezone, range, excludedFor(host, exclude)), calendarVersion, now);
}

/** The host's entry computed anew (after cachedHostEntry found none) and stored. */
async function storeNewEntry(
  ctx: Pick<UseCaseContext, 'scheduleCache'>,
  reads: FastReads,
  host: TopicHost,
  rules: SlotRules,
  timezone: string,
  range: { from: string; to: string },
  now: number,
  calendarVersion: number,
  exclude: ExcludedMeeting | undefined,
): Promise<HostEntry> {
  const excluded = excludedFor(host, exclude);
  const entry = await computeEntry(reads, host, rules, timezone, range, now, calendarVersion, excluded);
  ctx.scheduleCache.set(ctx.scheduleCache.hostKey(host, rules, timezone, range, excluded), entry);
  return entry;
}

/** The meeting being moved, if it is this host's: only then is it left out of their calendar. */
function excludedFor(host: TopicHost, exclude: ExcludedMeeting | undefined): ExcludedMeeting | undefined {
  return exclude !== undefined && (exclude.hostUuid === host.uuid || (exclude.coHostUuids ?? []).includes(host.uuid)) ? exclude : undefined;
}

/** The cached entry under `key` if it may still be served: same calendar version, read before `now`, not expired. */
function servableEntry(ctx: Pick<UseCaseContext, 'scheduleCache'>, key: string, calendarVersion: number, now: number): HostEntry | undefined {
  const entry = ctx.scheduleCache.get(key) as HostEntry | undefined;
  if (!entry || entry.calendarVersion !== calendarVersion || now < entry.readAt || now >= entry.validUntil || entry.topicStarts === undefined || entry.starts === undefined)
    return undefined;
  return entry;
}

/**
 * `reads` with the calendars of the team's hosts whose entries must be computed loaded up
 * front, two statements for all of them, instead of two per host. Only worth it where a
 * statement is a round trip (PostgreSQL; the SQLite reads loop in process either way), and
 * only for the exact window computeEntry asks for; anything else goes to `reads`.
 */
async function preloadCalendars(
  ctx: Pick<UseCaseContext, 'db' | 'scheduleCache'>,
  reads: FastReads,
  hosts: readonly TopicHost[],
  rules: SlotRules,
  timezone: string,
  range: { from: string; to: string },
  now: number,
  exclude: ExcludedMeeting | undefined,
): Promise<FastReads> {
  const stale = hosts.filter((host) => {
    if (host.calendarVersion === undefined) return false;
    return servableEntry(ctx, ctx.scheduleCache.hostKey(host, rules, timezone, range, excludedFor(host, exclude)), host.calendarVersion, now) === undefined;
  });
  if (stale.length < 2) return reads;
  const uuids = stale.map((host) => host.uuid);
  const { fromInstant, toInstant } = calendarSpan(range);
  const window = busyWindowOf(rules, fromInstant, toInstant);
  const [hours, busy, facts, limits] = await Promise.all([
    reads.findAvailabilityJsonOfHosts(uuids),
    reads.findBusySpansOfHosts(uuids, window.from, window.to, now),
    reads.findPlaceFactsOfHosts(uuids),
    reads.findHostLimitsOfHosts(uuids),
  ]);
  return {
    ...reads,
    findHostLimits: async (userUuid) => limits.get(userUuid) ?? reads.findHostLimits(userUuid),
    findPlaceFactsOfHosts: async (userUuids) =>
      userUuids.every((uuid) => facts.has(uuid)) ? new Map(userUuids.map((uuid) => [uuid, facts.get(uuid)!])) : reads.findPlaceFactsOfHosts(userUuids),
    findAvailabilityJson: async (userUuid) => (hours.has(userUuid) ? hours.get(userUuid) : reads.findAvailabilityJson(userUuid)),
    findBusySpans: async (hostUuid, from, to, at) => {
      const preloaded = from === window.from && to === window.to && at === now ? busy.get(hostUuid) : undefined;
      return preloaded ?? reads.findBusySpans(hostUuid, from, to, at);
    },
  };
}

/** The instants a host's entry reads the calendar between: whole UTC ISO weeks around the range, with room for any zone. */
function calendarSpan(range: { from: string; to: string }): { fromInstant: number; toInstant: number } {
  // Whole UTC ISO weeks: the team view counts the host's meetings of the topic per week.
  return {
    fromInstant: isoWeekStartUtc(Date.parse(`${range.from}T00:00:00Z`) - ZONE_SLACK_MS),
    toInstant: isoWeekStartUtc(Date.parse(`${range.to}T00:00:00Z`) + DAY_MS + ZONE_SLACK_MS) + 7 * DAY_MS,
  };
}

/** Where busy time is read for a calendar between two instants: other topics' buffers are at most the topic limit, so this sees every blocker. */
function busyWindowOf(rules: SlotRules, fromInstant: number, toInstant: number): { from: number; to: number } {
  const window = computeBusyWindow(rules, fromInstant, toInstant, TOPIC_LIMITS.bufferMinutes[1]);
  // A view's span is whole weeks with a margin (calendarSpan): a monthly limit needs whole months.
  if ((rules.monthlyLimit ?? null) === null) return window;
  const reach = periodReachDays(rules) * DAY_MS;
  return { from: Math.min(window.from, fromInstant - reach), to: Math.max(window.to, toInstant + reach) };
}

/**
 * The span a booking's check loads the host's calendar for, around the starts it checks:
 * wide enough that the weekly and monthly limits (the topic's and the host's own) count
 * every meeting of each period a start falls in. Given the hosts' own limits (as locked),
 * a check with no weekly or monthly limit anywhere reads just the starts' busy window
 * (loadHostCalendar widens the span by it: buffers, and each start's day for the daily
 * limits): 5 days of meetings instead of 22, which the booking read, mapped and judged for
 * nothing (bench/booking-floor.ts, issue 24).
 */
export function bookingCalendarSpan(
  rules: SlotRules,
  fromInstant: number,
  toInstant: number,
  hostLimits?: readonly (HostLimits | null | undefined)[],
): { from: number; to: number } {
  const periods =
    hostLimits === undefined || (rules.weeklyLimit ?? null) !== null || (rules.monthlyLimit ?? null) !== null || hostLimits.some((limits) => (limits?.weekly ?? null) !== null);
  const reach = periods ? periodReachDays(rules) * DAY_MS : 0;
  return { from: fromInstant - reach, to: toInstant + reach };
}

async function computeEntry(
  reads: FastReads,
  host: TopicHost,
  rules: SlotRules,
  participantTimezone: string,
  range: { from: string; to: string },
  now: number,
  calendarVersion: number,
  exclude: ExcludedMeeting | undefined,
): Promise<HostEntry> {
  const computedFor = Math.floor(now / MINUTE_MS) * MINUTE_MS;
  const { fromInstant, toInstant } = calendarSpan(range);
  const [loaded, facts, delegations] = await Promise.all([
    loadHostCalendar(reads, host, rules, fromInstant, toInstant, now),
    reads.findPlaceFactsOfHosts([host.uuid]),
    reads.findDelegations(host.uuid, fromInstant, toInstant),
  ]);
  const calendar = withoutMeeting(loaded, exclude);
  // A minute later the window reaches a minute further: compute that far, trim per request.
  const stretched = { ...rules, bookingWindowDays: rules.bookingWindowDays + MINUTE_MS / DAY_MS };
  // Seats: a slot stays offered until it is full, and says how many seats are left.
  const { days, starts } = computeSeatedSlotsWithStarts(calendar, stretched, { now: computedFor, participantTimezone, from: range.from, to: range.to });
  const { firstStart, lastStart } = startBounds(days);
  // A hold stops blocking without any write: the entry must not outlive the first to end.
  const holdsEnd = calendar.busy.map((meeting) => meeting.holdExpiresAt ?? Infinity);
  return {
    calendarVersion,
    computedFor,
    readAt: now,
    validUntil: Math.min(computedFor + MINUTE_MS, ...holdsEnd),
    days,
    starts,
    firstStart,
    lastStart,
    topicStarts: calendar.busy.filter((meeting) => meeting.topicUuid === rules.topicUuid).map((meeting) => meeting.start),
    placeFacts: facts.get(host.uuid) ?? { connected: [], details: {} },
    ...(delegations.length > 0 ? { delegations } : {}),
  };
}

/**
 * The stand-ins of the hosts' time off (issue 41): for each delegation whose stand-in is no
 * host of the topic (a host is offered whenever free anyway), the stand-in's own entry for
 * the topic, kept to the starts inside that time off, each slot naming the stand-in. Merged
 * with the hosts' entries, the round robin offers the stand-in where the host is away.
 */
async function standInEntries(
  ctx: Pick<UseCaseContext, 'scheduleCache'>,
  reads: FastReads,
  hosts: readonly TopicHost[],
  entries: readonly HostEntry[],
  rules: SlotRules,
  timezone: string,
  range: { from: string; to: string },
  now: number,
  exclude: ExcludedMeeting | undefined,
): Promise<{ hosts: TopicHost[]; entries: HostEntry[] }> {
  const spans = new Map<string, { host: TopicHost; spans: { start: number; end: number }[] }>();
  const hostUuids = new Set(hosts.map((host) => host.uuid));
  for (const entry of entries) {
    for (const delegation of entry.delegations ?? []) {
      if (hostUuids.has(delegation.delegateUuid)) continue;
      const found = spans.get(delegation.delegateUuid) ?? { host: { uuid: delegation.delegateUuid, username: delegation.delegateUsername }, spans: [] };
      found.spans.push({ start: delegation.start, end: delegation.end });
      spans.set(delegation.delegateUuid, found);
    }
  }
  const standIns: TopicHost[] = [];
  const standInEntries: HostEntry[] = [];
  for (const { host, spans: away } of spans.values()) {
    const entry = await findHostEntry(ctx, reads, host, rules, timezone, range, now, exclude).catch((error: unknown) => {
      if (error instanceof NotFoundError) return null;
      throw error;
    });
    if (entry === null) continue;
    const inside = (start: number) => away.some((span) => span.start <= start && start < span.end);
    const starts = entry.starts.map((day) => day.filter(inside));
    const days = entry.days.map((day, d) => ({ date: day.date, slots: day.slots.filter((_, i) => inside(entry.starts[d]![i]!)) }));
    standIns.push(host);
    standInEntries.push({ ...entry, days, starts, team: undefined, response: undefined, ...startBounds(days) });
  }
  return { hosts: standIns, entries: standInEntries };
}

/**
 * The calendar without the meeting being moved (matched by its span and topic: a host
 * never has two meetings over the same span but the seat holders of a group meeting, any one
 * of whom stands for the others, and external busy time has a topic of its own).
 */
export function withoutMeeting(calendar: HostCalendar, exclude: Omit<ExcludedMeeting, 'uuid' | 'hostUuid'> | undefined): HostCalendar {
  if (!exclude) return calendar;
  const index = calendar.busy.findIndex((busy) => busy.start === exclude.start && busy.end === exclude.end && busy.topicUuid === exclude.topicUuid);
  if (index === -1) return calendar;
  return { ...calendar, busy: calendar.busy.filter((_, i) => i !== index) };
}

/**
 * The team view: every start at which at least one host is free, each naming the host it
 * would be booked with. One entry per host from the shared cache; the merged days are
 * kept while every host's entry is the same object (so unchanged calendars merge once).
 */
async function computeTeamSchedule(
  ctx: Pick<UseCaseContext, 'db' | 'scheduleCache'>,
  reads: FastReads,
  topic: MeetingTopic,
  rules: SlotRules,
  timezone: string,
  range: { from: string; to: string },
  now: number,
  exclude: ExcludedMeeting | undefined,
): Promise<Schedule> {
  const loaded = await preloadCalendars(ctx, reads, topic.hosts, rules, timezone, range, now, exclude);
  const hostEntries = await Promise.all(topic.hosts.map((host) => findHostEntry(ctx, loaded, host, rules, timezone, range, now, exclude)));
  // Where a host is away with a stand-in, the stand-in takes their place in the round robin.
  const standIns = await standInEntries(ctx, reads, topic.hosts, hostEntries, rules, timezone, range, now, exclude);
  const hosts = [...topic.hosts, ...standIns.hosts];
  const entries = [...hostEntries, ...standIns.entries];
  // Round-robin weights by host (a host not named weighs 1): part of the key, so a change of weights re-merges.
  const weights = hosts.map((host) => topic.hostWeights[host.username] ?? 1);
  const parts: unknown[] = ['team', rules, hosts.map((host) => host.uuid), weights, canonicalTimeZone(timezone) ?? timezone, range.from, range.to];
  if (exclude) parts.push(`without ${exclude.uuid} at ${exclude.start}`);
  const key = JSON.stringify(parts);
  const ready = entries.map((entry) => placesReadyOf(topic.places, entry.placeFacts, topic.placeDetails));
  // Hosts whose places are all ready go first in the round robin (see teamScheduleDays).
  const unready = ready.map((places) => topic.places.length - places.length);
  const merged = findMergedDays(ctx, key, entries, now, () => teamScheduleDays(entries, range, unready, weights), unready);
  return respondMerged(merged, topic, rules, hosts, ready, null, timezone, range, now);
}

/**
 * A collective topic's schedule: the starts at which every host of the topic is free, the
 * same in the team view (`username` undefined: each slot names the topic's first host) and
 * in each host's own view (each slot names that host). Built from each host's entry of the
 * per-host cache, each served only while that host's calendar version holds: a booking,
 * cancellation or change of any one host's time bumps that host's version (on any
 * instance, in the database), so the next view recomputes that host's entry and the
 * intersection never offers a start one host has lost.
 */
async function computeCollectiveSchedule(
  ctx: Pick<UseCaseContext, 'db' | 'scheduleCache'>,
  reads: FastReads,
  topic: MeetingTopic,
  rules: SlotRules,
  username: string | undefined,
  timezone: string,
  range: { from: string; to: string },
  now: number,
  exclude: ExcludedMeeting | undefined,
): Promise<Schedule> {
  // A host's view found the topic with that host only: the intersection needs all of them.
  if (username !== undefined) findTopicHost(topic, username, '/username');
  const full = username === undefined ? topic : await reads.findTopic(topic.accountUuid, topic.uuid);
  if (!full) throw new NotFoundError('meeting topic');
  const hosts = full.hosts;
  const loaded = await preloadCalendars(ctx, reads, hosts, rules, timezone, range, now, exclude);
  const entries = await Promise.all(hosts.map((host) => findHostEntry(ctx, loaded, host, rules, timezone, range, now, exclude)));
  const named = username ?? hosts[0]?.username ?? '';
  const parts: unknown[] = ['collective', rules, hosts.map((host) => host.uuid), named, canonicalTimeZone(timezone) ?? timezone, range.from, range.to];
  if (exclude) parts.push(`without ${exclude.uuid} at ${exclude.start}`);
  const key = JSON.stringify(parts);
  // Kept while every host's entry is the same object: an entry recomputed for a new calendar version re-intersects.
  const merged = findMergedDays(ctx, key, entries, now, () => intersectHostDays(entries, named, datesOf(range)));
  const ready = entries.map((entry) => placesReadyOf(full.places, entry.placeFacts, full.placeDetails));
  return respondMerged(merged, topic, rules, hosts, ready, username ?? null, timezone, range, now);
}

type MergedDays = CachedSchedule & { entries: HostEntry[]; unready?: number[] };

/**
 * The days merged from several hosts' entries (the team view, a collective topic), kept under
 * `key` while every host's entry is the same object (an entry recomputed for a new calendar
 * version merges again) and, for the team view, while the hosts' readiness ranks hold.
 */
function findMergedDays(ctx: Pick<UseCaseContext, 'scheduleCache'>, key: string, entries: HostEntry[], now: number, merge: () => DaySlots[], unready?: number[]): MergedDays {
  const kept = ctx.scheduleCache.get(key) as MergedDays | undefined;
  const stale =
    !kept ||
    kept.entries.length !== entries.length ||
    kept.entries.some((entry, i) => entry !== entries[i]) ||
    (unready !== undefined && (kept.unready === undefined || kept.unready.some((rank, i) => rank !== unready[i])));
  if (!stale) return kept;
  const days = merge();
  const { firstStart, lastStart } = startBounds(days);
  const merged: MergedDays = {
    entries,
    calendarVersion: -1,
    computedFor: entries[0]?.computedFor ?? now,
    readAt: now,
    validUntil: Math.min(Infinity, ...entries.map((entry) => entry.validUntil)),
    days,
    firstStart,
    lastStart,
  };
  if (unready !== undefined) merged.unready = unready;
  ctx.scheduleCache.set(key, merged);
  return merged;
}

/**
 * The schedule of merged days: trimmed to the notice and window of `now`, and the answer kept
 * on the cache entry while nothing needed trimming and the hosts' ready places are the same.
 */
function respondMerged(
  merged: MergedDays,
  topic: MeetingTopic,
  rules: SlotRules,
  hosts: readonly TopicHost[],
  ready: readonly Place[][],
  username: string | null,
  timezone: string,
  range: { from: string; to: string },
  now: number,
): Schedule {
  const earliest = now + rules.minimumNoticeMinutes * MINUTE_MS;
  const latest = now + rules.bookingWindowDays * DAY_MS;
  const untrimmed = merged.firstStart === null || (merged.firstStart >= earliest && merged.lastStart! <= latest);
  const placesReady = Object.fromEntries(hosts.map((host, i) => [host.username, ready[i]!]));
  const cached = merged.response as Schedule | undefined;
  if (untrimmed && cached && cached.timezone === timezone && hosts.every((host, i) => samePlaces(cached.placesReady[host.username] ?? [], ready[i]!))) return cached;
  const schedule: Schedule = {
    username,
    meetingTopic: topic.uuid,
    team: topic.teamUuid,
    timezone,
    durationMinutes: topic.durationMinutes,
    from: range.from,
    to: range.to,
    days: untrimmed ? merged.days : trimDays(merged.days, earliest, latest),
    placesReady,
  };
  if (untrimmed) merged.response = schedule;
  return schedule;
}

function datesOf(range: { from: string; to: string }): string[] {
  const dates: string[] = [];
  for (let day = Date.parse(`${range.from}T00:00:00Z`); day <= Date.parse(`${range.to}T00:00:00Z`); day += DAY_MS) dates.push(new Date(day).toISOString().slice(0, 10));
  return dates;
}

function trimDays(days: DaySlots[], earliest: number, latest: number): DaySlots[] {
  return days.map((day) => ({
    date: day.date,
    slots: day.slots.filter((slot) => {
      const start = parseInstant(slot.start);
      return start >= earliest && start <= latest;
    }),
  }));
}

/** Rules by topic object: the prepared reads hand out one (frozen) object per topic version. */
const rulesOfTopic = new WeakMap<MeetingTopic, SlotRules>();

export function slotRulesOf(topic: MeetingTopic): SlotRules {
  let rules = rulesOfTopic.get(topic);
  if (rules === undefined) {
    rules = Object.freeze(pickSlotRules(topic));
    rulesOfTopic.set(topic, rules);
  }
  return rules;
}

/**
 * The host's hours and everything that could block a slot between the two instants. The
 * calculation (prepared reads) and the booking check (the booking's transaction, through
 * createKyselyReads) both load a calendar here, so they see the same busy time.
 */
export async function loadHostCalendar(reads: FastReads, host: TopicHost, rules: SlotRules, fromInstant: number, toInstant: number, now: number): Promise<HostCalendar> {
  const window = busyWindowOf(rules, fromInstant, toInstant);
  const schedule = scheduleOfHost(rules, host);
  const [availabilityJson, busy, limits, timeOff] = await Promise.all([
    // A schedule gone meanwhile (deleting one a topic uses is refused) falls back to the default hours.
    schedule === null ? reads.findAvailabilityJson(host.uuid) : reads.findScheduleJson(schedule, host.uuid).then((json) => json ?? reads.findAvailabilityJson(host.uuid)),
    // Holds are read as of `now`: one that ended earlier this minute no longer blocks.
    reads.findBusySpans(host.uuid, window.from, window.to, now),
    reads.findHostLimits(host.uuid),
    reads.findTimeOffSpans(host.uuid, window.from, window.to),
  ]);
  if (availabilityJson === undefined) throw new NotFoundError('host');
  const hostLimits = limits && (limits.daily !== null || limits.weekly !== null) ? limits : null;
  const calendar: HostCalendar = { username: host.username, availability: JSON.parse(availabilityJson) as Availability, busy, limits: hostLimits };
  if (timeOff.length > 0) calendar.timeOff = timeOff;
  return calendar;
}

/**
 * The schedule whose hours the topic uses for this host: a team topic's `hostSchedules`
 * entry, else an individual topic's `schedule`; null: the host's default hours. An
 * individual topic's schedule belongs to one of its hosts: the others keep their defaults
 * (findScheduleJson finds it only for its owner).
 */
export function scheduleOfHost(rules: Pick<SlotRules, 'schedule' | 'hostSchedules'>, host: Pick<TopicHost, 'username'>): string | null {
  return rules.hostSchedules?.[host.username] ?? rules.schedule ?? null;
}

/**
 * The first and last slot start of a schedule (days in order, slots in order within a day),
 * null when it has none. A scan from both ends: collecting every start to read two of them
 * was ~5% of a cold month view.
 */
function startBounds(days: readonly { slots: readonly { start: string }[] }[]): { firstStart: number | null; lastStart: number | null } {
  const first = days.find((day) => day.slots.length > 0);
  const last = days.findLast((day) => day.slots.length > 0);
  if (!first || !last) return { firstStart: null, lastStart: null };
  return { firstStart: parseInstant(first.slots[0]!.start), lastStart: parseInstant(last.slots[last.slots.length - 1]!.start) };
}
