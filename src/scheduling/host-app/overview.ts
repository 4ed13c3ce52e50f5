import { NotFoundError } from '../../domain/errors.js';
import { statusAt, type Meeting } from '../../domain/meeting.js';
import type { MeetingTopic } from '../../domain/meeting-topic.js';
import type { Team } from '../../domain/team.js';
import type { Member } from '../../domain/user.js';
import { findMeeting } from '../../db/repositories/meetings.js';
import type { Schedule } from '../booking/calculate.js';
import { scheduleForMeetingMove } from '../booking/reschedule.js';
import type { Principal, UseCaseContext } from '../context.js';
import { listMeetingTopics } from '../topics/meeting-topics.js';
import { listMeetings, requireMeetingManager } from '../meetings/meetings.js';
import { listTeamMembers, listTeams } from '../account/teams.js';

/** What the web app's "Upcoming" shows: live meetings, soonest first. */
const UPCOMING_STATUSES = ['confirmed', 'pending_payment', 'pending_approval'] as const;

export interface UpcomingMeetings {
  meetings: Meeting[];
  /** The name of each meeting's topic, by uuid (a deleted topic is missing). */
  topicNames: ReadonlyMap<string, string>;
}

/**
 * The signed-in host's coming meetings (not yet ended), next first, at most `limit`: the same
 * list `GET /meetings?username=…` gives the host's key.
 */
export async function listUpcomingOfHost(ctx: Pick<UseCaseContext, 'now' | 'db'>, principal: Principal, limit = 100): Promise<UpcomingMeetings> {
  const from = new Date(ctx.now()).toISOString();
  const page = await listMeetings(ctx, principal, { username: principal.username, from, status: [...UPCOMING_STATUSES], limit });
  const topics = await listMeetingTopics(ctx, principal, {});
  return { meetings: page.meetings, topicNames: new Map(topics.map((topic: MeetingTopic) => [topic.uuid, topic.name])) };
}

/**
 * The free slots a meeting may move to, one week (`offset` days from today, a multiple of 7)
 * in `timezone`, for whoever may move it (its host, or an admin of its team or of the host's
 * teams): see scheduleForMeetingMove.
 */
export async function scheduleForMove(
  ctx: Pick<UseCaseContext, 'now' | 'db' | 'reads' | 'scheduleCache'>,
  principal: Principal,
  meetingUuid: string,
  input: { timezone: string; offset: number },
): Promise<{ meeting: Meeting; schedule: Schedule }> {
  const now = ctx.now();
  const found = await findMeeting(ctx.db, principal.accountUuid, meetingUuid);
  if (!found) throw new NotFoundError('meeting');
  await requireMeetingManager(ctx.db, principal, found);
  const meeting = { ...found, status: statusAt(found, now) };
  return { meeting, schedule: await scheduleForMeetingMove(ctx, meeting, input, now) };
}

export interface TeamOverview {
  team: Team;
  members: Member[];
  topics: MeetingTopic[];
  /** Every member's coming meetings (any topic), soonest first. */
  upcoming: UpcomingMeetings;
}

/**
 * What a team admin's page shows: the team's members, its topics, and each member's coming
 * meetings. Only for an admin of the team (another account's team is "not found", a plain
 * member is refused), as `GET /teams/{uuid}/users` is.
 */
export async function getTeamOverview(ctx: Pick<UseCaseContext, 'now' | 'db'>, principal: Principal, teamUuid: string, perMember = 50): Promise<TeamOverview> {
  const members = await listTeamMembers(ctx, principal, teamUuid);
  const team = (await listTeams(ctx, principal)).find((candidate) => candidate.uuid === teamUuid);
  if (!team) throw new NotFoundError('team');
  const from = new Date(ctx.now()).toISOString();
  const pages = await Promise.all(members.map((member) => listMeetings(ctx, principal, { username: member.username, from, status: [...UPCOMING_STATUSES], limit: perMember })));
  const meetings = pages.flatMap((page) => page.meetings).sort((a, b) => a.start - b.start || a.uuid.localeCompare(b.uuid));
  const all = await listMeetingTopics(ctx, principal, {});
  return {
    team,
    members,
    topics: all.filter((topic) => topic.teamUuid === team.uuid),
    upcoming: { meetings, topicNames: new Map(all.map((topic) => [topic.uuid, topic.name])) },
  };
}
