import { sql, type ExpressionBuilder } from 'kysely';
import type { Place } from '../../domain/account.js';
import { ERASED_NAME } from '../../domain/erasure.js';
import type { Invoice, Lang, Meeting, MeetingHost, MeetingStatus, NoShow } from '../../domain/meeting.js';
import { locationWithoutDetails, type MeetingLocation } from '../../domain/place-details.js';
import type { HostLimits } from '../../domain/period-limits.js';
import { compileOnce } from '../compiled-query.js';
import type { Database, DbOrTrx, MeetingRow, Trx } from '../database.js';

type MeetingRowWithHost = MeetingRow & { host_username: string };

/**
 * Rows into meetings, with a collective meeting's co-hosts read in one more statement (only
 * when a row is collective: every other read stays one statement).
 */
async function rowsToMeetings(db: DbOrTrx, rows: MeetingRowWithHost[]): Promise<Meeting[]> {
  const collective = rows.filter((row) => row.collective === 1).map((row) => row.id);
  const coHosts = collective.length === 0 ? new Map<string, MeetingHost[]>() : await findCoHosts(db, collective);
  return rows.map((row) => {
    const meeting = meetingRowToMeeting(row);
    const hosts = coHosts.get(row.id);
    return hosts ? { ...meeting, coHosts: hosts } : meeting;
  });
}

async function findCoHosts(db: DbOrTrx, meetingUuids: readonly string[]): Promise<Map<string, MeetingHost[]>> {
  const rows = await db
    .selectFrom('meeting_co_hosts')
    .innerJoin('users', 'users.id', 'meeting_co_hosts.user_id')
    .select(['meeting_co_hosts.meeting_id as meetingUuid', 'users.id as uuid', 'users.username as username'])
    .where('meeting_co_hosts.meeting_id', 'in', [...meetingUuids])
    .orderBy('meeting_co_hosts.meeting_id')
    .orderBy('meeting_co_hosts.position')
    .execute();
  const byMeeting = new Map<string, MeetingHost[]>();
  for (const row of rows) {
    const hosts = byMeeting.get(row.meetingUuid) ?? [];
    hosts.push({ uuid: row.uuid, username: row.username });
    byMeeting.set(row.meetingUuid, hosts);
  }
  return byMeeting;
}

function meetingRowToMeeting(row: MeetingRowWithHost): Meeting {
  return {
    uuid: row.id,
    accountUuid: row.account_id,
    topicUuid: row.topic_id,
    teamUuid: row.team_id,
    hostUuid: row.host_user_id,
    hostUsername: row.host_username,
    bookingUuid: row.booking_id,
    start: row.starts_at,
    end: row.ends_at,
    status: row.status as MeetingStatus,
    holdExpiresAt: row.hold_expires_at,
    place: row.place as Place,
    // Meetings booked before locations were stored (0011) know only their place.
    location: row.location === null ? locationWithoutDetails(row.place as Place, row.participant_phone) : (JSON.parse(row.location) as MeetingLocation),
    participant: {
      name: row.participant_name,
      email: row.participant_email,
      phone: row.participant_phone,
      timezone: row.participant_timezone,
      lang: row.participant_lang as Lang,
      locale: row.participant_locale,
    },
    note: row.note,
    priceVariantUuid: row.price_variant_id,
    form: JSON.parse(row.form) as Record<string, unknown>,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    invoice: row.invoice === null ? null : (JSON.parse(row.invoice) as Invoice),
    sequence: row.sequence,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    cancelledAt: row.cancelled_at,
    cancelReason: row.cancel_reason,
    bookedByKeyUuid: row.booked_by_key_id,
    noShow: row.no_show as NoShow | null,
    declineReason: row.decline_reason,
    erasedAt: row.erased_at,
    guests: JSON.parse(row.guests ?? '[]') as string[],
  };
}

/** One statement for all of a booking's meetings: one round trip inside the booking's lock. */
export async function insertMeetings(db: DbOrTrx, meetings: Meeting[]): Promise<void> {
  if (meetings.length === 0) return;
  // Most bookings are of one date: that statement is compiled once.
  if (meetings.length === 1) await insertMeetingRow(db, meetingToRow(meetings[0]!));
  else await db.insertInto('meetings').values(meetings.map(meetingToRow)).execute();
  // A collective meeting blocks each co-host through these rows (see busy-time.ts).
  const coHosts = meetings.flatMap((meeting) =>
    (meeting.coHosts ?? []).map((host, position) => ({ meeting_id: meeting.uuid, user_id: host.uuid, position, starts_at: meeting.start })),
  );
  if (coHosts.length > 0) await db.insertInto('meeting_co_hosts').values(coHosts).execute();
}

const insertMeetingRow = compileOnce((db, row: ReturnType<typeof meetingToRow>) => db.insertInto('meetings').values(row));

function meetingToRow(meeting: Meeting) {
  return {
    id: meeting.uuid,
    account_id: meeting.accountUuid,
    topic_id: meeting.topicUuid,
    team_id: meeting.teamUuid,
    host_user_id: meeting.hostUuid,
    booking_id: meeting.bookingUuid,
    starts_at: meeting.start,
    ends_at: meeting.end,
    status: meeting.status,
    hold_expires_at: meeting.holdExpiresAt,
    place: meeting.place,
    location: JSON.stringify(meeting.location),
    participant_name: meeting.participant.name,
    participant_email: meeting.participant.email,
    participant_phone: meeting.participant.phone,
    participant_timezone: meeting.participant.timezone,
    participant_lang: meeting.participant.lang,
    participant_locale: meeting.participant.locale ?? null,
    note: meeting.note,
    price_variant_id: meeting.priceVariantUuid,
    form: JSON.stringify(meeting.form),
    metadata: JSON.stringify(meeting.metadata),
    invoice: meeting.invoice === null ? null : JSON.stringify(meeting.invoice),
    sequence: meeting.sequence,
    created_at: meeting.createdAt,
    updated_at: meeting.updatedAt,
    cancelled_at: null,
    cancel_reason: null,
    booked_by_key_id: meeting.bookedByKeyUuid,
    guests: JSON.stringify(meeting.guests ?? []),
    no_show: meeting.noShow,
    decline_reason: meeting.declineReason,
    collective: (meeting.coHosts ?? []).length > 0 ? 1 : 0,
  };
}

function selectMeetings(db: DbOrTrx) {
  return db.selectFrom('meetings').innerJoin('users', 'users.id', 'meetings.host_user_id').selectAll('meetings').select('users.username as host_username');
}

export async function findMeeting(db: DbOrTrx, accountUuid: string, meetingUuid: string): Promise<Meeting | undefined> {
  const row = await selectMeetings(db).where('meetings.account_id', '=', accountUuid).where('meetings.id', '=', meetingUuid).executeTakeFirst();
  return row && (await rowsToMeetings(db, [row]))[0];
}

/** A meeting of any account: for the manage link, whose verified token names the meeting. */
export async function findMeetingByUuid(db: DbOrTrx, meetingUuid: string): Promise<Meeting | undefined> {
  const row = await selectMeetings(db).where('meetings.id', '=', meetingUuid).executeTakeFirst();
  return row && (await rowsToMeetings(db, [row]))[0];
}

export interface MeetingQuery {
  accountUuid: string;
  hostUuid?: string | undefined;
  teamUuid?: string | undefined;
  from?: number | undefined;
  to?: number | undefined;
  /** Stored statuses to match (the caller maps `expired` to held-out pending ones). */
  statuses?: MeetingStatus[] | undefined;
  now: number;
  /** Only meetings marked with this no-show. */
  noShow?: NoShow | undefined;
  /** Keyset position: meetings strictly after (start, uuid) in the page's order. */
  after?: { start: number; uuid: string } | undefined;
  /** Latest start first (the web app's "Past"); otherwise earliest first. */
  newestFirst?: boolean | undefined;
  limit: number;
}

/** Meetings by start time then uuid (or the reverse), so a keyset cursor pages through them stably. */
export async function selectMeetingsPage(db: DbOrTrx, query: MeetingQuery): Promise<Meeting[]> {
  let select = selectMeetings(db);
  if (query.hostUuid === undefined) select = select.where('meetings.account_id', '=', query.accountUuid);
  else {
    const hostUuid = query.hostUuid;
    // The page's earliest (or, newest first, latest) possible start: the candidates below
    // need not go further back than it.
    const bound = query.newestFirst ? undefined : Math.max(query.from ?? Number.NEGATIVE_INFINITY, query.after?.start ?? Number.NEGATIVE_INFINITY);
    const until = query.newestFirst ? Math.min(query.to ?? Number.POSITIVE_INFINITY, query.after?.start ?? Number.POSITIVE_INFINITY) : undefined;
    // A host's meetings include the collective ones they hold beside the named host. The
    // candidates come from the host's own indexes (host and start, co-host and start): a
    // condition `host = ? or exists (co-host)` made both databases walk the whole account's
    // meetings in start order and filter, a read that grew with every other host's
    // meetings (bench/year.ts: the account's index read ten times the rows on a year's data).
    // No account condition here: a host (resolved in the caller's account) holds meetings of
    // that account only, and with one, SQLite (which has no statistics) chose the account's
    // index again, for the outer query and for the candidates alike.
    select = select.where('meetings.id', 'in', (eb) => {
      let own = eb.selectFrom('meetings as own').select('own.id as id').where('own.host_user_id', '=', hostUuid);
      let shared = eb.selectFrom('meeting_co_hosts').select('meeting_co_hosts.meeting_id as id').where('meeting_co_hosts.user_id', '=', hostUuid);
      if (bound !== undefined && Number.isFinite(bound)) {
        own = own.where('own.starts_at', '>=', bound);
        shared = shared.where('meeting_co_hosts.starts_at', '>=', bound);
      }
      if (until !== undefined && Number.isFinite(until)) {
        own = own.where('own.starts_at', '<=', until);
        shared = shared.where('meeting_co_hosts.starts_at', '<=', until);
      }
      return own.unionAll(shared);
    });
  }
  if (query.teamUuid !== undefined) select = select.where('meetings.team_id', '=', query.teamUuid);
  if (query.from !== undefined) select = select.where('meetings.starts_at', '>=', query.from);
  if (query.to !== undefined) select = select.where('meetings.starts_at', '<', query.to);
  if (query.statuses !== undefined) {
    const statuses = query.statuses;
    const now = query.now;
    // A pending hold that ran out reads as expired even before the sweeper writes it.
    select = select.where((eb) => {
      const branches = [];
      const stored = statuses.filter((status) => status !== 'pending_payment' && status !== 'expired' && status !== 'pending_approval' && status !== 'declined');
      if (stored.length > 0) branches.push(eb('meetings.status', 'in', stored));
      if (statuses.includes('pending_payment')) {
        branches.push(eb.and([eb('meetings.status', '=', 'pending_payment'), eb('meetings.hold_expires_at', '>', now)]));
      }
      if (statuses.includes('expired')) {
        branches.push(eb('meetings.status', '=', 'expired'));
        branches.push(eb.and([eb('meetings.status', '=', 'pending_payment'), eb('meetings.hold_expires_at', '<=', now)]));
      }
      // Likewise a request past its approval deadline reads as declined.
      if (statuses.includes('pending_approval')) {
        branches.push(eb.and([eb('meetings.status', '=', 'pending_approval'), eb('meetings.hold_expires_at', '>', now)]));
      }
      if (statuses.includes('declined')) {
        branches.push(eb('meetings.status', '=', 'declined'));
        branches.push(eb.and([eb('meetings.status', '=', 'pending_approval'), eb('meetings.hold_expires_at', '<=', now)]));
      }
      return eb.or(branches);
    });
  }
  if (query.noShow !== undefined) select = select.where('meetings.no_show', '=', query.noShow);
  if (query.after !== undefined) {
    const { start, uuid } = query.after;
    const past = query.newestFirst ? '<' : '>';
    select = select.where((eb) => eb.or([eb('meetings.starts_at', past, start), eb.and([eb('meetings.starts_at', '=', start), eb('meetings.id', past, uuid)])]));
  }
  const order = query.newestFirst ? 'desc' : 'asc';
  const rows = await select.orderBy('meetings.starts_at', order).orderBy('meetings.id', order).limit(query.limit).execute();
  return rowsToMeetings(db, rows);
}

/** Bumps the calendar version of every host with meetings of the topic (its buffers changed). */
export async function bumpHostsOfTopic(db: DbOrTrx, topicUuid: string): Promise<void> {
  await db
    .updateTable('users')
    .set((eb) => ({ calendar_version: eb('calendar_version', '+', 1) }))
    .where('id', 'in', (eb) => eb.selectFrom('meetings').select('host_user_id').where('topic_id', '=', topicUuid))
    .execute();
}

/**
 * Cancels a meeting that is still live at `cancelledAt` (confirmed, or pending with its hold
 * running); false when it was not, so of concurrent cancels exactly one changes the row.
 */
export async function markMeetingCancelled(db: DbOrTrx, meetingUuid: string, cancelledAt: number, reason: string | null): Promise<boolean> {
  const result = await db
    .updateTable('meetings')
    .set((eb) => ({ status: 'cancelled', cancelled_at: cancelledAt, cancel_reason: reason, updated_at: cancelledAt, sequence: eb('sequence', '+', 1) }))
    .where('id', '=', meetingUuid)
    .where((eb) => eb.or([eb('status', '=', 'confirmed'), eb.and([eb('status', 'in', ['pending_payment', 'pending_approval']), eb('hold_expires_at', '>', cancelledAt)])]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Sets who did not come (null clears it) on a confirmed meeting that has started by `now`,
 * if it is not so already; false when nothing changed, so of concurrent marks with the same
 * answer one records the event.
 */
export async function setMeetingNoShow(db: DbOrTrx, meetingUuid: string, noShow: NoShow | null, now: number): Promise<boolean> {
  const result = await db
    .updateTable('meetings')
    .set({ no_show: noShow, updated_at: now })
    .where('id', '=', meetingUuid)
    .where('status', '=', 'confirmed')
    .where('starts_at', '<=', now)
    .where((eb) => (noShow === null ? eb('no_show', 'is not', null) : eb.or([eb('no_show', 'is', null), eb('no_show', '<>', noShow)])))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Decides a request still open at `now` (pending approval, its deadline not reached):
 * `confirmed`, or `pending_payment` holding the slot until `holdExpiresAt` for a paid one.
 * False when it was no longer open, so of an approval, a decline and the deadline exactly one
 * changes the row.
 */
export async function markMeetingApproved(
  db: DbOrTrx,
  meetingUuid: string,
  now: number,
  next: { status: 'confirmed' | 'pending_payment'; holdExpiresAt: number | null },
): Promise<boolean> {
  const result = await db
    .updateTable('meetings')
    .set({ status: next.status, hold_expires_at: next.holdExpiresAt, updated_at: now })
    .where('id', '=', meetingUuid)
    .where('status', '=', 'pending_approval')
    .where('hold_expires_at', '>', now)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Declines a request: by the host while it is open (`lapsed: false`), or by the sweeper once
 * its deadline passed (`lapsed: true`); false when another decision got there first.
 */
export async function markMeetingDeclined(db: DbOrTrx, meetingUuid: string, now: number, reason: string | null, lapsed: boolean): Promise<boolean> {
  const result = await db
    .updateTable('meetings')
    .set({ status: 'declined', decline_reason: reason, updated_at: now })
    .where('id', '=', meetingUuid)
    .where('status', '=', 'pending_approval')
    .where('hold_expires_at', lapsed ? '<=' : '>', now)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Requests whose approval deadline passed by `now`, a bounded batch. */
export async function findLapsedApprovals(db: DbOrTrx, now: number, limit: number): Promise<Meeting[]> {
  const rows = await selectMeetings(db)
    .where('meetings.status', '=', 'pending_approval')
    .where('meetings.hold_expires_at', '<=', now)
    .orderBy('meetings.hold_expires_at')
    .limit(limit)
    .execute();
  return rowsToMeetings(db, rows);
}

/** Pending meetings whose hold ran out by `now`, a bounded batch, by booking. */
export async function findLapsedHolds(db: DbOrTrx, now: number, limit: number): Promise<Meeting[]> {
  const rows = await selectMeetings(db)
    .where('meetings.status', '=', 'pending_payment')
    .where('meetings.hold_expires_at', '<=', now)
    .orderBy('meetings.booking_id')
    .limit(limit)
    .execute();
  return rowsToMeetings(db, rows);
}

/** Writes `expired` on a booking's meetings whose hold ran out; false when another writer got there first. */
export async function markBookingExpired(db: DbOrTrx, bookingUuid: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('meetings')
    .set({ status: 'expired', updated_at: now })
    .where('booking_id', '=', bookingUuid)
    .where('status', '=', 'pending_payment')
    .where('hold_expires_at', '<=', now)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Takes the host's row lock for the rest of the transaction: bookings of one host run one
 * at a time, on every instance (a write, so it locks the row on PostgreSQL and needs no
 * dialect branch; SQLite's BEGIN IMMEDIATE already serialises writers). It does not
 * invalidate cached schedules: a change to the host's free time calls bumpCalendarVersions.
 */
export async function lockHost(trx: Trx, hostUuid: string): Promise<void> {
  await trx
    .updateTable('users')
    .set((eb) => ({ lock_version: eb('lock_version', '+', 1) }))
    .where('id', '=', hostUuid)
    .execute();
}

/** A host of a topic as a booking locked it: their hours, own limits and place details read under the lock. */
export interface LockedHost {
  uuid: string;
  username: string;
  availabilityJson: string;
  placeDetailsJson: string;
  limits: HostLimits;
}

/**
 * lockHost for a booking: finds the topic's active hosts among `usernames` (its listed
 * hosts, or the team's members for a topic hosted by all of them) and takes their row locks,
 * bumping their calendar versions (see bumpCalendarVersions) and returning what the booking
 * reads of them, all in one statement where a booking used five. A refused booking's
 * rollback undoes the bump. Several hosts are locked in the statement's scan order; should
 * two such bookings ever deadlock, PostgreSQL aborts one and inTransaction runs it again.
 */
export async function lockTopicHosts(trx: Trx, topicUuid: string, usernames: readonly string[]): Promise<LockedHost[]> {
  if (usernames.length === 0) return [];
  // Most bookings name one host: that statement is compiled once.
  const rows = usernames.length === 1 ? (await lockOneTopicHost(trx, topicUuid, usernames[0]!)).rows : await lockTopicHostsQuery(trx, topicUuid, usernames).execute();
  return rows.map((row) => ({
    uuid: row.id,
    username: row.username,
    availabilityJson: row.availability,
    placeDetailsJson: row.place_details,
    limits: { timezone: row.timezone, daily: row.limit_daily ?? null, weekly: row.limit_weekly ?? null },
  }));
}

/**
 * The user in `user` hosts the topic: named among its hosts, or a member of its team when all
 * members host it. Shared by the hosts' lock and the stand-ins' (whose time off names the host).
 */
function hostsTopic<T extends keyof Database>(eb: ExpressionBuilder<Database, T>, topicUuid: string, user: 'users.id' | 'time_off.user_id') {
  const scope = eb as unknown as ExpressionBuilder<Database, 'users' | 'time_off'>;
  return scope.or([
    scope.exists(
      scope
        .selectFrom('meeting_topic_hosts')
        .select('meeting_topic_hosts.user_id')
        .where('meeting_topic_hosts.topic_id', '=', topicUuid)
        .whereRef('meeting_topic_hosts.user_id', '=', user),
    ),
    scope.exists(
      scope
        .selectFrom('meeting_topics')
        .innerJoin('memberships', 'memberships.team_id', 'meeting_topics.team_id')
        .select('memberships.user_id')
        .where('meeting_topics.id', '=', topicUuid)
        .where('meeting_topics.all_team_members', '=', 1)
        .whereRef('memberships.user_id', '=', user),
    ),
  ]);
}

function lockTopicHostsQuery(db: DbOrTrx, topicUuid: string, usernames: readonly string[]) {
  return (
    db
      .updateTable('users')
      .set((eb) => ({ calendar_version: eb('calendar_version', '+', 1) }))
      .where('users.username', 'in', usernames)
      .where('users.deactivated_at', 'is', null)
      .where((eb) => hostsTopic(eb, topicUuid, 'users.id'))
      // The host's own limits too: a booking read them in a statement of its own before.
      .returning(['users.id', 'users.username', 'users.availability', 'users.place_details', 'users.timezone', 'users.limit_daily', 'users.limit_weekly'])
  );
}

/**
 * lockTopicHosts for stand-ins (issue 41): the active users among `usernames` named as the
 * stand-in of a time off, overlapping [from, to), of one of the topic's hosts. Locked as a
 * host is (calendar version bumped), so a booking through the stand-in and one of the
 * stand-in's own topics check and insert one after the other.
 */
export async function lockStandInHosts(trx: Trx, topicUuid: string, usernames: readonly string[], from: number, to: number): Promise<LockedHost[]> {
  if (usernames.length === 0) return [];
  const rows = await trx
    .updateTable('users')
    .set((eb) => ({ calendar_version: eb('calendar_version', '+', 1) }))
    .where('users.username', 'in', usernames)
    .where('users.deactivated_at', 'is', null)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('time_off')
          .select('time_off.id')
          .whereRef('time_off.delegate_id', '=', 'users.id')
          .where('time_off.start_at', '<', to)
          .where('time_off.end_at', '>', from)
          .where((inner) => hostsTopic(inner, topicUuid, 'time_off.user_id')),
      ),
    )
    .returning(['users.id', 'users.username', 'users.availability', 'users.place_details', 'users.timezone', 'users.limit_daily', 'users.limit_weekly'])
    .execute();
  return rows.map((row) => ({
    uuid: row.id,
    username: row.username,
    availabilityJson: row.availability,
    placeDetailsJson: row.place_details,
    limits: { timezone: row.timezone, daily: row.limit_daily ?? null, weekly: row.limit_weekly ?? null },
  }));
}

const lockOneTopicHost = compileOnce((db, topicUuid: string, username: string) => lockTopicHostsQuery(db, topicUuid, [username]));

/**
 * Moves a meeting (reschedule) if it is still where the caller read it, with the status it
 * read; false otherwise. The new span and host, SEQUENCE + 1 for the updated invitation.
 */
export async function moveMeeting(
  db: DbOrTrx,
  move: {
    uuid: string;
    fromStart: number;
    fromHostUuid: string;
    status: MeetingStatus;
    start: number;
    end: number;
    hostUuid: string;
    now: number;
    location?: MeetingLocation | undefined;
  },
): Promise<boolean> {
  const result = await db
    .updateTable('meetings')
    .set((eb) => ({
      starts_at: move.start,
      ends_at: move.end,
      host_user_id: move.hostUuid,
      updated_at: move.now,
      sequence: eb('sequence', '+', 1),
      // A move to another host resolves the location again (their own room, say).
      ...(move.location !== undefined ? { location: JSON.stringify(move.location) } : {}),
    }))
    .where('id', '=', move.uuid)
    .where('starts_at', '=', move.fromStart)
    .where('host_user_id', '=', move.fromHostUuid)
    .where('status', '=', move.status)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) return false;
  // A collective meeting's co-hosts are blocked at its new time.
  await db.updateTable('meeting_co_hosts').set({ starts_at: move.start }).where('meeting_id', '=', move.uuid).execute();
  return true;
}

/**
 * Marks the meeting's confirmations as queued, once: true for the one caller that did it (the
 * e-mail reaction, the room that arrived, or the room's deadline), false for any other.
 */
export async function markConfirmationSent(db: DbOrTrx, meetingUuid: string, now: number): Promise<boolean> {
  const result = await db.updateTable('meetings').set({ confirmation_sent_at: now }).where('id', '=', meetingUuid).where('confirmation_sent_at', 'is', null).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Where the meeting happens now (its room's link arrived); `bumpSequence` when invitations already went out, so calendars take the update. */
export async function setMeetingLocation(db: DbOrTrx, meetingUuid: string, location: MeetingLocation, bumpSequence: boolean, now: number): Promise<void> {
  await db
    .updateTable('meetings')
    .set((eb) => ({ location: JSON.stringify(location), updated_at: now, ...(bumpSequence ? { sequence: eb('sequence', '+', 1) } : {}) }))
    .where('id', '=', meetingUuid)
    .execute();
}

/** The host's confirmed meetings still to come at `place` that have no room yet (a connection that works again makes them one). */
export async function findMeetingsWaitingForRooms(db: DbOrTrx, hostUuid: string, place: string, now: number): Promise<{ uuid: string; accountUuid: string }[]> {
  const rows = await db
    .selectFrom('meetings')
    .leftJoin('meeting_rooms', 'meeting_rooms.meeting_id', 'meetings.id')
    .select(['meetings.id', 'meetings.account_id'])
    .where('meetings.host_user_id', '=', hostUuid)
    .where('meetings.place', '=', place)
    .where('meetings.status', '=', 'confirmed')
    .where('meetings.ends_at', '>', now)
    .where((eb) => eb.or([eb('meeting_rooms.status', 'is', null), eb('meeting_rooms.status', '<>', 'created')]))
    .orderBy('meetings.starts_at')
    .limit(500)
    .execute();
  return rows.map((row) => ({ uuid: row.id, accountUuid: row.account_id }));
}

/**
 * The host's confirmed meetings still to come at `place` that have no link from their room, a
 * bounded batch, soonest first: `failed`, those whose room the provider refused for good;
 * `waiting`, those with no room yet and none refused (no working connection), the caller
 * leaving out any with a link of the host's own.
 */
export async function findMeetingsWithoutRoom(db: DbOrTrx, hostUuid: string, place: string, which: 'failed' | 'waiting', now: number, limit: number): Promise<Meeting[]> {
  const rows = await selectMeetings(db)
    .leftJoin('meeting_rooms', 'meeting_rooms.meeting_id', 'meetings.id')
    .where('meetings.host_user_id', '=', hostUuid)
    .where('meetings.place', '=', place)
    .where('meetings.status', '=', 'confirmed')
    .where('meetings.ends_at', '>', now)
    .where((eb) => (which === 'failed' ? eb('meeting_rooms.status', '=', 'failed') : eb.or([eb('meeting_rooms.status', 'is', null), eb('meeting_rooms.status', '=', 'creating')])))
    .orderBy('meetings.starts_at')
    .limit(limit)
    .execute();
  return rowsToMeetings(db, rows);
}

/** Every meeting of the account whose participant has this e-mail, compared without regard to case, by start. */
export async function findMeetingsOfParticipant(db: DbOrTrx, accountUuid: string, email: string): Promise<Meeting[]> {
  const rows = await selectMeetings(db)
    .where('meetings.account_id', '=', accountUuid)
    // The expression of meetings_participant_email_idx (0038), so the index serves it.
    .where(sql<string>`lower(meetings.participant_email)`, '=', email.toLowerCase())
    .orderBy('meetings.starts_at')
    .orderBy('meetings.id')
    .execute();
  return rowsToMeetings(db, rows);
}

/** The account's meetings that ended before `endedBefore` and still hold personal data, oldest first, a bounded batch. */
export async function findMeetingsEndedBefore(db: DbOrTrx, accountUuid: string, endedBefore: number, limit: number): Promise<Meeting[]> {
  const rows = await selectMeetings(db)
    .where('meetings.account_id', '=', accountUuid)
    .where('meetings.erased_at', 'is', null)
    .where('meetings.ends_at', '<', endedBefore)
    // The order of meetings_retention_idx (0038): PostgreSQL reads the batch off the index instead of sorting every meeting kept.
    .orderBy('meetings.erased_at')
    .orderBy('meetings.ends_at')
    .limit(limit)
    .execute();
  return rowsToMeetings(db, rows);
}

/**
 * Writes the erased meetings (domain erasedMeeting) over their rows, only where not erased
 * already; the uuids of the rows it changed. One statement for the fields every meeting
 * loses alike, and one per meeting whose location held the participant's phone.
 */
export async function writeErasedMeetings(db: DbOrTrx, erased: readonly Meeting[], now: number): Promise<string[]> {
  if (erased.length === 0) return [];
  const uuids = erased.map((meeting) => meeting.uuid);
  // Conditional and returning what it changed: of two erasures at once, each meeting counts for one.
  const rows = await db
    .updateTable('meetings')
    .set({
      participant_name: ERASED_NAME,
      participant_email: '',
      participant_phone: null,
      participant_locale: null,
      note: null,
      form: '{}',
      metadata: '{}',
      invoice: null,
      // The guests' addresses are the participant's data too: they brought them.
      guests: '[]',
      erased_at: now,
    })
    .where('id', 'in', uuids)
    .where('erased_at', 'is', null)
    .returning('id')
    .execute();
  const ids = rows.map((row) => row.id);
  const changed = new Set(ids);
  for (const meeting of erased) {
    if (changed.has(meeting.uuid) && meeting.location?.source === 'participant') {
      await db
        .updateTable('meetings')
        .set({ location: JSON.stringify(meeting.location) })
        .where('id', '=', meeting.uuid)
        .execute();
    }
  }
  return ids;
}
