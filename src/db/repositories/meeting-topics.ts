import type { Account, Place } from '../../domain/account.js';
import { parseStoredFormFields, type FormField } from '../../domain/form.js';
import type { MeetingTopic, PriceVariant, TopicHost } from '../../domain/meeting-topic.js';
import type { PlaceDetails } from '../../domain/place-details.js';
import type { TopicTranslations } from '../../domain/topic-translations.js';
import { parseStoredReminders } from '../../domain/reminders.js';
import { compileOnce } from '../compiled-query.js';
import type { DbOrTrx, MeetingTopicRow } from '../database.js';
import { accountRowToAccount } from './accounts.js';

export function topicRowToTopic(row: MeetingTopicRow, hosts: TopicHost[]): MeetingTopic {
  return {
    uuid: row.id,
    accountUuid: row.account_id,
    teamUuid: row.team_id,
    createdBy: row.created_by,
    name: row.name,
    durationMinutes: row.duration_minutes,
    // Topics stored before 0043 have one length.
    durations: storedDurations(row.durations, row.duration_minutes),
    allowGuests: row.allow_guests === 1,
    slotIntervalMinutes: row.slot_interval_minutes,
    bufferBeforeMinutes: row.buffer_before_minutes,
    bufferAfterMinutes: row.buffer_after_minutes,
    minimumNoticeMinutes: row.minimum_notice_minutes,
    bookingWindowDays: row.booking_window_days,
    dailyLimit: row.daily_limit,
    weeklyLimit: row.weekly_limit ?? null,
    monthlyLimit: row.monthly_limit ?? null,
    schedule: row.schedule_id ?? null,
    hostSchedules: JSON.parse(row.host_schedules ?? '{}') as Record<string, string>,
    places: JSON.parse(row.places) as Place[],
    phoneRequired: row.phone_required === 1,
    price: row.price_amount !== null && row.price_currency !== null ? { amount: row.price_amount, currency: row.price_currency } : null,
    priceVariants: JSON.parse(row.price_variants) as PriceVariant[],
    // Questions stored before they had types read as `text`.
    form: parseStoredFormFields(JSON.parse(row.form) as Partial<FormField>[]),
    placeDetails: JSON.parse(row.place_details ?? '{}') as PlaceDetails,
    description: row.description,
    confirmationMessage: row.confirmation_message ?? '',
    translations: JSON.parse(row.translations ?? '{}') as TopicTranslations,
    public: row.is_public === 1,
    slug: row.slug ?? null,
    cancellationNoticeMinutes: row.cancellation_notice_minutes,
    requiresApproval: row.requires_approval === 1,
    approvalDeadlineHours: row.approval_deadline_hours,
    seats: row.seats,
    hostWeights: JSON.parse(row.host_weights) as Record<string, number>,
    // Topics stored before 0030 were all round-robin.
    assignment: row.assignment === 'collective' ? 'collective' : 'round-robin',
    reminders: parseStoredReminders(row.reminders),
    hosts,
    allTeamMembers: row.all_team_members === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function storedDurations(json: string | undefined, durationMinutes: number): number[] {
  const parsed = JSON.parse(json ?? '[]') as number[];
  return parsed.length > 0 ? parsed : [durationMinutes];
}

function topicToRow(topic: MeetingTopic) {
  return {
    id: topic.uuid,
    account_id: topic.accountUuid,
    team_id: topic.teamUuid,
    created_by: topic.createdBy,
    name: topic.name,
    duration_minutes: topic.durationMinutes,
    // One length is stored as `[]`, as before 0043: the list says only what a choice adds.
    durations: JSON.stringify(topic.durations.length > 1 ? topic.durations : []),
    allow_guests: topic.allowGuests ? 1 : 0,
    slot_interval_minutes: topic.slotIntervalMinutes,
    buffer_before_minutes: topic.bufferBeforeMinutes,
    buffer_after_minutes: topic.bufferAfterMinutes,
    minimum_notice_minutes: topic.minimumNoticeMinutes,
    booking_window_days: topic.bookingWindowDays,
    daily_limit: topic.dailyLimit,
    weekly_limit: topic.weeklyLimit,
    monthly_limit: topic.monthlyLimit,
    schedule_id: topic.schedule,
    host_schedules: JSON.stringify(topic.hostSchedules),
    places: JSON.stringify(topic.places),
    phone_required: topic.phoneRequired ? 1 : 0,
    price_amount: topic.price?.amount ?? null,
    price_currency: topic.price?.currency ?? null,
    price_variants: JSON.stringify(topic.priceVariants),
    form: JSON.stringify(topic.form),
    place_details: JSON.stringify(topic.placeDetails),
    description: topic.description,
    confirmation_message: topic.confirmationMessage,
    translations: JSON.stringify(topic.translations),
    is_public: topic.public ? 1 : 0,
    slug: topic.slug,
    cancellation_notice_minutes: topic.cancellationNoticeMinutes,
    requires_approval: topic.requiresApproval ? 1 : 0,
    approval_deadline_hours: topic.approvalDeadlineHours,
    seats: topic.seats,
    host_weights: JSON.stringify(topic.hostWeights),
    assignment: topic.assignment,
    reminders: JSON.stringify(topic.reminders),
    all_team_members: topic.allTeamMembers ? 1 : 0,
    created_at: topic.createdAt,
    updated_at: topic.updatedAt,
  };
}

export async function insertTopic(db: DbOrTrx, topic: MeetingTopic): Promise<void> {
  await db
    .insertInto('meeting_topics')
    .values({ ...topicToRow(topic), deleted_at: null })
    .execute();
  await replaceTopicHosts(db, topic.uuid, topic.allTeamMembers ? [] : topic.hosts);
}

export async function updateTopic(db: DbOrTrx, topic: MeetingTopic): Promise<void> {
  const { id: _id, account_id: _account, created_at: _created, created_by: _creator, ...changes } = topicToRow(topic);
  await db
    .updateTable('meeting_topics')
    .set((eb) => ({ ...changes, version: eb('version', '+', 1) }))
    .where('id', '=', topic.uuid)
    .execute();
  await replaceTopicHosts(db, topic.uuid, topic.allTeamMembers ? [] : topic.hosts);
}

async function replaceTopicHosts(db: DbOrTrx, topicUuid: string, hosts: TopicHost[]): Promise<void> {
  await db.deleteFrom('meeting_topic_hosts').where('topic_id', '=', topicUuid).execute();
  if (hosts.length === 0) return;
  await db
    .insertInto('meeting_topic_hosts')
    .values(hosts.map((host, position) => ({ topic_id: topicUuid, user_id: host.uuid, position })))
    .execute();
}

export async function softDeleteTopic(db: DbOrTrx, topicUuid: string, deletedAt: number): Promise<void> {
  await db.updateTable('meeting_topics').set({ deleted_at: deletedAt }).where('id', '=', topicUuid).execute();
}

/**
 * A live (not deleted) topic; with `username`, `hosts` holds only that host (if active).
 * With `accountUuid` null the lookup is not scoped to an account: the public calculate
 * endpoint, where the topic's uuid is the capability.
 */
export async function findTopic(db: DbOrTrx, accountUuid: string | null, topicUuid: string, username?: string): Promise<MeetingTopic | undefined> {
  // Every month view on PostgreSQL starts here: both statements compiled once.
  const [row] = (accountUuid === null ? await liveTopic(db, topicUuid) : await liveTopicOfAccount(db, topicUuid, accountUuid)).rows;
  if (!row) return undefined;
  // With a username, only that host (see FastReads.findTopic).
  const hosts = username === undefined ? await hostsOfOneTopic(db, row.id) : await namedHostOfOneTopic(db, row.id, username);
  return topicRowToTopic(row, groupHosts(hosts.rows).get(row.id) ?? []);
}

const liveTopic = compileOnce((db, topicUuid: string) => db.selectFrom('meeting_topics').selectAll().where('id', '=', topicUuid).where('deleted_at', 'is', null));
const liveTopicOfAccount = compileOnce((db, topicUuid: string, accountUuid: string) =>
  db.selectFrom('meeting_topics').selectAll().where('id', '=', topicUuid).where('deleted_at', 'is', null).where('account_id', '=', accountUuid),
);
const hostsOfOneTopic = compileOnce((db, topicUuid: string) => activeHostsQuery(db, [topicUuid]));
const namedHostOfOneTopic = compileOnce((db, topicUuid: string, username: string) => activeHostsQuery(db, [topicUuid], [username]));

/**
 * The account and its topic as a booking needs them, in one statement (the account is
 * undefined when it does not exist, the topic when the account has no such live topic).
 * The topic comes without `hosts`: a booking finds the hosts it names as it locks them
 * (lockTopicHosts), not by reading the whole team.
 */
export async function findAccountAndTopic(db: DbOrTrx, accountUuid: string, topicUuid: string): Promise<{ account: Account; topic: MeetingTopic | undefined } | undefined> {
  const [row] = (await accountAndTopic(db, accountUuid, topicUuid)).rows;
  if (!row) return undefined;
  const account = accountRowToAccount({
    id: row.a_id,
    name: row.a_name,
    default_timezone: row.a_default_timezone,
    max_users: row.a_max_users,
    places: row.a_places,
    owner_user_id: row.a_owner_user_id,
    created_at: row.a_created_at,
    lock_version: 0,
  });
  if (row.id === null) return { account, topic: undefined };
  // The row as it is: topicRowToTopic reads only the topic's columns, and copying the rest
  // out of a 40-column row (`...topicRow`) was a sizeable part of a booking's own CPU.
  return { account, topic: topicRowToTopic(row as unknown as MeetingTopicRow, []) };
}

const accountAndTopic = compileOnce((db, accountUuid: string, topicUuid: string) =>
  db
    .selectFrom('accounts')
    .leftJoin('meeting_topics', (join) =>
      join.onRef('meeting_topics.account_id', '=', 'accounts.id').on('meeting_topics.id', '=', topicUuid).on('meeting_topics.deleted_at', 'is', null),
    )
    .selectAll('meeting_topics')
    .select([
      'accounts.id as a_id',
      'accounts.name as a_name',
      'accounts.default_timezone as a_default_timezone',
      'accounts.max_users as a_max_users',
      'accounts.places as a_places',
      'accounts.owner_user_id as a_owner_user_id',
      'accounts.created_at as a_created_at',
    ])
    .where('accounts.id', '=', accountUuid),
);

export interface TopicFilter {
  teamUuid?: string | undefined;
  hostUuid?: string | undefined;
}

/** The account's live topics, oldest first. */
export async function listTopics(db: DbOrTrx, accountUuid: string, filter: TopicFilter = {}): Promise<MeetingTopic[]> {
  let query = db.selectFrom('meeting_topics').selectAll().where('account_id', '=', accountUuid).where('deleted_at', 'is', null);
  if (filter.teamUuid !== undefined) query = query.where('team_id', '=', filter.teamUuid);
  if (filter.hostUuid !== undefined) {
    const hostUuid = filter.hostUuid;
    query = query.where((eb) =>
      eb.or([
        eb('id', 'in', eb.selectFrom('meeting_topic_hosts').select('topic_id').where('user_id', '=', hostUuid)),
        eb.and([eb('all_team_members', '=', 1), eb('team_id', 'in', eb.selectFrom('memberships').select('team_id').where('user_id', '=', hostUuid))]),
      ]),
    );
  }
  const rows = await query.orderBy('created_at').orderBy('id').execute();
  const hosts = await findActiveHosts(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => topicRowToTopic(row, hosts.get(row.id) ?? []));
}

/**
 * The active hosts of each topic: its listed hosts in their order, or, for a topic hosted by
 * all team members, the team's current members in the order they joined.
 */
async function findActiveHosts(db: DbOrTrx, topicUuids: string[], usernames?: readonly string[]): Promise<Map<string, TopicHost[]>> {
  if (topicUuids.length === 0 || usernames?.length === 0) return new Map();
  return groupHosts(await activeHostsQuery(db, topicUuids, usernames).execute());
}

function activeHostsQuery(db: DbOrTrx, topicUuids: readonly string[], usernames?: readonly string[]) {
  let listed = db
    .selectFrom('meeting_topic_hosts')
    .innerJoin('users', 'users.id', 'meeting_topic_hosts.user_id')
    .select([
      'meeting_topic_hosts.topic_id as topicUuid',
      'users.id as uuid',
      'users.username as username',
      'users.calendar_version as calendarVersion',
      'meeting_topic_hosts.position as position',
    ])
    .where('meeting_topic_hosts.topic_id', 'in', topicUuids)
    .where('users.deactivated_at', 'is', null);
  let members = db
    .selectFrom('meeting_topics')
    .innerJoin('memberships', 'memberships.team_id', 'meeting_topics.team_id')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['meeting_topics.id as topicUuid', 'users.id as uuid', 'users.username as username', 'users.calendar_version as calendarVersion', 'memberships.created_at as position'])
    .where('meeting_topics.id', 'in', topicUuids)
    .where('meeting_topics.all_team_members', '=', 1)
    .where('users.deactivated_at', 'is', null);
  if (usernames !== undefined) {
    listed = listed.where('users.username', 'in', usernames);
    members = members.where('users.username', 'in', usernames);
  }
  return listed.unionAll(members).orderBy('position').orderBy('uuid');
}

function groupHosts(rows: readonly { topicUuid: string; uuid: string; username: string; calendarVersion: number | string }[]): Map<string, TopicHost[]> {
  const result = new Map<string, TopicHost[]>();
  for (const row of rows) {
    const list = result.get(row.topicUuid) ?? [];
    // The calendar version read with the topic, before any calendar: a team view needs no read per host.
    list.push({ uuid: row.uuid, username: row.username, calendarVersion: Number(row.calendarVersion) });
    result.set(row.topicUuid, list);
  }
  return result;
}

/** A topic even if deleted: its meetings still need its name and buffers. */
export async function findTopicIncludingDeleted(db: DbOrTrx, topicUuid: string): Promise<MeetingTopic | undefined> {
  const row = await db.selectFrom('meeting_topics').selectAll().where('id', '=', topicUuid).executeTakeFirst();
  return row && topicRowToTopic(row, (await findActiveHosts(db, [row.id])).get(row.id) ?? []);
}

/** Whether the user is listed among the topic's hosts, deactivated or not (explain-schedule's HOST_INACTIVE). */
export async function isListedHostOfTopic(db: DbOrTrx, topicUuid: string, userUuid: string): Promise<boolean> {
  const row = await db.selectFrom('meeting_topic_hosts').select('user_id').where('topic_id', '=', topicUuid).where('user_id', '=', userUuid).executeTakeFirst();
  return row !== undefined;
}

/** A member who leaves a team stops hosting that team's topics. */
export async function removeHostFromTeamTopics(db: DbOrTrx, teamUuid: string, userUuid: string): Promise<void> {
  await db
    .deleteFrom('meeting_topic_hosts')
    .where('user_id', '=', userUuid)
    .where('topic_id', 'in', (eb) => eb.selectFrom('meeting_topics').select('id').where('team_id', '=', teamUuid))
    .execute();
}

/**
 * A host renamed: the account's team topics that name them in `hostWeights` or
 * `hostSchedules` (keyed by username) name them by the new username.
 */
export async function renameHostInTopics(db: DbOrTrx, accountUuid: string, from: string, to: string): Promise<void> {
  const rows = await db
    .selectFrom('meeting_topics')
    .select(['id', 'host_weights', 'host_schedules'])
    .where('account_id', '=', accountUuid)
    .where('team_id', 'is not', null)
    .execute();
  for (const row of rows) {
    const weights = JSON.parse(row.host_weights) as Record<string, unknown>;
    const schedules = JSON.parse(row.host_schedules) as Record<string, unknown>;
    if (!(from in weights) && !(from in schedules)) continue;
    const rename = (map: Record<string, unknown>) => JSON.stringify(Object.fromEntries(Object.entries(map).map(([key, value]) => [key === from ? to : key, value])));
    await db
      .updateTable('meeting_topics')
      .set({ host_weights: rename(weights), host_schedules: rename(schedules) })
      .where('id', '=', row.id)
      .execute();
  }
}

/**
 * The live topics of the account whose slug is `slug` and that `hostUuid` hosts (listed, or
 * through a team topic hosted by all members), oldest first.
 */
export async function findTopicsBySlug(db: DbOrTrx, accountUuid: string, slug: string, where: { hostUuid?: string; teamUuid?: string }): Promise<MeetingTopic[]> {
  const topics = await listTopics(db, accountUuid, where);
  return topics.filter((topic) => topic.slug === slug);
}

/** The live public topic of the team with this slug (any account: the team's uuid is in the link). */
export async function findPublicTeamTopicUuidBySlug(db: DbOrTrx, teamUuid: string, slug: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('meeting_topics')
    .select('id')
    .where('team_id', '=', teamUuid)
    .where('slug', '=', slug)
    .where('is_public', '=', 1)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .executeTakeFirst();
  return row?.id;
}
