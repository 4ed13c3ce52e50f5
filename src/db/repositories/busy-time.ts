import { sql, type ExpressionBuilder } from 'kysely';
import type { BusyMeeting } from '../../domain/slots.js';
import { inChunks } from '../chunks.js';
import { compileOnce } from '../compiled-query.js';
import type { Database, DbOrTrx } from '../database.js';

// Busy time that is not a meeting carries EXTERNAL_BUSY_PREFIX in place of a topic uuid: it
// blocks slots like a meeting without buffers, and never counts toward any limit.
import { EXTERNAL_BUSY_PREFIX } from '../../domain/period-limits.js';

/**
 * Everything that blocks a host between two instants: their meetings (their own, and the
 * collective ones they hold as a co-host) that hold time
 * (confirmed, or awaiting payment with the hold still running at `now`) starting in
 * [from, to), with their topics' buffers, then the busy time synced from their remote
 * calendars overlapping [from, to) (it may start long before: an all-week event). One
 * statement, as a booking reads it under the host's lock (a round trip fewer on PostgreSQL).
 * Both read paths — the calculation's and the booking check's — load busy time through this
 * (or its prepared twin in fast-reads.ts, held to it by test/db/fast-reads.test.ts).
 */
export async function findBusySpans(db: DbOrTrx, hostUuid: string, from: number, to: number, now: number): Promise<BusyMeeting[]> {
  const { rows } = await busySpans(db, hostUuid, from, to, now);
  return rows.map(toBusyMeeting);
}

const busySpans = compileOnce((db, hostUuid: string, from: number, to: number, now: number) => busySpansQuery(db, { one: hostUuid }, from, to, now));

/**
 * findBusySpans with each meeting's uuid (`uuid` on its BusyMeeting): the same statement,
 * for the explanation of a start (POST /explain-schedule), which names the meetings in its
 * way. The other readers drop the column (the month view's prepared twin never reads it).
 */
export async function findNamedBusySpans(db: DbOrTrx, hostUuid: string, from: number, to: number, now: number): Promise<BusyMeeting[]> {
  const { rows } = await busySpans(db, hostUuid, from, to, now);
  return rows.map((row) => (row.source === 0 ? { ...toBusyMeeting(row), uuid: row.id } : toBusyMeeting(row)));
}

/**
 * findBusySpans for several hosts in one statement, by host (every host asked for has an
 * entry, empty when nothing blocks it): a cold team view loads 50 calendars, and on
 * PostgreSQL one round trip each was most of its time.
 */
export async function findBusySpansOfHosts(db: DbOrTrx, hostUuids: readonly string[], from: number, to: number, now: number): Promise<Map<string, BusyMeeting[]>> {
  const byHost = new Map<string, BusyMeeting[]>(hostUuids.map((uuid) => [uuid, []]));
  if (hostUuids.length === 0) return byHost;
  const rows = await busySpansQuery(db, { any: [...hostUuids] }, from, to, now).execute();
  for (const row of rows) byHost.get(row.host)?.push(toBusyMeeting(row));
  return byHost;
}

/** What a meeting's busy span is read as, whichever host it is read for. */
const MEETING_SPAN_COLUMNS = [
  'meetings.id as id',
  sql<number>`0`.as('source'),
  'meetings.starts_at as start',
  'meetings.ends_at as end',
  'meetings.topic_id as topicUuid',
  'meetings.hold_expires_at as holdExpiresAt',
  'meeting_topics.buffer_before_minutes as bufferBeforeMinutes',
  'meeting_topics.buffer_after_minutes as bufferAfterMinutes',
] as const;

/** A confirmed meeting blocks; a hold (payment, or the host's approval) blocks until it runs out. */
function blocksAt(eb: ExpressionBuilder<Database, 'meetings'>, now: number) {
  return eb.or([eb('meetings.status', '=', 'confirmed'), eb.and([eb('meetings.status', 'in', ['pending_payment', 'pending_approval']), eb('meetings.hold_expires_at', '>', now)])]);
}

/**
 * The busy-time union for one host (`{ one }`, a single parameter, so compileOnce can keep
 * it) or several (`{ any }`), ordered by host, then meetings before remote spans, by start.
 */
function busySpansQuery(db: DbOrTrx, hosts: { one: string } | { any: string[] }, from: number, to: number, now: number) {
  const meetings = db
    .selectFrom('meetings')
    .innerJoin('meeting_topics', 'meeting_topics.id', 'meetings.topic_id')
    .select(['meetings.host_user_id as host', ...MEETING_SPAN_COLUMNS])
    .where((eb) => ('one' in hosts ? eb('meetings.host_user_id', '=', hosts.one) : eb('meetings.host_user_id', 'in', hosts.any)))
    .where('meetings.starts_at', '>=', from)
    .where('meetings.starts_at', '<', to)
    .where((eb) => blocksAt(eb, now));
  // The collective meetings the host holds beside the host their date named (0030).
  const coHosted = db
    .selectFrom('meeting_co_hosts')
    .innerJoin('meetings', 'meetings.id', 'meeting_co_hosts.meeting_id')
    .innerJoin('meeting_topics', 'meeting_topics.id', 'meetings.topic_id')
    .select(['meeting_co_hosts.user_id as host', ...MEETING_SPAN_COLUMNS])
    .where((eb) => ('one' in hosts ? eb('meeting_co_hosts.user_id', '=', hosts.one) : eb('meeting_co_hosts.user_id', 'in', hosts.any)))
    .where('meeting_co_hosts.starts_at', '>=', from)
    .where('meeting_co_hosts.starts_at', '<', to)
    .where((eb) => blocksAt(eb, now));
  const external = db
    .selectFrom('external_busy')
    .select([
      'host_user_id as host',
      'id',
      sql<number>`1`.as('source'),
      'starts_at as start',
      'ends_at as end',
      sql<string>`${EXTERNAL_BUSY_PREFIX} || source_id`.as('topicUuid'),
      sql<number | null>`null`.as('holdExpiresAt'),
      sql<number>`0`.as('bufferBeforeMinutes'),
      sql<number>`0`.as('bufferAfterMinutes'),
    ])
    .where((eb) => ('one' in hosts ? eb('host_user_id', '=', hosts.one) : eb('host_user_id', 'in', hosts.any)))
    .where('starts_at', '<', to)
    .where('ends_at', '>', from);
  return meetings.unionAll(coHosted).unionAll(external).orderBy('host').orderBy('source').orderBy('start');
}

/** Built field by field: a rest pattern (`...span`) copies through the runtime's slow path, once per row of every calendar read. */
function toBusyMeeting(row: {
  host: string;
  id: string;
  source: number;
  holdExpiresAt: number | null;
  start: number;
  end: number;
  topicUuid: string;
  bufferBeforeMinutes: number;
  bufferAfterMinutes: number;
}): BusyMeeting {
  const span: BusyMeeting = {
    start: row.start,
    end: row.end,
    topicUuid: row.topicUuid,
    bufferBeforeMinutes: row.bufferBeforeMinutes,
    bufferAfterMinutes: row.bufferAfterMinutes,
  };
  if (row.source === 0) span.holdExpiresAt = row.holdExpiresAt;
  return span;
}

export function externalSpan(start: number, end: number, sourceId: string): BusyMeeting {
  return { start, end, bufferBeforeMinutes: 0, bufferAfterMinutes: 0, topicUuid: `${EXTERNAL_BUSY_PREFIX}${sourceId}` };
}

/** Replaces everything one source (a connected calendar) said about a host's busy time. */
export async function replaceExternalBusy(db: DbOrTrx, hostUuid: string, sourceId: string, spans: readonly { uuid: string; start: number; end: number }[]): Promise<void> {
  await db.deleteFrom('external_busy').where('source_id', '=', sourceId).execute();
  await insertExternalBusy(db, hostUuid, sourceId, spans);
}

/** Adds spans to a source's busy time, a few hundred rows per statement (a calendar may have tens of thousands). */
export async function insertExternalBusy(db: DbOrTrx, hostUuid: string, sourceId: string, spans: readonly { uuid: string; start: number; end: number }[]): Promise<void> {
  await inChunks(spans, 500, (chunk) =>
    db
      .insertInto('external_busy')
      .values(chunk.map((span) => ({ id: span.uuid, host_user_id: hostUuid, source_id: sourceId, starts_at: span.start, ends_at: span.end })))
      .execute(),
  );
}

/** Removes some of a source's spans, by their row ids. */
export async function deleteExternalBusy(db: DbOrTrx, sourceId: string, uuids: readonly string[]): Promise<void> {
  await inChunks(uuids, 500, (chunk) => db.deleteFrom('external_busy').where('source_id', '=', sourceId).where('id', 'in', chunk).execute());
}

/**
 * Says "this host's free time changed": every instance's cached schedules of the host stop
 * being served. Every write that changes what blocks a host calls this in its transaction.
 */
export async function bumpCalendarVersions(db: DbOrTrx, hostUuids: readonly string[]): Promise<void> {
  if (hostUuids.length === 0) return;
  await db
    .updateTable('users')
    .set((eb) => ({ calendar_version: eb('calendar_version', '+', 1) }))
    .where('id', 'in', [...new Set(hostUuids)])
    .execute();
}
