import { deepFreeze } from '../domain/deep-freeze.js';
import SqliteDatabase from 'better-sqlite3';
import type { HostPlaceFacts, IntegrationProvider } from '../domain/integrations.js';
import type { MeetingTopic, TopicHost } from '../domain/meeting-topic.js';
import type { PlaceDetails } from '../domain/place-details.js';
import type { BusyMeeting, TimeOffSpan } from '../domain/slots.js';
import { findDelegations, findTimeOffSpans, type Delegation } from './repositories/time-off.js';
import type { DatabaseConfig } from '../config.js';
import type { Db, DbOrTrx, MeetingTopicRow } from './database.js';
import type { HostLimits } from '../domain/period-limits.js';
import { findAvailabilityJson, findAvailabilityJsonOfUsers, findCalendarVersion, findHostLimits, findHostLimitsOfUsers } from './repositories/users.js';
import { findScheduleJson } from './repositories/schedules.js';
import { externalSpan, findBusySpans, findBusySpansOfHosts } from './repositories/busy-time.js';
import { findTopic, topicRowToTopic } from './repositories/meeting-topics.js';
import { findPlaceFactsOfUsers } from './repositories/connections.js';
import { sqliteWrites } from './connect.js';
import type { ChangeFeed } from './change-feed.js';

/**
 * The reads behind POST /calculate-schedule, the service's hottest path. Outside any
 * transaction, committed data only.
 */
export interface FastReads {
  /**
   * A live topic with its active hosts; with `username`, only that one of them (a host's
   * month view needs no other, and a 100-member team topic's host list cost a quarter of
   * a cached view).
   */
  findTopic(accountUuid: string | null, topicUuid: string, username?: string): Promise<MeetingTopic | undefined>;
  findAvailabilityJson(userUuid: string): Promise<string | undefined>;
  /** Everything that blocks the host in the window (see findBusySpans in repositories/busy-time.ts). */
  findBusySpans(hostUuid: string, from: number, to: number, now: number): Promise<BusyMeeting[]>;
  /** findAvailabilityJson of several hosts at once (absent: no such user). */
  findAvailabilityJsonOfHosts(userUuids: readonly string[]): Promise<Map<string, string>>;
  /** findBusySpans of several hosts at once, each host asked for present. */
  findBusySpansOfHosts(hostUuids: readonly string[], from: number, to: number, now: number): Promise<Map<string, BusyMeeting[]>>;
  /** The host's calendar version (see UserTable.calendar_version). */
  findCalendarVersion(userUuid: string): Promise<number | undefined>;
  /** The hours of one of the host's named schedules (absent: not theirs, or gone). */
  findScheduleJson(scheduleUuid: string, userUuid: string): Promise<string | undefined>;
  /** The host's own limits across topics (absent: no such user). */
  findHostLimits(userUuid: string): Promise<HostLimits | undefined>;
  /** findHostLimits of several hosts at once. */
  findHostLimitsOfHosts(userUuids: readonly string[]): Promise<Map<string, HostLimits>>;
  /** The host's time off overlapping [from, to) (see repositories/time-off.ts). */
  findTimeOffSpans(userUuid: string, from: number, to: number): Promise<TimeOffSpan[]>;
  /** The host's time off with an active stand-in overlapping [from, to) (see repositories/time-off.ts). */
  findDelegations(userUuid: string, from: number, to: number): Promise<Delegation[]>;
  /** What makes each host's places ready (working connections, own place details); absent: no such user. */
  findPlaceFactsOfHosts(userUuids: readonly string[]): Promise<Map<string, HostPlaceFacts>>;
  close(): void;
}

/**
 * Kysely-built queries: what PostgreSQL uses (its round trip dwarfs query building), and
 * what a booking uses inside its transaction (pass the transaction).
 */
export function createKyselyReads(db: DbOrTrx): FastReads {
  return {
    findTopic: (accountUuid, topicUuid, username) => findTopic(db, accountUuid, topicUuid, username),
    findAvailabilityJson: (userUuid) => findAvailabilityJson(db, userUuid),
    findBusySpans: (hostUuid, from, to, now) => findBusySpans(db, hostUuid, from, to, now),
    findAvailabilityJsonOfHosts: (userUuids) => findAvailabilityJsonOfUsers(db, userUuids),
    findBusySpansOfHosts: (hostUuids, from, to, now) => findBusySpansOfHosts(db, hostUuids, from, to, now),
    findCalendarVersion: (userUuid) => findCalendarVersion(db, userUuid),
    findScheduleJson: (scheduleUuid, userUuid) => findScheduleJson(db, scheduleUuid, userUuid),
    findHostLimits: (userUuid) => findHostLimits(db, userUuid),
    findHostLimitsOfHosts: (userUuids) => findHostLimitsOfUsers(db, userUuids),
    findPlaceFactsOfHosts: (userUuids) => findPlaceFactsOfUsers(db, userUuids),
    findTimeOffSpans: (userUuid, from, to) => findTimeOffSpans(db, userUuid, from, to),
    findDelegations: (userUuid, from, to) => findDelegations(db, userUuid, from, to),
    close: () => undefined,
  };
}

/**
 * On SQLite, building each query with Kysely cost ~5× running it (bench/http-throughput.ts),
 * so the hot reads use statements prepared once, on a read-only connection of their own:
 * WAL gives it a consistent snapshot of committed data, never another request's open
 * transaction. The SQL mirrors the repository functions of the same names, and
 * test/db/fast-reads.test.ts runs both implementations on one database so they cannot drift.
 */
export function createSqliteReads(filename: string, otherProcessCheckMs = DEFAULT_OTHER_PROCESS_CHECK_MS): FastReads {
  const connection = new SqliteDatabase(filename, { readonly: true, fileMustExist: true });
  connection.pragma('busy_timeout = 5000');
  const snapshot = createSnapshot(connection, otherProcessCheckMs);
  // A topic's settings are parsed once per version; its hosts (and their calendar versions)
  // are read again whenever the database changed (see createSnapshot), since deactivating a
  // user changes them without touching the topic.
  const topicVersion = connection.prepare<[string], { version: number; account_id: string }>('select version, account_id from meeting_topics where id = ? and deleted_at is null');
  const topicById = connection.prepare<[string], MeetingTopicRow>('select * from meeting_topics where id = ? and deleted_at is null');
  const parsedTopics = new Map<string, { topic: MeetingTopic; version: number }>();
  // Same hosts as the repository's findActiveHosts: listed hosts, or the team's members.
  const hostsOfTopic = connection.prepare<[string, string], TopicHost>(
    `select uuid, username, calendarVersion from (
       select users.id as uuid, users.username as username, users.calendar_version as calendarVersion, meeting_topic_hosts.position as position
       from meeting_topic_hosts join users on users.id = meeting_topic_hosts.user_id
       where meeting_topic_hosts.topic_id = ? and users.deactivated_at is null
       union all
       select users.id, users.username, users.calendar_version, memberships.created_at
       from meeting_topics join memberships on memberships.team_id = meeting_topics.team_id join users on users.id = memberships.user_id
       where meeting_topics.id = ? and meeting_topics.all_team_members = 1 and users.deactivated_at is null
     ) order by position, uuid`,
  );
  const namedHostOfTopic = connection.prepare<[string, string, string, string], TopicHost>(
    `select uuid, username, calendarVersion from (
       select users.id as uuid, users.username as username, users.calendar_version as calendarVersion, meeting_topic_hosts.position as position
       from meeting_topic_hosts join users on users.id = meeting_topic_hosts.user_id
       where meeting_topic_hosts.topic_id = ? and users.username = ? and users.deactivated_at is null
       union all
       select users.id, users.username, users.calendar_version, memberships.created_at
       from meeting_topics join memberships on memberships.team_id = meeting_topics.team_id join users on users.id = memberships.user_id
       where meeting_topics.id = ? and users.username = ? and meeting_topics.all_team_members = 1 and users.deactivated_at is null
     ) order by position, uuid`,
  );
  const calendarVersionOf = connection.prepare<[string], { version: number }>('select calendar_version as version from users where id = ?');
  const availabilityOf = connection.prepare<[string], { availability: string }>('select availability from users where id = ?');
  const scheduleHoursOf = connection.prepare<[string, string], string>('select availability from schedules where id = ? and user_id = ?').pluck();
  const limitsOf = connection.prepare<[string], { timezone: string; daily: number | null; weekly: number | null }>(
    'select timezone, limit_daily as daily, limit_weekly as weekly from users where id = ?',
  );
  // Rows as arrays from the covering index, and each topic's buffers looked up once: a
  // join and row objects cost three times as much for a month of meetings.
  const blockingMeetings = connection
    .prepare<[string, number, number, number], [number, number, string, number | null]>(
      `select starts_at, ends_at, topic_id, hold_expires_at from meetings
       where host_user_id = ? and starts_at >= ? and starts_at < ?
         and (status = 'confirmed' or (status in ('pending_payment', 'pending_approval') and hold_expires_at > ?))
       order by starts_at`,
    )
    .raw(true);
  const coHostedMeetings = connection
    .prepare<[string, number, number, number], [number, number, string, number | null]>(
      `select meetings.starts_at, meetings.ends_at, meetings.topic_id, meetings.hold_expires_at
       from meeting_co_hosts join meetings on meetings.id = meeting_co_hosts.meeting_id
       where meeting_co_hosts.user_id = ? and meeting_co_hosts.starts_at >= ? and meeting_co_hosts.starts_at < ?
         and (meetings.status = 'confirmed' or (meetings.status in ('pending_payment', 'pending_approval') and meetings.hold_expires_at > ?))
       order by meeting_co_hosts.starts_at`,
    )
    .raw(true);
  const externalBusy = connection
    .prepare<[string, number, number], [number, number, string]>(
      'select starts_at, ends_at, source_id from external_busy where host_user_id = ? and starts_at < ? and ends_at > ? order by starts_at',
    )
    .raw(true);
  const buffersOf = connection.prepare<[string], { before: number; after: number }>(
    'select buffer_before_minutes as before, buffer_after_minutes as after from meeting_topics where id = ?',
  );
  const placeDetailsOf = connection.prepare<[string], string>('select place_details from users where id = ?').pluck();
  const delegationsOf = connection.prepare<[string, number, number], Delegation>(
    `select time_off.delegate_id as delegateUuid, users.username as delegateUsername, time_off.start_at as start, time_off.end_at as end
       from time_off join users on users.id = time_off.delegate_id
      where time_off.user_id = ? and users.deactivated_at is null and time_off.end_at > ? and time_off.start_at < ? order by time_off.start_at`,
  );
  const timeOffOf = connection.prepare<[string, number, number], TimeOffSpan>(
    'select start_at as start, end_at as end from time_off where user_id = ? and end_at > ? and start_at < ? order by start_at',
  );
  const connectedProvidersOf = connection
    .prepare<[string], IntegrationProvider>("select provider from connections where user_id = ? and status = 'connected' order by provider")
    .pluck();
  const placeFactsOf = (userUuid: string): HostPlaceFacts | undefined =>
    snapshot.remember(`places ${userUuid}`, () => {
      const details = placeDetailsOf.get(userUuid);
      return details === undefined ? undefined : { connected: connectedProvidersOf.all(userUuid), details: JSON.parse(details) as PlaceDetails };
    });
  const hoursOf = (userUuid: string) => snapshot.remember(`hours ${userUuid}`, () => availabilityOf.get(userUuid)?.availability);
  const hostLimitsOf = (userUuid: string): HostLimits | undefined => snapshot.remember(`limits ${userUuid}`, () => limitsOf.get(userUuid));
  const busySpansOf = (hostUuid: string, from: number, to: number, now: number): BusyMeeting[] => {
    // Not remembered: which holds still block depends on `now`.
    snapshot.enter();
    const buffers = new Map<string, { before: number; after: number }>();
    const own = blockingMeetings.all(hostUuid, from, to, now);
    const coHosted = coHostedMeetings.all(hostUuid, from, to, now);
    // Both in start order, as the repository's union orders them.
    const rows = coHosted.length === 0 ? own : [...own, ...coHosted].sort((a, b) => a[0] - b[0]);
    const busy: BusyMeeting[] = rows.map(([start, end, topicUuid, holdExpiresAt]) => {
      let buffer = buffers.get(topicUuid);
      if (!buffer) {
        buffer = buffersOf.get(topicUuid) ?? { before: 0, after: 0 };
        buffers.set(topicUuid, buffer);
      }
      return { start, end, topicUuid, holdExpiresAt, bufferBeforeMinutes: buffer.before, bufferAfterMinutes: buffer.after };
    });
    for (const [start, end, sourceId] of externalBusy.all(hostUuid, to, from)) busy.push(externalSpan(start, end, sourceId));
    return busy;
  };
  return {
    async findTopic(accountUuid, topicUuid, username) {
      return snapshot.remember(`topic ${accountUuid} ${topicUuid} ${username ?? '*'}`, (): MeetingTopic | undefined => {
        const header = topicVersion.get(topicUuid);
        if (!header || (accountUuid !== null && header.account_id !== accountUuid)) return undefined;
        let parsed = parsedTopics.get(topicUuid);
        if (!parsed || parsed.version !== header.version) {
          const row = topicById.get(topicUuid);
          if (!row) return undefined;
          parsed = { topic: topicRowToTopic(row, []), version: row.version };
          if (parsedTopics.size > 10_000) parsedTopics.clear();
          parsedTopics.set(topicUuid, parsed);
        }
        return { ...parsed.topic, hosts: username === undefined ? hostsOfTopic.all(topicUuid, topicUuid) : namedHostOfTopic.all(topicUuid, username, topicUuid, username) };
      });
    },
    async findAvailabilityJson(userUuid) {
      return hoursOf(userUuid);
    },
    async findBusySpans(hostUuid, from, to, now) {
      return busySpansOf(hostUuid, from, to, now);
    },
    // In process, a statement per host costs no round trip: the batch is a loop.
    async findAvailabilityJsonOfHosts(userUuids) {
      const found = new Map<string, string>();
      for (const uuid of userUuids) {
        const hours = hoursOf(uuid);
        if (hours !== undefined) found.set(uuid, hours);
      }
      return found;
    },
    async findBusySpansOfHosts(hostUuids, from, to, now) {
      return new Map(hostUuids.map((uuid) => [uuid, busySpansOf(uuid, from, to, now)]));
    },
    async findCalendarVersion(userUuid) {
      return snapshot.remember(`version ${userUuid}`, () => calendarVersionOf.get(userUuid)?.version);
    },
    async findScheduleJson(scheduleUuid, userUuid) {
      return snapshot.remember(`schedule ${scheduleUuid} ${userUuid}`, () => scheduleHoursOf.get(scheduleUuid, userUuid));
    },
    async findHostLimits(userUuid) {
      return hostLimitsOf(userUuid);
    },
    async findHostLimitsOfHosts(userUuids) {
      const found = new Map<string, HostLimits>();
      for (const uuid of userUuids) {
        const limits = hostLimitsOf(uuid);
        if (limits !== undefined) found.set(uuid, limits);
      }
      return found;
    },
    async findPlaceFactsOfHosts(userUuids) {
      const found = new Map<string, HostPlaceFacts>();
      for (const uuid of userUuids) {
        const facts = placeFactsOf(uuid);
        if (facts !== undefined) found.set(uuid, facts);
      }
      return found;
    },
    async findDelegations(userUuid, from, to) {
      return snapshot.remember(`delegations ${userUuid} ${from} ${to}`, () => delegationsOf.all(userUuid, from, to));
    },
    async findTimeOffSpans(userUuid, from, to) {
      return snapshot.remember(`time off ${userUuid} ${from} ${to}`, () => timeOffOf.all(userUuid, from, to));
    },
    close: () => connection.close(),
  };
}

/**
 * Outside a transaction, every statement takes and releases SQLite's read locks (file and
 * WAL index): system calls that cost more than a cached month view's lookups themselves.
 * So the reads share one read transaction, a snapshot, for as long as it is certainly
 * current:
 * - while no writing statement has run in this process since it began (`sqliteWrites`):
 *   after any write, even one still uncommitted, the next read takes a new snapshot, so a
 *   read never misses a commit this process made before it, as with one snapshot per
 *   statement;
 * - and at most until the end of this turn of the event loop, so a read that is not
 *   remembered (busy time) sees another process's commit (the operator CLI's) from the next
 *   turn on, and checkpoints are never held back.
 *
 * And while nothing at all was committed, by any connection or process, the answers stay
 * what they were: SQLite's `data_version` moves with every commit of another connection
 * (this one only reads), so remembered answers are dropped once it has moved. It is read
 * again after any write of this process (so this process's commits show at once) and
 * otherwise at most every `otherProcessCheckMs`: a commit by another process (the operator
 * CLI) shows within that bound. A booking page that is viewed far more often than booked
 * then reads nothing for a cached month view, and checks that number a few dozen times a
 * second at most instead of once per turn of the event loop (~6 µs each, a tenth of what a
 * cached view costs beyond its bytes at one request a turn). A stale view is harmless: a
 * booking re-checks its slot under the host's lock in its own transaction (409 if taken).
 */
interface Snapshot {
  /** Opens a current snapshot, or keeps the open one if it still is. */
  enter(): void;
  /** `read()`'s answer, remembered until the database changes: it must not depend on the clock. */
  remember<T>(key: string, read: () => T): T;
}

/** Remembered answers kept at most: a bound on memory, far above one instance's hot set. */
const MAX_REMEMBERED = 20_000;

/** See DatabaseConfig's otherProcessCheckMs. */
const DEFAULT_OTHER_PROCESS_CHECK_MS = 25;

function createSnapshot(connection: SqliteDatabase.Database, otherProcessCheckMs: number): Snapshot {
  const begin = connection.prepare('begin');
  const commit = connection.prepare('commit');
  const dataVersion = connection.prepare<[], number>('pragma data_version').pluck();
  const remembered = new Map<string, unknown>();
  let rememberedAt = -1;
  let open = false;
  let writesAtStart = 0;
  const close = () => {
    open = false;
    // A read transaction has nothing to lose; if a failed read already ended it, fine too.
    if (connection.open && connection.inTransaction) commit.run();
  };
  const enter = () => {
    if (open && writesAtStart === sqliteWrites.count && connection.inTransaction) return;
    if (open) close();
    else setImmediate(close);
    begin.run();
    open = true;
    writesAtStart = sqliteWrites.count;
    // The first statement takes the snapshot; data_version is that snapshot's.
    const version = dataVersion.get()!;
    if (version !== rememberedAt) {
      remembered.clear();
      rememberedAt = version;
    }
  };
  // When the remembered answers were last checked against data_version, and this process's
  // writes by then: they stand while no write of this process came since and the check is
  // younger than the bound. The check needs no read transaction of its own: `pragma
  // data_version` alone takes and releases the read lock, one statement instead of three.
  let checkedAt = Number.NEGATIVE_INFINITY;
  let writesAtCheck = 0;
  const freshen = () => {
    if (open && writesAtStart === sqliteWrites.count && connection.inTransaction) return;
    const now = performance.now();
    if (writesAtCheck === sqliteWrites.count && now - checkedAt < otherProcessCheckMs) return;
    if (open) close();
    writesAtCheck = sqliteWrites.count;
    checkedAt = now;
    const version = dataVersion.get()!;
    if (version !== rememberedAt) {
      remembered.clear();
      rememberedAt = version;
    }
  };
  return {
    enter,
    remember<T>(key: string, read: () => T): T {
      freshen();
      // One lookup for a hit (the key is a new string each time: hashing it is the cost).
      const known = remembered.get(key);
      if (known !== undefined || remembered.has(key)) return known as T;
      enter();
      const value = deepFreeze(read());
      if (remembered.size >= MAX_REMEMBERED) remembered.clear();
      remembered.set(key, value);
      return value;
    },
  };
}

/**
 * PostgreSQL's reads through Kysely, with the clock-free answers (a topic and its hosts with
 * their calendar versions, hours, limits, place facts) remembered while the change feed
 * says nothing changed: a cached month view then costs no round trip at all, where it took
 * two (~200 µs of CPU on this side alone). Busy time is never remembered, as on SQLite.
 *
 * An answer is kept only if no change was heard while it was being read (it may have been
 * read from before the change); what was kept is dropped at the next change heard. Changes
 * by other instances are heard when PostgreSQL delivers their notice, a millisecond or so
 * after their commit: a view there may be that much older, as on SQLite for the operator
 * CLI's commits. Harmless: a booking re-checks its slot under the host's lock.
 */
export function createPostgresReads(db: Db, feed: ChangeFeed): FastReads {
  const reads = createKyselyReads(db);
  const remembered = new Map<string, unknown>();
  let rememberedAt = -1;
  // The generation the remembered answers stand for (forgetting them if it moved), or null while nothing may be remembered.
  const enter = (): number | null => {
    if (!feed.live()) return null;
    const generation = feed.generation();
    if (generation !== rememberedAt) {
      remembered.clear();
      rememberedAt = generation;
    }
    return generation;
  };
  // After a read: may its answer be kept? Not if anything changed while it ran.
  const unchangedSince = (generation: number) => feed.live() && feed.generation() === generation && rememberedAt === generation;
  const remember = async <T>(key: string, read: () => Promise<T>): Promise<T> => {
    const generation = enter();
    if (generation === null) return read();
    const known = remembered.get(key);
    if (known !== undefined || remembered.has(key)) return known as T;
    const value = deepFreeze(await read());
    if (unchangedSince(generation)) {
      if (remembered.size >= MAX_REMEMBERED) remembered.clear();
      remembered.set(key, value);
    }
    return value;
  };
  // A batch as one answer per host, remembered each, so that a team view and a host's view
  // share them; only the hosts not known are read (in one statement, as before).
  const rememberEach = async <T>(kind: string, uuids: readonly string[], readBatch: (uuids: readonly string[]) => Promise<Map<string, T>>): Promise<Map<string, T>> => {
    const generation = enter();
    if (generation === null) return readBatch(uuids);
    const found = new Map<string, T>();
    const missing: string[] = [];
    for (const uuid of uuids) {
      const key = `${kind} ${uuid}`;
      const known = remembered.get(key) as T | undefined;
      if (known !== undefined) found.set(uuid, known);
      else if (!remembered.has(key)) missing.push(uuid);
    }
    if (missing.length === 0) return found;
    const read = await readBatch(missing);
    const keep = unchangedSince(generation);
    if (keep && remembered.size + missing.length > MAX_REMEMBERED) remembered.clear();
    for (const uuid of missing) {
      const value = deepFreeze(read.get(uuid));
      if (value !== undefined) found.set(uuid, value);
      if (keep) remembered.set(`${kind} ${uuid}`, value);
    }
    return found;
  };
  return {
    ...reads,
    findTopic: (accountUuid, topicUuid, username) => remember(`topic ${accountUuid} ${topicUuid} ${username ?? '*'}`, () => reads.findTopic(accountUuid, topicUuid, username)),
    findAvailabilityJson: (userUuid) => remember(`hours ${userUuid}`, () => reads.findAvailabilityJson(userUuid)),
    findCalendarVersion: (userUuid) => remember(`version ${userUuid}`, () => reads.findCalendarVersion(userUuid)),
    findScheduleJson: (scheduleUuid, userUuid) => remember(`schedule ${scheduleUuid} ${userUuid}`, () => reads.findScheduleJson(scheduleUuid, userUuid)),
    findHostLimits: (userUuid) => remember(`limits ${userUuid}`, () => reads.findHostLimits(userUuid)),
    findAvailabilityJsonOfHosts: (userUuids) => rememberEach('hours', userUuids, reads.findAvailabilityJsonOfHosts),
    findHostLimitsOfHosts: (userUuids) => rememberEach('limits', userUuids, reads.findHostLimitsOfHosts),
    findPlaceFactsOfHosts: (userUuids) => rememberEach('places', userUuids, reads.findPlaceFactsOfHosts),
  };
}

export function createFastReads(config: DatabaseConfig, db: Db, changes: ChangeFeed | null = null): FastReads {
  // An in-memory database cannot be opened twice; it is for experiments, not speed.
  if (config.dialect === 'sqlite') return config.filename !== ':memory:' ? createSqliteReads(config.filename, config.otherProcessCheckMs) : createKyselyReads(db);
  return changes ? createPostgresReads(db, changes) : createKyselyReads(db);
}
