import { ForbiddenError, NotFoundError, ValidationError, type FieldError } from '../domain/errors.js';
import { missingReminderSettings } from './reminders.js';
import { validateReminders } from '../domain/reminders.js';
import { resolveTopicSettings, validateTopicSettings, type MeetingTopic, type TopicHost, type TopicSettingsInput } from '../domain/meeting-topic.js';
import type { DbOrTrx } from '../db/database.js';
import { findAccount } from '../db/repositories/accounts.js';
import { findTopic, insertTopic, listTopics, softDeleteTopic, updateTopic, type TopicFilter } from '../db/repositories/meeting-topics.js';
import { findMembership, findTeam } from '../db/repositories/teams.js';
import { findActiveUserByUsername, findActiveUsersByUsernames, findUserIdsManagedBy, selectTeamMembers } from '../db/repositories/users.js';
import { bumpHostsOfTopic } from '../db/repositories/meetings.js';
import { inTransaction } from '../db/transaction.js';
import { newId } from '../ids.js';
import type { Principal, UseCaseContext } from './context.js';

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
export async function createMeetingTopic(ctx: Pick<UseCaseContext, 'now' | 'db' | 'config'>, principal: Principal, input: CreateTopicInput): Promise<MeetingTopic> {
  return inTransaction(ctx.db, async (trx) => {
    const account = await findAccount(trx, principal.accountUuid);
    if (!account) throw new NotFoundError('account');
    const now = ctx.now();
    const settings = resolveTopicSettings(input, undefined, account.places, () => newId(now));
    const errors = validateTopicSettings(settings, account.places);
    if (input.reminders !== undefined) errors.push(...validateReminders(settings.reminders, missingReminderSettings(ctx.config)));
    const teamUuid = input.team ?? null;
    if (teamUuid !== null) await requireAdminOfTeam(trx, principal, teamUuid);
    // A team topic without a host list follows the team: members who join later host it too.
    const allTeamMembers = decideAllTeamMembers(teamUuid, input.hosts, input.allTeamMembers ?? (teamUuid !== null && input.hosts === undefined), errors);
    const hosts = await resolveHosts(trx, principal, teamUuid, allTeamMembers ? undefined : input.hosts, errors);
    if (errors.length > 0) throw new ValidationError(errors);
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

export async function updateMeetingTopic(
  ctx: Pick<UseCaseContext, 'now' | 'db' | 'config'>,
  principal: Principal,
  topicUuid: string,
  input: UpdateTopicInput,
): Promise<MeetingTopic> {
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
    if (input.reminders !== undefined) errors.push(...validateReminders(settings.reminders, missingReminderSettings(ctx.config)));
    const allTeamMembers = decideAllTeamMembers(current.teamUuid, input.hosts, input.allTeamMembers ?? (input.hosts === undefined ? current.allTeamMembers : false), errors);
    const hosts =
      input.hosts === undefined && allTeamMembers === current.allTeamMembers
        ? current.hosts
        : await resolveHosts(trx, principal, current.teamUuid, allTeamMembers ? undefined : (input.hosts ?? current.hosts.map((host) => host.username)), errors);
    if (errors.length > 0) throw new ValidationError(errors);
    const topic: MeetingTopic = { ...current, ...settings, hosts, allTeamMembers, updatedAt: now };
    await updateTopic(trx, topic);
    // This topic's meetings block their hosts' time by its buffers, whatever topic a slot is for.
    if (topic.bufferBeforeMinutes !== current.bufferBeforeMinutes || topic.bufferAfterMinutes !== current.bufferAfterMinutes) {
      await bumpHostsOfTopic(trx, topic.uuid);
    }
    return topic;
  });
}

/** Deleted topics can no longer be booked; their meetings stay (and keep blocking time). */
export async function deleteMeetingTopic(ctx: Pick<UseCaseContext, 'now' | 'db'>, principal: Principal, topicUuid: string): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const topic = await findTopic(trx, principal.accountUuid, topicUuid);
    if (!topic) throw new NotFoundError('meeting topic');
    await requireTopicManager(trx, principal, topic);
    await softDeleteTopic(trx, topic.uuid, ctx.now());
  });
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
async function requireTopicManager(db: DbOrTrx, principal: Principal, topic: MeetingTopic): Promise<void> {
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
