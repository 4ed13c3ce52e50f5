import { ForbiddenError, NotFoundError, SlugTakenError, ValidationError, type FieldError } from '../../domain/errors.js';
import { missingReminderSettings } from '../meetings/reminders.js';
import { validateReminders } from '../../domain/reminders.js';
import {
  checkAssignment,
  checkHostWeights,
  resolveTopicSettings,
  validateTopicSettings,
  type MeetingTopic,
  type TopicHost,
  type TopicSettings,
  type TopicSettingsInput,
} from '../../domain/meeting-topic.js';
import type { DbOrTrx, Trx } from '../../db/database.js';
import { findAccount } from '../../db/repositories/accounts.js';
import { findTopic, findTopicsBySlug, insertTopic, listTopics, softDeleteTopic, updateTopic, type TopicFilter } from '../../db/repositories/meeting-topics.js';
import { findMembership, findTeam } from '../../db/repositories/teams.js';
import { findActiveUserByUsername, findActiveUsersByUsernames, findUserIdsManagedBy, selectTeamMembers } from '../../db/repositories/users.js';
import { bumpHostsOfTopic, lockHost } from '../../db/repositories/meetings.js';
import { findScheduleOwners } from '../../db/repositories/schedules.js';
import { inTransaction } from '../../db/transaction.js';
import { actorOf, recordAuditEvent } from '../audit/record-audit.js';
import { changedFields } from '../../domain/audit.js';
import { newId } from '../../ids.js';
import type { Principal, UseCaseContext } from '../context.js';

export interface CreateTopicInput extends TopicSettingsInput {
  team?: string | null | undefined;
  hosts?: string[] | undefined;
  allTeamMembers?: boolean | undefined;
}

export interface UpdateTopicInput extends TopicSettingsInput {
  hosts?: string[] | undefined;
  allTeamMembers?: boolean | undefined;
}

/**
 * Any user may create an individual topic hosted by themselves; an admin may also name
 * members of the teams they administer as hosts, and create team topics for those teams
 * (hosted by all team members unless `hosts` says otherwise).
 */
export async function createMeetingTopic(ctx: Pick<UseCaseContext, 'now' | 'db' | 'sms'>, principal: Principal, input: CreateTopicInput): Promise<MeetingTopic> {
  return inTransaction(ctx.db, async (trx) => {
    const account = await findAccount(trx, principal.accountUuid);
    if (!account) throw new NotFoundError('account');
    const now = ctx.now();
    const settings = resolveTopicSettings(input, undefined, account.places, () => newId(now));
    const errors = validateTopicSettings(settings, account.places);
    if (input.reminders !== undefined) errors.push(...validateReminders(settings.reminders, missingReminderSettings(ctx)));
    const teamUuid = input.team ?? null;
    if (teamUuid !== null) await requireAdminOfTeam(trx, principal, teamUuid);
    // A team topic without a host list follows the team: members who join later host it too.
    const allTeamMembers = decideAllTeamMembers(teamUuid, input.hosts, input.allTeamMembers ?? (teamUuid !== null && input.hosts === undefined), errors);
    const hosts = await resolveHosts(trx, principal, teamUuid, allTeamMembers ? undefined : input.hosts, errors);
    errors.push(...(await checkScheduleChoice(trx, account.uuid, teamUuid, settings, hosts, { schedule: true, hostSchedules: true })));
    errors.push(
      ...checkHostWeights(
        input.hostWeights,
        teamUuid,
        hosts.map((host) => host.username),
      ),
    );
    errors.push(...checkAssignment(settings, teamUuid));
    if (errors.length > 0) throw new ValidationError(errors);
    await requireFreeSlug(trx, account.uuid, settings.slug, teamUuid, hosts, null);
    const topic: MeetingTopic = {
      ...settings,
      uuid: newId(now),
      accountUuid: account.uuid,
      teamUuid,
      createdBy: principal.userUuid,
      hosts,
      allTeamMembers,
      createdAt: now,
      updatedAt: now,
    };
    await insertTopic(trx, topic);
    await recordAuditEvent(trx, {
      accountUuid: topic.accountUuid,
      action: 'topic.created',
      actor: actorOf(principal),
      target: { type: 'topic', uuid: topic.uuid },
      details: { name: topic.name, teamUuid },
      now,
    });
    return topic;
  });
}

/** Every live topic of the account: any key of the account may book them. */
export async function listMeetingTopics(
  ctx: Pick<UseCaseContext, 'db'>,
  principal: Principal,
  filter: { team?: string | undefined; username?: string | undefined },
): Promise<MeetingTopic[]> {
  const repoFilter: TopicFilter = { teamUuid: filter.team };
  if (filter.username !== undefined) {
    const host = await findActiveUserByUsername(ctx.db, principal.accountUuid, filter.username);
    if (!host) return [];
    repoFilter.hostUuid = host.uuid;
  }
  return listTopics(ctx.db, principal.accountUuid, repoFilter);
}

export async function getMeetingTopic(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, topicUuid: string): Promise<MeetingTopic> {
  const topic = await findTopic(ctx.db, principal.accountUuid, topicUuid);
  if (!topic) throw new NotFoundError('meeting topic');
  return topic;
}

export async function updateMeetingTopic(ctx: Pick<UseCaseContext, 'now' | 'db' | 'sms'>, principal: Principal, topicUuid: string, input: UpdateTopicInput): Promise<MeetingTopic> {
  return inTransaction(ctx.db, async (trx) => {
    const current = await findTopic(trx, principal.accountUuid, topicUuid);
    if (!current) throw new NotFoundError('meeting topic');
    await requireTopicManager(trx, principal, current);
    const account = await findAccount(trx, principal.accountUuid);
    if (!account) throw new NotFoundError('account');
    const now = ctx.now();
    const settings = resolveTopicSettings(input, current, account.places, () => newId(now));
    const errors = validateTopicSettings(settings, account.places);
    // Only reminders the request names are checked against the server's channels: a topic whose
    // SMS reminders were set while SMS was configured can still be renamed after it is not.
    if (input.reminders !== undefined) errors.push(...validateReminders(settings.reminders, missingReminderSettings(ctx)));
    const allTeamMembers = decideAllTeamMembers(current.teamUuid, input.hosts, input.allTeamMembers ?? (input.hosts === undefined ? current.allTeamMembers : false), errors);
    const hosts =
      input.hosts === undefined && allTeamMembers === current.allTeamMembers
        ? current.hosts
        : await resolveHosts(trx, principal, current.teamUuid, allTeamMembers ? undefined : (input.hosts ?? current.hosts.map((host) => host.username)), errors);
    // Checked again only when the choice or the hosts change: a topic saved before stays as it was.
    if (input.schedule !== undefined || input.hostSchedules !== undefined || hosts !== current.hosts) {
      const named = { schedule: input.schedule !== undefined, hostSchedules: input.hostSchedules !== undefined };
      errors.push(...(await checkScheduleChoice(trx, account.uuid, current.teamUuid, settings, hosts, named)));
    }
    errors.push(
      ...checkHostWeights(
        input.hostWeights,
        current.teamUuid,
        hosts.map((host) => host.username),
      ),
    );
    errors.push(...checkAssignment(settings, current.teamUuid));
    if (errors.length > 0) throw new ValidationError(errors);
    if (settings.slug !== current.slug || hosts !== current.hosts) await requireFreeSlug(trx, account.uuid, settings.slug, current.teamUuid, hosts, current.uuid);
    const topic: MeetingTopic = { ...current, ...settings, hosts, allTeamMembers, updatedAt: now };
    await updateTopic(trx, topic);
    // This topic's meetings block their hosts' time by its buffers, whatever topic a slot is for.
    if (topic.bufferBeforeMinutes !== current.bufferBeforeMinutes || topic.bufferAfterMinutes !== current.bufferAfterMinutes) {
      await bumpHostsOfTopic(trx, topic.uuid);
    }
    const details = { changed: changedFields(input) };
    await recordAuditEvent(trx, { accountUuid: topic.accountUuid, action: 'topic.updated', actor: actorOf(principal), target: { type: 'topic', uuid: topic.uuid }, details, now });
    return topic;
  });
}

/**
 * A slug names one topic in each link it can appear in: `/book/{host}/{slug}` for every host
 * of the topic, and the team's. Another live topic with the same slug among those is
 * SLUG_TAKEN (a topic hosted by all team members counts the team's members as its hosts).
 */
async function requireFreeSlug(trx: Trx, accountUuid: string, slug: string | null, teamUuid: string | null, hosts: readonly TopicHost[], self: string | null): Promise<void> {
  if (slug === null) return;
  const scopes: { hostUuid?: string; teamUuid?: string }[] = hosts.map((host) => ({ hostUuid: host.uuid }));
  if (teamUuid !== null) scopes.push({ teamUuid });
  for (const scope of scopes) {
    const clashing = await findTopicsBySlug(trx, accountUuid, slug, scope);
    if (clashing.some((topic) => topic.uuid !== self)) throw new SlugTakenError();
  }
}

/** Deleted topics can no longer be booked; their meetings stay (and keep blocking time). */
export async function deleteMeetingTopic(ctx: Pick<UseCaseContext, 'now' | 'db'>, principal: Principal, topicUuid: string): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const topic = await findTopic(trx, principal.accountUuid, topicUuid);
    if (!topic) throw new NotFoundError('meeting topic');
    await requireTopicManager(trx, principal, topic);
    await softDeleteTopic(trx, topic.uuid, ctx.now());
    await recordAuditEvent(trx, {
      accountUuid: topic.accountUuid,
      action: 'topic.deleted',
      actor: actorOf(principal),
      target: { type: 'topic', uuid: topic.uuid },
      details: { name: topic.name },
      now: ctx.now(),
    });
  });
}

/**
 * The topic's choice of schedules: an individual topic's `schedule` must be one of its
 * hosts' schedules, a team topic's `hostSchedules` map each of its hosts to one of that
 * host's own; another account's or host's schedule is refused. The owners' rows are locked,
 * so a schedule being deleted at the same time is either seen deleted here or sees this topic.
 *
 * A choice the request did not name (`named`) but kept from before is not refused when the
 * hosts change under it: the entries of hosts no longer on the topic are dropped (in
 * `settings`), so removing a host never fails on their schedule.
 */
async function checkScheduleChoice(
  trx: Trx,
  accountUuid: string,
  teamUuid: string | null,
  settings: Pick<TopicSettings, 'schedule' | 'hostSchedules'>,
  hosts: readonly TopicHost[],
  named: { schedule: boolean; hostSchedules: boolean },
): Promise<FieldError[]> {
  const hostUsernames = new Set(hosts.map((host) => host.username));
  if (!named.hostSchedules) settings.hostSchedules = Object.fromEntries(Object.entries(settings.hostSchedules).filter(([username]) => hostUsernames.has(username)));
  const errors: FieldError[] = [];
  const chosen = Object.entries(settings.hostSchedules);
  if (teamUuid !== null && settings.schedule !== null) errors.push({ path: '/schedule', message: 'is for individual topics; a team topic chooses per host (hostSchedules)' });
  if (teamUuid === null && chosen.length > 0) errors.push({ path: '/hostSchedules', message: 'is for team topics; an individual topic chooses one schedule (schedule)' });
  const uuids = [...new Set([...(settings.schedule === null ? [] : [settings.schedule]), ...chosen.map(([, uuid]) => uuid)])];
  const owners = await findScheduleOwners(trx, accountUuid, uuids);
  for (const owner of [...new Set(owners.values())].sort()) await lockHost(trx, owner);
  const stillThere = await findScheduleOwners(trx, accountUuid, uuids);
  if (settings.schedule !== null && teamUuid === null) {
    const owner = stillThere.get(settings.schedule);
    if (owner === undefined || !hosts.some((host) => host.uuid === owner)) {
      if (named.schedule) errors.push({ path: '/schedule', message: "is not a schedule of the topic's host" });
      else settings.schedule = null;
    }
  }
  if (teamUuid !== null) {
    for (const [username, uuid] of chosen) {
      const host = hosts.find((candidate) => candidate.username === username);
      if (!host) errors.push({ path: `/hostSchedules/${username}`, message: 'is not a host of the topic' });
      else if (stillThere.get(uuid) !== host.uuid) errors.push({ path: `/hostSchedules/${username}`, message: `is not a schedule of ${username}` });
    }
  }
  return errors;
}

/** Only a team topic can follow its team, and not while it also names its hosts. */
function decideAllTeamMembers(teamUuid: string | null, hosts: string[] | undefined, wanted: boolean, errors: FieldError[]): boolean {
  if (!wanted) return false;
  if (teamUuid === null) errors.push({ path: '/allTeamMembers', message: 'is only for team topics' });
  else if (hosts !== undefined) errors.push({ path: '/allTeamMembers', message: 'cannot be combined with hosts' });
  return teamUuid !== null;
}

async function requireAdminOfTeam(db: DbOrTrx, principal: Principal, teamUuid: string): Promise<void> {
  const team = await findTeam(db, principal.accountUuid, teamUuid);
  if (!team) throw new NotFoundError('team');
  const membership = await findMembership(db, team.uuid, principal.userUuid);
  if (!membership?.admin) throw new ForbiddenError('Only an admin of the team may manage its topics');
}

/** A team topic is managed by the team's admins; an individual one by its creator, its hosts, or their team admins. */
export async function requireTopicManager(db: DbOrTrx, principal: Principal, topic: MeetingTopic): Promise<void> {
  if (topic.teamUuid !== null) return requireAdminOfTeam(db, principal, topic.teamUuid);
  if (topic.createdBy === principal.userUuid || topic.hosts.some((host) => host.uuid === principal.userUuid)) return;
  const managed = await findUserIdsManagedBy(db, principal.userUuid);
  if (topic.hosts.some((host) => managed.has(host.uuid))) return;
  throw new ForbiddenError("Only the topic's creator, its hosts or their team admins may change it");
}

/**
 * Usernames → hosts. Team topics: members of the team (default all). Individual topics:
 * the caller (default), or members of teams the caller administers.
 */
async function resolveHosts(db: DbOrTrx, principal: Principal, teamUuid: string | null, usernames: string[] | undefined, errors: FieldError[]): Promise<TopicHost[]> {
  if (teamUuid !== null) {
    const members = (await selectTeamMembers(db, teamUuid)).filter((member) => member.deactivatedAt === null);
    if (usernames === undefined) return members.map(({ uuid, username }) => ({ uuid, username }));
    const byUsername = new Map(members.map((member) => [member.username, member]));
    return pickHosts(usernames, errors, (username) => byUsername.get(username), 'is not a member of the team');
  }
  if (usernames === undefined) return [{ uuid: principal.userUuid, username: principal.username }];
  const users = new Map((await findActiveUsersByUsernames(db, principal.accountUuid, usernames)).map((user) => [user.username, user]));
  const hosts = pickHosts(usernames, errors, (username) => users.get(username), 'is not an active user of the account');
  const others = hosts.filter((host) => host.uuid !== principal.userUuid);
  if (others.length > 0) {
    const managed = await findUserIdsManagedBy(db, principal.userUuid);
    if (others.some((host) => !managed.has(host.uuid))) {
      throw new ForbiddenError('Only a team admin may create topics hosted by other members, and only members of their teams');
    }
  }
  return hosts;
}

function pickHosts(usernames: string[], errors: FieldError[], lookup: (username: string) => { uuid: string; username: string } | undefined, missingMessage: string): TopicHost[] {
  if (usernames.length === 0) errors.push({ path: '/hosts', message: 'must name at least one host' });
  const hosts: TopicHost[] = [];
  const seen = new Set<string>();
  usernames.forEach((username, index) => {
    const user = lookup(username);
    if (!user) errors.push({ path: `/hosts/${index}`, message: missingMessage });
    else if (!seen.has(user.uuid)) {
      seen.add(user.uuid);
      hosts.push({ uuid: user.uuid, username: user.username });
    }
  });
  return hosts;
}
