import type { CalendarSyncStatus, CalendarType, ConnectedCalendar, SealedCalendarAccess } from '../../domain/calendar.js';
import { inChunks, yieldToEventLoop } from '../chunks.js';
import type { CalendarTable, DbOrTrx } from '../database.js';
import type { Selectable } from 'kysely';

export interface NewCalendar extends ConnectedCalendar, SealedCalendarAccess {
  nextSyncAt: number;
}

type CalendarRow = Selectable<CalendarTable>;

function rowToCalendar(row: CalendarRow): ConnectedCalendar {
  return {
    uuid: row.id,
    accountUuid: row.account_id,
    userUuid: row.user_id,
    type: row.type as CalendarType,
    displayUrl: row.display_url,
    username: row.username,
    checkConflicts: row.check_conflicts === 1,
    writeMeetings: row.write_meetings === 1,
    status: row.status as CalendarSyncStatus,
    lastSyncAt: row.last_sync_at,
    lastSuccessAt: row.last_success_at,
    lastError: row.last_error,
    lastWriteError: row.last_write_error,
    createdAt: row.created_at,
  };
}

export async function insertCalendar(db: DbOrTrx, calendar: NewCalendar): Promise<void> {
  await db
    .insertInto('calendars')
    .values({
      id: calendar.uuid,
      account_id: calendar.accountUuid,
      user_id: calendar.userUuid,
      type: calendar.type,
      display_url: calendar.displayUrl,
      url: calendar.url,
      username: calendar.username,
      password_sealed: calendar.passwordSealed,
      connection_id: calendar.connectionUuid ?? null,
      remote_calendar_id: calendar.remoteCalendarId ?? null,
      check_conflicts: calendar.checkConflicts ? 1 : 0,
      write_meetings: calendar.writeMeetings ? 1 : 0,
      status: calendar.status,
      last_sync_at: null,
      last_success_at: null,
      last_error: null,
      last_write_error: null,
      next_sync_at: calendar.nextSyncAt,
      sync_lease_until: null,
      sync_claim: null,
      sync_state: null,
      created_at: calendar.createdAt,
    })
    .execute();
}

/** The user's calendars, oldest first. */
export async function listCalendarsOfUser(db: DbOrTrx, userUuid: string): Promise<ConnectedCalendar[]> {
  const rows = await db.selectFrom('calendars').selectAll().where('user_id', '=', userUuid).orderBy('created_at').orderBy('id').execute();
  return rows.map(rowToCalendar);
}

export async function findCalendar(db: DbOrTrx, calendarUuid: string): Promise<ConnectedCalendar | undefined> {
  const row = await db.selectFrom('calendars').selectAll().where('id', '=', calendarUuid).executeTakeFirst();
  return row && rowToCalendar(row);
}

/** The calendar and its sealed access, for the sync and the write job (never for the API). */
export async function findCalendarWithAccess(db: DbOrTrx, calendarUuid: string): Promise<{ calendar: ConnectedCalendar; access: SealedCalendarAccess } | undefined> {
  const row = await db.selectFrom('calendars').selectAll().where('id', '=', calendarUuid).executeTakeFirst();
  return (
    row && {
      calendar: rowToCalendar(row),
      access: {
        url: row.url,
        username: row.username,
        passwordSealed: row.password_sealed,
        connectionUuid: row.connection_id,
        remoteCalendarId: row.remote_calendar_id,
      },
    }
  );
}

export async function deleteCalendar(db: DbOrTrx, calendarUuid: string): Promise<boolean> {
  const result = await db.deleteFrom('calendars').where('id', '=', calendarUuid).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * Claims a calendar for one sync until `leaseUntil`, under the token `claim`: only one
 * instance wins the conditional update; a sync that dies lets the lease run out, and whoever
 * claims it then gets a new token, so the old holder can no longer store or release.
 */
export async function claimCalendarSync(db: DbOrTrx, calendarUuid: string, claim: string, now: number, leaseUntil: number): Promise<boolean> {
  const result = await db
    .updateTable('calendars')
    .set({ sync_lease_until: leaseUntil, sync_claim: claim })
    .where('id', '=', calendarUuid)
    .where((eb) => eb.or([eb('sync_lease_until', 'is', null), eb('sync_lease_until', '<=', now)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Whether the sync with token `claim` still holds the calendar (read under the host's lock before storing). */
export async function holdsCalendarSync(db: DbOrTrx, calendarUuid: string, claim: string): Promise<boolean> {
  const row = await db.selectFrom('calendars').select('id').where('id', '=', calendarUuid).where('sync_claim', '=', claim).executeTakeFirst();
  return row !== undefined;
}

/** Calendars of active users due for a sync and not held by another, most overdue first. */
export async function findDueCalendars(db: DbOrTrx, now: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('calendars')
    .innerJoin('users', 'users.id', 'calendars.user_id')
    .select('calendars.id')
    .where('calendars.next_sync_at', '<=', now)
    .where((eb) => eb.or([eb('calendars.sync_lease_until', 'is', null), eb('calendars.sync_lease_until', '<=', now)]))
    .where('users.deactivated_at', 'is', null)
    .orderBy('calendars.next_sync_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Records a sync's outcome and releases the claim, if the sync with token `claim` still holds
 * it; answers whether it did (false: another sync took the calendar over after the lease).
 */
export async function recordCalendarSync(
  db: DbOrTrx,
  calendarUuid: string,
  claim: string,
  outcome: { at: number; nextSyncAt: number; error: string | null; busyCutAt?: number | null },
): Promise<boolean> {
  const released = { next_sync_at: outcome.nextSyncAt, last_sync_at: outcome.at, sync_lease_until: null, sync_claim: null };
  // Busy time stored (busyCutAt given): a success as to when it was read, even when cut short
  // (an error then, saying so); a failed read keeps the last stored busy time, and its cut.
  const stored = outcome.busyCutAt === undefined ? {} : { last_success_at: outcome.at, busy_cut_at: outcome.busyCutAt };
  const result = await db
    .updateTable('calendars')
    .set(
      outcome.error === null
        ? { ...released, ...stored, status: 'ok', last_success_at: outcome.at, last_error: null }
        : { ...released, ...stored, status: 'error', last_error: outcome.error.slice(0, 1000) },
    )
    .where('id', '=', calendarUuid)
    .where('sync_claim', '=', claim)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function recordCalendarWriteError(db: DbOrTrx, calendarUuid: string, error: string | null): Promise<void> {
  await db
    .updateTable('calendars')
    .set({ last_write_error: error === null ? null : error.slice(0, 1000) })
    .where('id', '=', calendarUuid)
    .execute();
}

/**
 * The longest booking window, in days, of the live topics the user hosts (listed as a host,
 * or a member of a team whose topic all members host); null when they host none.
 */
export async function findLongestBookingWindowDays(db: DbOrTrx, userUuid: string): Promise<number | null> {
  const row = await db
    .selectFrom('meeting_topics')
    .select((eb) => eb.fn.max('booking_window_days').as('days'))
    .where('deleted_at', 'is', null)
    .where((eb) =>
      eb.or([
        eb('id', 'in', eb.selectFrom('meeting_topic_hosts').select('topic_id').where('user_id', '=', userUuid)),
        eb.and([eb('all_team_members', '=', 1), eb('team_id', 'in', eb.selectFrom('memberships').select('team_id').where('user_id', '=', userUuid))]),
      ]),
    )
    .executeTakeFirst();
  const days = row?.days;
  return days === null || days === undefined ? null : Number(days);
}

/** Rows read per statement by the reads of spans below: a few ms each on SQLite, with the event loop let run between them. */
const SPAN_PAGE = 5_000;
/** Rows deleted per statement when a full read replaces every kept event. */
const DELETE_PAGE = 2_000;

/** A calendar's stored busy spans with their row ids, sorted (a sync writes only what changed). */
export async function findCalendarSpans(db: DbOrTrx, calendarUuid: string): Promise<{ uuid: string; start: number; end: number }[]> {
  const spans: { uuid: string; start: number; end: number }[] = [];
  for (let after: string | null = null; ; await yieldToEventLoop()) {
    let query = db.selectFrom('external_busy').select(['id', 'starts_at', 'ends_at']).where('source_id', '=', calendarUuid).orderBy('id').limit(SPAN_PAGE);
    if (after !== null) query = query.where('id', '>', after);
    const rows = await query.execute();
    for (const row of rows) spans.push({ uuid: row.id, start: Number(row.starts_at), end: Number(row.ends_at) });
    if (rows.length < SPAN_PAGE) break;
    after = rows[rows.length - 1]!.id;
  }
  return spans.sort((a, b) => a.start - b.start || a.end - b.end);
}

/** Where an incrementally read calendar's next read starts (null: from a full read). */
export async function findCalendarSyncState(db: DbOrTrx, calendarUuid: string): Promise<string | null> {
  const row = await db.selectFrom('calendars').select('sync_state').where('id', '=', calendarUuid).executeTakeFirst();
  return row?.sync_state ?? null;
}

/**
 * Applies one incremental read: after a full read every kept event is replaced; otherwise each
 * changed event's span is replaced, or dropped when it no longer blocks (`span: null`). Events
 * over before `endedBefore` are forgotten: they can block nothing again.
 */
export async function applyRemoteEventChanges(
  db: DbOrTrx,
  calendarUuid: string,
  changes: { full: boolean; events: readonly { id: string; span: { start: number; end: number } | null }[]; state: string; endedBefore: number },
): Promise<void> {
  // Every kept event, a few thousand per statement (a big calendar keeps tens of thousands).
  while (changes.full) {
    const result = await db
      .deleteFrom('calendar_remote_events')
      .where('calendar_id', '=', calendarUuid)
      .where('remote_id', 'in', (eb) => eb.selectFrom('calendar_remote_events').select('remote_id').where('calendar_id', '=', calendarUuid).limit(DELETE_PAGE))
      .executeTakeFirst();
    if (Number(result.numDeletedRows) < DELETE_PAGE) break;
    await yieldToEventLoop();
  }
  // The last word on an event wins when a read names it twice (Graph may, across pages).
  const latest = new Map(changes.events.map((event) => [event.id, event.span]));
  if (!changes.full) {
    await inChunks([...latest.keys()], 500, (ids) => db.deleteFrom('calendar_remote_events').where('calendar_id', '=', calendarUuid).where('remote_id', 'in', ids).execute());
  }
  const rows = [...latest].flatMap(([id, span]) => (span === null ? [] : [{ calendar_id: calendarUuid, remote_id: id, starts_at: span.start, ends_at: span.end }]));
  await inChunks(rows, 200, (chunk) => db.insertInto('calendar_remote_events').values(chunk).execute());
  await db.deleteFrom('calendar_remote_events').where('calendar_id', '=', calendarUuid).where('ends_at', '<', changes.endedBefore).execute();
  await db.updateTable('calendars').set({ sync_state: changes.state }).where('id', '=', calendarUuid).execute();
}

/**
 * The busy spans kept for an incrementally read calendar that overlap [from, to), sorted; read
 * a page at a time in the key's order (cheap to page, and sorted here).
 */
export async function findRemoteEventSpans(db: DbOrTrx, calendarUuid: string, range: { from: number; to: number }): Promise<{ start: number; end: number }[]> {
  const spans: { start: number; end: number }[] = [];
  for (let after: string | null = null; ; await yieldToEventLoop()) {
    let query = db
      .selectFrom('calendar_remote_events')
      .select(['remote_id', 'starts_at', 'ends_at'])
      .where('calendar_id', '=', calendarUuid)
      .where('starts_at', '<', range.to)
      .where('ends_at', '>=', range.from)
      .orderBy('remote_id')
      .limit(SPAN_PAGE);
    if (after !== null) query = query.where('remote_id', '>', after);
    const rows = await query.execute();
    for (const row of rows) spans.push({ start: Number(row.starts_at), end: Number(row.ends_at) });
    if (rows.length < SPAN_PAGE) break;
    after = rows[rows.length - 1]!.remote_id;
  }
  return spans.sort((a, b) => a.start - b.start || a.end - b.end);
}

/** The calendars reached through a connection (they go when it goes). */
export async function findCalendarsOfConnection(db: DbOrTrx, connectionUuid: string): Promise<string[]> {
  const rows = await db.selectFrom('calendars').select('id').where('connection_id', '=', connectionUuid).orderBy('id').execute();
  return rows.map((row) => row.id);
}

export async function deleteCalendarSpans(db: DbOrTrx, calendarUuid: string): Promise<number> {
  const result = await db.deleteFrom('external_busy').where('source_id', '=', calendarUuid).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * The calendars a meeting's change must reach: the calendars of `hostUuids` (its host, or every
 * host of a collective meeting) that take meetings
 * (`write_meetings`, which only a writable kind can have; when the meeting belongs there now),
 * and every calendar it was written into.
 */
export async function findCalendarWriteTargets(db: DbOrTrx, meetingUuid: string, hostUuids: readonly string[]): Promise<string[]> {
  const copies = await db.selectFrom('calendar_event_copies').select('calendar_id').where('meeting_id', '=', meetingUuid).execute();
  const targets = new Set(copies.map((row) => row.calendar_id));
  if (hostUuids.length > 0) {
    const own = await db
      .selectFrom('calendars')
      .select('id')
      .where('user_id', 'in', [...hostUuids])
      .where('write_meetings', '=', 1)
      .execute();
    for (const row of own) targets.add(row.id);
  }
  return [...targets].sort();
}

/** The iCalendar UIDs of the meetings termin wrote into any of the host's calendars. */
export async function findCopiedMeetingUuidsOfHost(db: DbOrTrx, hostUuid: string): Promise<string[]> {
  const rows = await db
    .selectFrom('calendar_event_copies')
    .innerJoin('calendars', 'calendars.id', 'calendar_event_copies.calendar_id')
    .select('calendar_event_copies.meeting_id')
    .distinct()
    .where('calendars.user_id', '=', hostUuid)
    .execute();
  return rows.map((row) => row.meeting_id);
}

export async function hasEventCopy(db: DbOrTrx, calendarUuid: string, meetingUuid: string): Promise<boolean> {
  const row = await db.selectFrom('calendar_event_copies').select('meeting_id').where('calendar_id', '=', calendarUuid).where('meeting_id', '=', meetingUuid).executeTakeFirst();
  return row !== undefined;
}

/** Notes (before the write) that the meeting is, or is about to be, in the calendar. */
export async function saveEventCopy(db: DbOrTrx, calendarUuid: string, meetingUuid: string, now: number): Promise<void> {
  await db
    .insertInto('calendar_event_copies')
    .values({ calendar_id: calendarUuid, meeting_id: meetingUuid, written_at: now })
    .onConflict((oc) => oc.columns(['calendar_id', 'meeting_id']).doUpdateSet({ written_at: now }))
    .execute();
}

export async function deleteEventCopy(db: DbOrTrx, calendarUuid: string, meetingUuid: string): Promise<void> {
  await db.deleteFrom('calendar_event_copies').where('calendar_id', '=', calendarUuid).where('meeting_id', '=', meetingUuid).execute();
}

export interface CalendarFeedRecord {
  userUuid: string;
  tokenSealed: string;
}

export async function findFeedOfUser(db: DbOrTrx, userUuid: string): Promise<CalendarFeedRecord | undefined> {
  const row = await db.selectFrom('calendar_feeds').select(['user_id', 'token_sealed']).where('user_id', '=', userUuid).executeTakeFirst();
  return row && { userUuid: row.user_id, tokenSealed: row.token_sealed };
}

export async function findFeedUserByTokenHash(db: DbOrTrx, tokenHash: string): Promise<string | undefined> {
  const row = await db.selectFrom('calendar_feeds').select('user_id').where('token_hash', '=', tokenHash).executeTakeFirst();
  return row?.user_id;
}

/** Creates the user's feed unless one exists (two first requests at once make one feed). */
export async function insertFeedIfAbsent(db: DbOrTrx, userUuid: string, tokenHash: string, tokenSealed: string, now: number): Promise<void> {
  await db
    .insertInto('calendar_feeds')
    .values({ user_id: userUuid, token_hash: tokenHash, token_sealed: tokenSealed, created_at: now })
    .onConflict((oc) => oc.column('user_id').doNothing())
    .execute();
}

/** Replaces the user's feed token (the old one stops working at once). */
export async function upsertFeed(db: DbOrTrx, userUuid: string, tokenHash: string, tokenSealed: string, now: number): Promise<void> {
  await db
    .insertInto('calendar_feeds')
    .values({ user_id: userUuid, token_hash: tokenHash, token_sealed: tokenSealed, created_at: now })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ token_hash: tokenHash, token_sealed: tokenSealed, created_at: now }))
    .execute();
}
