import { ForbiddenError, NotFoundError } from '../../domain/errors.js';
import { describeExclusion } from '../../i18n/exclusion-text.js';
import type { Lang } from '../../domain/meeting.js';
import { checkTopicTeam, isCollective, topicForDuration, type MeetingTopic, type TopicHost } from '../../domain/meeting-topic.js';
import { explainSeat } from '../../domain/seats.js';
import { formatInstant, type Exclusion } from '../../domain/slots.js';
import type { FastReads } from '../../db/fast-reads.js';
import { findAccount } from '../../db/repositories/accounts.js';
import { findNamedBusySpans } from '../../db/repositories/busy-time.js';
import { isListedHostOfTopic } from '../../db/repositories/meeting-topics.js';
import { findUserByUsername, findUserIdsManagedBy } from '../../db/repositories/users.js';
import { bookingCalendarSpan, loadHostCalendar, scheduleOfHost, slotRulesOf } from './calculate.js';
import type { Principal, UseCaseContext } from '../context.js';

export interface ExplainScheduleInput {
  username: string;
  meetingTopic: string;
  /** A UTC instant (validated as one by the caller's schema). */
  start: string;
  team?: string | undefined;
  /** One of the topic's `durations`; default its `durationMinutes`. */
  duration?: number | undefined;
}

/**
 * One reason, as the API gives it: the engine's exclusion with its instants as UTC text, a
 * sentence, and for OUTSIDE_HOURS the schedule whose hours apply ("default": the host's own).
 */
export type ExplainedReason = { code: Exclusion['code']; detail: string } & Record<string, unknown>;

export interface ScheduleExplanation {
  start: string;
  end: string;
  offered: boolean;
  reasons: ExplainedReason[];
  /** The host's zone: the sentences give times on the host's clock. */
  timezone: string;
}

/**
 * `POST /explain-schedule`: every reason the engine leaves `start` out for this host and
 * topic (its own trace: seats.ts explainSeat, the rules calculate-schedule and booking use),
 * `offered: true` with no reasons exactly when calculate-schedule offers it now.
 *
 * Who may ask: the host, an admin of one of the host's teams, or for a team topic any key
 * of the account. Only the first two see which meeting is in the way: for anyone else a
 * MEETING or BUFFER reason keeps its span but `meetingUuid` is null (a plain member sees
 * their own meetings only). Remote calendars give spans only: termin never stores titles.
 * A deactivated host is HOST_INACTIVE alone, and a username that is no host of the topic
 * "not found" (explainDeactivatedHost).
 *
 * Reads as a booking check does (bookingCalendarSpan around the one start): the topic with
 * that host, their hours, their busy time with meeting uuids, their limits, plus the
 * caller's managed hosts — no more than one day's month-view computation reads.
 */
export async function explainSchedule(
  ctx: Pick<UseCaseContext, 'now' | 'db' | 'reads'>,
  principal: Principal,
  input: ExplainScheduleInput,
  lang: Lang = 'en',
): Promise<ScheduleExplanation> {
  const now = ctx.now();
  const start = Date.parse(input.start);
  const found = await ctx.reads.findTopic(principal.accountUuid, input.meetingTopic, input.username);
  if (!found) throw new NotFoundError('meeting topic');
  checkTopicTeam(found, input.team);
  // Explained for the length asked about: a 60-minute meeting may not fit where a 30-minute one does.
  const topic = topicForDuration(found, input.duration);
  const host: TopicHost | undefined = topic.hosts.find((candidate) => candidate.username === input.username);
  if (!host) return explainDeactivatedHost(ctx, principal, topic, input, start, lang);
  const managed = await findUserIdsManagedBy(ctx.db, principal.userUuid);
  const managesHost = (uuid: string) => uuid === principal.userUuid || managed.has(uuid);
  const manages = managesHost(host.uuid);
  if (!manages && topic.teamUuid === null) throw new ForbiddenError(WHO_MAY_ASK);
  const rules = slotRulesOf(topic);
  const end = start + rules.durationMinutes * 60_000;
  // The booking check's span: wide enough for every limit's period around the start.
  const span = bookingCalendarSpan(rules, start, end);
  const reads: FastReads = { ...ctx.reads, findBusySpans: (hostUuid, from, to, at) => findNamedBusySpans(ctx.db, hostUuid, from, to, at) };
  const calendar = await loadHostCalendar(reads, host, rules, span.from, span.to, now);
  const exclusions = explainSeat(calendar, rules, now, start);
  const zone = calendar.availability.timezone;
  const schedule = scheduleOfHost(rules, host) ?? 'default';
  const reasons = exclusions.map((exclusion) => toReason(manages ? exclusion : hideMeeting(exclusion), zone, schedule, lang));
  if (isCollective(topic)) {
    // A collective topic offers a start only when every host is free (intersectHostDays), so
    // its explanation is every host's: each reason names the host it is about.
    for (const reason of reasons) reason.username = host.username;
    // Found with the named host only (as a host's view finds it): the co-hosts need the whole topic.
    const full = await ctx.reads.findTopic(topic.accountUuid, topic.uuid);
    for (const coHost of full?.hosts ?? []) {
      if (coHost.uuid === host.uuid) continue;
      const theirs = await loadHostCalendar(reads, coHost, rules, span.from, span.to, now);
      const theirZone = theirs.availability.timezone;
      const theirSchedule = scheduleOfHost(rules, coHost) ?? 'default';
      for (const exclusion of explainSeat(theirs, rules, now, start)) {
        const reason = toReason(managesHost(coHost.uuid) ? exclusion : hideMeeting(exclusion), theirZone, theirSchedule, lang);
        reasons.push({ ...reason, detail: `${coHost.username}: ${reason.detail}`, username: coHost.username });
      }
    }
  }
  return {
    start: formatInstant(start),
    end: formatInstant(end),
    offered: reasons.length === 0,
    reasons,
    timezone: zone,
  };
}

const WHO_MAY_ASK = "Only the host, an admin of one of the host's teams, or (for a team topic) any key of the account may ask why a time is not offered";

/**
 * A username the topic's active hosts do not include. A deactivated user still listed as a host
 * of this topic (an individual topic keeps its hosts when they leave their last team) is
 * HOST_INACTIVE and nothing else: their meetings and calendars are nobody's business any more.
 * Anyone else, a deactivated user who is not a host of this topic included, is "not found", as
 * an unknown username is: the answer never says who else in the account was deactivated, nor
 * when their meetings were (issue 38). A deactivated host belongs to no team, so besides any key
 * for a team topic, the account's owner may ask.
 */
async function explainDeactivatedHost(
  ctx: Pick<UseCaseContext, 'db'>,
  principal: Principal,
  topic: MeetingTopic,
  input: ExplainScheduleInput,
  start: number,
  lang: Lang,
): Promise<ScheduleExplanation> {
  const user = await findUserByUsername(ctx.db, principal.accountUuid, input.username);
  if (!user || user.deactivatedAt === null || !(await isListedHostOfTopic(ctx.db, topic.uuid, user.uuid))) {
    throw new NotFoundError(`host "${input.username}" of this meeting topic (/username)`);
  }
  if (topic.teamUuid === null && (await findAccount(ctx.db, principal.accountUuid))?.ownerUuid !== principal.userUuid) throw new ForbiddenError(WHO_MAY_ASK);
  const end = start + slotRulesOf(topic).durationMinutes * 60_000;
  return {
    start: formatInstant(start),
    end: formatInstant(end),
    offered: false,
    reasons: [toReason({ code: 'HOST_INACTIVE' }, user.timezone, 'default', lang)],
    timezone: user.timezone,
  };
}

/** A meeting of someone else's the caller may not look up: its span stays (calculate-schedule shows it busy anyway), its uuid goes. */
function hideMeeting(exclusion: Exclusion): Exclusion {
  return exclusion.code === 'MEETING' || exclusion.code === 'BUFFER' ? { ...exclusion, meetingUuid: null } : exclusion;
}

const INSTANT_FIELDS = new Set(['earliest', 'latest', 'previous', 'next', 'start', 'end', 'from', 'to']);

function toReason(exclusion: Exclusion, zone: string, schedule: string, lang: Lang): ExplainedReason {
  const reason: ExplainedReason = { code: exclusion.code, detail: describeExclusion(exclusion, zone, lang) };
  if (exclusion.code === 'OUTSIDE_HOURS') reason.schedule = schedule;
  for (const [key, value] of Object.entries(exclusion)) {
    if (key === 'code') continue;
    reason[key] = INSTANT_FIELDS.has(key) && typeof value === 'number' ? formatInstant(value) : value;
  }
  return reason;
}
