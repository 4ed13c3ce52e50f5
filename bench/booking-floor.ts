/**
 * Does a booking cost little more than its own SQL? (issue 24, item 2.) Per round, against one
 * server in its own process (100 hosts, as bench/bookings.ts): the server's CPU µs per
 * `GET /healthz` and per booking (`POST /schedule`, 20 connections), and then the floor: the
 * very statements one booking runs, through the driver alone (better-sqlite3 or pg; no HTTP,
 * no Fastify, no Kysely), in a loop in a process of its own, with its CPU µs per booking.
 * On SQLite the floor shares commits as the service did in the same round (the service's
 * statement counts say how many bookings each commit carried); on PostgreSQL it runs 20
 * bookings at once over a pool of 20 with named statements, as the service does. CPU is
 * the Node processes' own, as in bench/bookings.ts: PostgreSQL's is in neither figure.
 *
 * The server counts its statements by SQL text (BENCH_COUNT_STATEMENTS): every statement a
 * booking ran must be one the floor runs, as often, or the run says so (the floor is then
 * out of date: update SQL below from the server's list).
 *
 * Each round also measures a bare server: the floor's booking behind node:http alone
 * (serveBare), which splits the distance in two: bare ÷ (floor + /healthz), what any Node
 * server pays to take a booking over HTTP and run those statements, and service ÷ bare, what
 * the service's own stack (Fastify, Kysely, the use case) adds on top (goal, issue 44: ≤ 1.4
 * on both databases). On SQLite the bare server shares commits as the service does: the
 * requests read in one turn of the event loop commit together in the next.
 *
 * Last line: service ÷ (floor + /healthz), the median round. Goal (issue 24): ≤ 1.5.
 * Run: npx tsx bench/booking-floor.ts [seconds-per-case=5] [rounds=3] [sqlite|postgres …]
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import autocannon from 'autocannon';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { bookingBodies, formatNumber, median, postgresReachable, spawnBenchServer, threadCpuMicros, type BenchDialect } from './support.js';

/** A booking's statements as the service sends them (with `?`; PostgreSQL's `$n` are numbered from these). */
const SQL = {
  apiKey:
    'select "api_keys"."id" as "keyUuid", "api_keys"."secret_hash" as "secretHash", "api_keys"."account_id" as "accountUuid", "api_keys"."user_id" as "userUuid", "api_keys"."last_used_at" as "lastUsedAt", "users"."username" as "username" from "api_keys" inner join "users" on "users"."id" = "api_keys"."user_id" where "api_keys"."lookup" = ? and "api_keys"."revoked_at" is null and "users"."deactivated_at" is null',
  accountAndTopic:
    'select "meeting_topics".*, "accounts"."id" as "a_id", "accounts"."name" as "a_name", "accounts"."default_timezone" as "a_default_timezone", "accounts"."max_users" as "a_max_users", "accounts"."places" as "a_places", "accounts"."owner_user_id" as "a_owner_user_id", "accounts"."created_at" as "a_created_at" from "accounts" left join "meeting_topics" on "meeting_topics"."account_id" = "accounts"."id" and "meeting_topics"."id" = ? and "meeting_topics"."deleted_at" is null where "accounts"."id" = ?',
  lockHosts:
    'update "users" set "calendar_version" = "calendar_version" + ? where "users"."username" in (?) and "users"."deactivated_at" is null and (exists (select "meeting_topic_hosts"."user_id" from "meeting_topic_hosts" where "meeting_topic_hosts"."topic_id" = ? and "meeting_topic_hosts"."user_id" = "users"."id") or exists (select "memberships"."user_id" from "meeting_topics" inner join "memberships" on "memberships"."team_id" = "meeting_topics"."team_id" where "meeting_topics"."id" = ? and "meeting_topics"."all_team_members" = ? and "memberships"."user_id" = "users"."id")) returning "users"."id", "users"."username", "users"."availability", "users"."place_details", "users"."timezone", "users"."limit_daily", "users"."limit_weekly"',
  busy: 'select "meetings"."host_user_id" as "host", "meetings"."id" as "id", 0 as "source", "meetings"."starts_at" as "start", "meetings"."ends_at" as "end", "meetings"."topic_id" as "topicUuid", "meetings"."hold_expires_at" as "holdExpiresAt", "meeting_topics"."buffer_before_minutes" as "bufferBeforeMinutes", "meeting_topics"."buffer_after_minutes" as "bufferAfterMinutes" from "meetings" inner join "meeting_topics" on "meeting_topics"."id" = "meetings"."topic_id" where "meetings"."host_user_id" = ? and "meetings"."starts_at" >= ? and "meetings"."starts_at" < ? and ("meetings"."status" = ? or ("meetings"."status" in (?, ?) and "meetings"."hold_expires_at" > ?)) union all select "meeting_co_hosts"."user_id" as "host", "meetings"."id" as "id", 0 as "source", "meetings"."starts_at" as "start", "meetings"."ends_at" as "end", "meetings"."topic_id" as "topicUuid", "meetings"."hold_expires_at" as "holdExpiresAt", "meeting_topics"."buffer_before_minutes" as "bufferBeforeMinutes", "meeting_topics"."buffer_after_minutes" as "bufferAfterMinutes" from "meeting_co_hosts" inner join "meetings" on "meetings"."id" = "meeting_co_hosts"."meeting_id" inner join "meeting_topics" on "meeting_topics"."id" = "meetings"."topic_id" where "meeting_co_hosts"."user_id" = ? and "meeting_co_hosts"."starts_at" >= ? and "meeting_co_hosts"."starts_at" < ? and ("meetings"."status" = ? or ("meetings"."status" in (?, ?) and "meetings"."hold_expires_at" > ?)) union all select "host_user_id" as "host", "id", 1 as "source", "starts_at" as "start", "ends_at" as "end", ? || source_id as "topicUuid", null as "holdExpiresAt", 0 as "bufferBeforeMinutes", 0 as "bufferAfterMinutes" from "external_busy" where "host_user_id" = ? and "starts_at" < ? and "ends_at" > ? order by "host", "source", "start"',
  insertMeeting:
    'insert into "meetings" ("id", "account_id", "topic_id", "team_id", "host_user_id", "booking_id", "starts_at", "ends_at", "status", "hold_expires_at", "place", "location", "participant_name", "participant_email", "participant_phone", "participant_timezone", "participant_lang", "participant_locale", "note", "price_variant_id", "form", "metadata", "invoice", "sequence", "created_at", "updated_at", "cancelled_at", "cancel_reason", "booked_by_key_id", "guests", "no_show", "decline_reason", "collective") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  timeOff: 'select "start_at", "end_at" from "time_off" where "user_id" = ? and "end_at" > ? and "start_at" < ? order by "start_at"',
  insertEvent: 'insert into "events" ("id", "account_id", "type", "subject_id", "occurred_at", "data") values (?, ?, ?, ?, ?, ?)',
  insertOutbox: 'insert into "outbox" ("id", "kind", "payload", "status", "next_attempt_at", "last_error", "created_at", "done_at") values (?, ?, ?, ?, ?, ?, ?, ?)',
  // PostgreSQL writes the event and its job in one statement (one round trip).
  insertEventWithJob:
    'with "recorded" as (insert into "events" ("id", "account_id", "type", "subject_id", "occurred_at", "data") values (?, ?, ?, ?, ?, ?) returning "id") insert into "outbox" ("id", "kind", "payload", "status", "next_attempt_at", "last_error", "created_at", "done_at") values (?, ?, ?, ?, ?, ?, ?, ?)',
};

/** `?` → `$1, $2, …`: what Kysely's PostgreSQL compiler writes for the same query. */
function numbered(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

/** What the floor process needs to know (its argument, as JSON). */
interface FloorJob {
  dialect: BenchDialect;
  database: string;
  topic: string;
  /** [start, username] of each booking, in order. */
  slots: [number, string][];
  seconds: number;
  /** SQLite: the share of bookings that committed alone, and the mean size of the shared commits, as the service had them. */
  alone: number;
  sharedSize: number;
}

interface FloorResult {
  bookings: number;
  cpuMicros: number;
  /** The part of cpuMicros spent off the main thread (V8's compiler and GC helpers); null without /proc. */
  backgroundMicros: number | null;
  statements: Record<string, number>;
  /** The free slots ran out well before the time did: a short run whose fixed costs weigh on each booking. */
  exhausted: boolean;
  /** How many of the job's slots it took (the warm-up's too): the rest stay free for later rounds. */
  used: number;
}

/** The booking's data as the service writes it (the values, not how they are computed). */
function bookingValues(ids: { account: string; topic: string; team: string; key: string }, host: string, start: number, now: number) {
  const meeting = randomUUID();
  const event = randomUUID();
  const booking = randomUUID();
  const location = '{"place":"zoom","address":null,"url":null,"phone":null,"text":null,"source":null}';
  const meetingRow = [
    meeting,
    ids.account,
    ids.topic,
    ids.team,
    host,
    booking,
    start,
    start + 1_800_000,
    'confirmed',
    null,
    'zoom',
    location,
    'P',
    'p@bench.test',
    null,
    'UTC',
    'en',
    null,
    null,
    null,
    '{}',
    '{}',
    null,
    0,
    now,
    now,
    null,
    null,
    ids.key,
    '[]',
    null,
    null,
    0,
  ];
  const data = `{"meeting":{"uuid":"${meeting}","accountUuid":"${ids.account}","topicUuid":"${ids.topic}","teamUuid":"${ids.team}","hostUuid":"${host}","hostUsername":"host","bookingUuid":"${booking}","start":${start},"end":${start + 1_800_000},"status":"confirmed","holdExpiresAt":null,"place":"zoom","location":${location},"participant":{"name":"P","email":"p@bench.test","phone":null,"timezone":"UTC","lang":"en","locale":null},"note":null,"priceVariantUuid":null,"form":{},"metadata":{},"invoice":null,"sequence":0,"createdAt":${now},"updatedAt":${now},"cancelledAt":null,"cancelReason":null,"bookedByKeyUuid":"${ids.key}","noShow":null,"declineReason":null}}`;
  const eventRow = [event, ids.account, 'meeting.scheduled', meeting, now, data];
  const outboxRow = [randomUUID(), 'event', `{"eventUuid":"${event}"}`, 'pending', now, null, now, null];
  return { meetingRow, eventRow, outboxRow };
}

/**
 * The calendar span a booking reads around its start: bookingCalendarSpan for this topic, with
 * no weekly or monthly limit, is its busy window alone (3 days and 30 minutes each side; it
 * was 11 days and 30 minutes while every booking read whole weeks around its starts).
 */
const REACH_MS = 261_000_000;

function busyValues(host: string, start: number, now: number) {
  const from = start - REACH_MS;
  const to = start + 1_800_000 + REACH_MS;
  // Meetings the host holds, then collective ones they co-host (the same parameters), then remote busy time.
  const meetings = [host, from, to, 'confirmed', 'pending_payment', 'pending_approval', now];
  return [...meetings, ...meetings, 'external:', host, to, from];
}

/** The host's time off over the same window as its busy time (loadHostCalendar reads both). */
function timeOffValues(host: string, start: number) {
  return [host, start - REACH_MS, start + 1_800_000 + REACH_MS];
}

/** A floor run's figures, from its CPU and its start; `used` slots of the job's were taken (the warm-up's too). */
function floorResult(
  job: FloorJob,
  bookings: number,
  cpu: NodeJS.CpuUsage,
  threadsBefore: ReturnType<typeof threadCpuMicros>,
  began: number,
  used: number,
  statements: Record<string, number>,
): FloorResult {
  const short = Date.now() - began < job.seconds * 900;
  const threadsAfter = threadCpuMicros();
  const backgroundMicros = threadsBefore && threadsAfter ? (threadsAfter.background - threadsBefore.background) / Math.max(1, bookings) : null;
  return { bookings, cpuMicros: (cpu.user + cpu.system) / Math.max(1, bookings), backgroundMicros, statements, exhausted: short && used >= job.slots.length, used };
}

/** The floor's own warm-up: its few functions are optimised within this (its background CPU per booking is then steady). */
const FLOOR_WARM_UP_MS = 2_000;

/**
 * A booking on SQLite through better-sqlite3 alone, as the floor and the bare server make it:
 * one connection, statements prepared once, the key looked up per request, and a batch of
 * bookings sharing one BEGIN IMMEDIATE … COMMIT, each in a savepoint when there are several
 * (as src/db/transaction.ts's commitTogether runs them).
 */
function openSqliteBooker(database: string, topic: string) {
  const db = new SqliteDatabase(database);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  const statements: Record<string, number> = {};
  const prepare = (text: string) => {
    const statement = db.prepare(text);
    return {
      run: (...values: unknown[]) => {
        statements[text] = (statements[text] ?? 0) + 1;
        return statement.reader ? statement.all(...values) : statement.run(...values);
      },
    };
  };
  const ids = sqliteIds(db, topic);
  const apiKey = prepare(SQL.apiKey);
  const begin = prepare('begin immediate');
  const commit = prepare('commit');
  const savepoint = prepare('savepoint grouped');
  const release = prepare('release grouped');
  const accountAndTopic = prepare(SQL.accountAndTopic);
  const lockHosts = prepare(SQL.lockHosts);
  const busy = prepare(SQL.busy);
  const timeOff = prepare(SQL.timeOff);
  const insertMeeting = prepare(SQL.insertMeeting);
  const insertEvent = prepare(SQL.insertEvent);
  const insertOutbox = prepare(SQL.insertOutbox);
  const bookOne = ([start, username]: [number, string]): string => {
    const now = Date.now();
    accountAndTopic.run(topic, ids.account);
    const [host] = lockHosts.run(1, username, topic, topic, 1) as { id: string }[];
    busy.run(...busyValues(host!.id, start, now));
    timeOff.run(...timeOffValues(host!.id, start));
    const values = bookingValues(ids, host!.id, start, now);
    insertMeeting.run(...values.meetingRow);
    insertEvent.run(...values.eventRow);
    insertOutbox.run(...values.outboxRow);
    return values.meetingRow[0] as string;
  };
  /** The key's lookup, once per request before its transaction queues (as the service's authentication). */
  const lookUpKey = () => apiKey.run(ids.lookup);
  /** Books the slots in one commit; returns their meetings' uuids. */
  const bookBatch = (batch: [number, string][]): string[] => {
    begin.run();
    const uuids: string[] = [];
    for (const slot of batch) {
      if (batch.length > 1) savepoint.run();
      uuids.push(bookOne(slot));
      if (batch.length > 1) release.run();
    }
    commit.run();
    return uuids;
  };
  return { lookUpKey, bookBatch, statements, close: () => db.close() };
}

/** The floor on SQLite: one connection, statements prepared once, commits shared as the service shared them. */
function sqliteFloor(job: FloorJob): FloorResult {
  const { lookUpKey, bookBatch, statements, close } = openSqliteBooker(job.database, job.topic);
  let next = 0;
  const run = (until: number, counted: boolean) => {
    let bookings = 0;
    let alone = 0;
    let sharedBatches = 0;
    let shared = 0;
    while (Date.now() < until && next < job.slots.length) {
      // Alone as often as in the service; otherwise a shared commit of the service's mean size.
      const goesAlone = alone < job.alone * (bookings + 1) || job.sharedSize < 2;
      const size = goesAlone ? 1 : Math.max(2, Math.round(job.sharedSize * (sharedBatches + 1) - shared));
      const batch = job.slots.slice(next, next + size);
      next += batch.length;
      // The key is looked up per request, before its transaction queues.
      for (let i = 0; i < batch.length; i += 1) lookUpKey();
      bookBatch(batch);
      bookings += batch.length;
      if (batch.length === 1) alone += 1;
      else {
        sharedBatches += 1;
        shared += batch.length;
      }
    }
    if (!counted) for (const key of Object.keys(statements)) delete statements[key];
    return bookings;
  };
  // Warm-up: the first bookings run unoptimised code.
  run(Date.now() + FLOOR_WARM_UP_MS, false);
  const threads = threadCpuMicros();
  const before = process.cpuUsage();
  const began = Date.now();
  const bookings = run(began + job.seconds * 1_000, true);
  const result = floorResult(job, bookings, process.cpuUsage(before), threads, began, next, statements);
  close();
  return result;
}

function sqliteIds(db: SqliteDatabase.Database, topic: string) {
  const row = db.prepare('select account_id as account, team_id as team from meeting_topics where id = ?').get(topic) as { account: string; team: string };
  const key = db.prepare('select id, lookup from api_keys where account_id = ? and revoked_at is null').get(row.account) as { id: string; lookup: string };
  return { account: row.account, team: row.team, topic, key: key.id, lookup: key.lookup };
}

/**
 * A booking on PostgreSQL through pg alone, as the floor and the bare server make it: each
 * statement named (prepared once per connection) as the service names them.
 */
async function openPostgresBooker(database: string, topic: string) {
  const pool = new pg.Pool({
    connectionString: database,
    max: 20,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === pg.types.builtins.INT8 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  const statements: Record<string, number> = {};
  const named = new Map<string, string>();
  const query = (client: pg.Pool | pg.PoolClient, text: string, values: unknown[] = []) => {
    statements[text] = (statements[text] ?? 0) + 1;
    if (values.length === 0) return client.query(text);
    let name = named.get(text);
    if (name === undefined) {
      name = `floor_${named.size + 1}`;
      named.set(text, name);
    }
    return client.query({ name, text, values });
  };
  const sql = Object.fromEntries(Object.entries(SQL).map(([key, text]) => [key, numbered(text)])) as typeof SQL;
  const { rows } = await pool.query(
    'select meeting_topics.account_id as account, meeting_topics.team_id as team, api_keys.id as key, api_keys.lookup from meeting_topics join api_keys on api_keys.account_id = meeting_topics.account_id where meeting_topics.id = $1 and api_keys.revoked_at is null',
    [topic],
  );
  const ids = { ...(rows[0] as { account: string; team: string; key: string; lookup: string }), topic };
  /** Books [start, username]; returns the meeting's uuid. */
  const bookOne = async ([start, username]: [number, string]): Promise<string> => {
    await query(pool, sql.apiKey, [ids.lookup]);
    const client = await pool.connect();
    try {
      const now = Date.now();
      // BEGIN carries the transaction's timeouts, as src/db/connect.ts's applyTimeouts sends it (one round trip).
      await query(client, POSTGRES_BEGIN);
      await query(client, sql.accountAndTopic, [topic, ids.account]);
      const locked = await query(client, sql.lockHosts, [1, username, topic, topic, 1]);
      const host = (locked.rows[0] as { id: string }).id;
      await query(client, sql.busy, busyValues(host, start, now));
      await query(client, sql.timeOff, timeOffValues(host, start));
      const values = bookingValues(ids, host, start, now);
      await query(client, sql.insertMeeting, values.meetingRow);
      await query(client, sql.insertEventWithJob, [...values.eventRow, ...values.outboxRow]);
      await query(client, 'commit');
      return values.meetingRow[0] as string;
    } finally {
      client.release();
    }
  };
  return { bookOne, statements, close: () => pool.end() };
}

/** The service's BEGIN on PostgreSQL with its default timeouts (DEFAULT_DATABASE_TIMEOUTS), as the bench server runs. */
const POSTGRES_BEGIN = 'begin; set local statement_timeout = 15000; set local lock_timeout = 15000; set local idle_in_transaction_session_timeout = 15000';

/** The floor on PostgreSQL: 20 bookings at once over a pool of 20. */
async function postgresFloor(job: FloorJob): Promise<FloorResult> {
  const { bookOne, statements, close } = await openPostgresBooker(job.database, job.topic);
  let next = 0;
  const run = async (until: number) => {
    let bookings = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (Date.now() < until && next < job.slots.length) {
          await bookOne(job.slots[next++]!);
          bookings += 1;
        }
      }),
    );
    return bookings;
  };
  await run(Date.now() + FLOOR_WARM_UP_MS);
  for (const key of Object.keys(statements)) delete statements[key];
  const threads = threadCpuMicros();
  const before = process.cpuUsage();
  const began = Date.now();
  const bookings = await run(began + job.seconds * 1_000);
  const result = floorResult(job, bookings, process.cpuUsage(before), threads, began, next, statements);
  await close();
  return result;
}

/** At most this many bookings share one commit, as MAX_UNITS_PER_COMMIT in src/db/transaction.ts. */
const BARE_MAX_PER_COMMIT = 32;

/** SQLite's bare booking: the key looked up at once, then queued for the next turn's shared commit. */
function sqliteBareBooker(database: string, topic: string) {
  const { lookUpKey, bookBatch, statements } = openSqliteBooker(database, topic);
  const queue: { slot: [number, string]; resolve(uuid: string): void; reject(error: unknown): void }[] = [];
  let draining = false;
  const drain = () => {
    const batch = queue.splice(0, BARE_MAX_PER_COMMIT);
    try {
      const uuids = bookBatch(batch.map((entry) => entry.slot));
      for (const [i, entry] of batch.entries()) entry.resolve(uuids[i]!);
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
    if (queue.length > 0) setImmediate(drain);
    else draining = false;
  };
  const bookOne = (slot: [number, string]) => {
    lookUpKey();
    return new Promise<string>((resolve, reject) => {
      queue.push({ slot, resolve, reject });
      if (draining) return;
      draining = true;
      setImmediate(drain);
    });
  };
  return { bookOne, statements };
}

/**
 * The bare server: the floor's booking behind node:http alone — no Fastify, no Kysely, none
 * of the service's code — answering the same POST /schedule bodies with a 201. It splits the
 * service's distance from the floor in two: what any Node server pays to take a booking over
 * HTTP and run its statements (bare ÷ floor), and what the service's own stack adds on top
 * (service ÷ bare). On SQLite it shares commits as the service does (src/db/transaction.ts):
 * the bookings whose requests arrive in one turn of the event loop queue, and the next turn
 * runs up to 32 of them in one transaction, each in a savepoint. It prints `BARE_PORT <port>`;
 * GET /bench/cpu is its CPU so far.
 */
async function serveBare(dialect: BenchDialect, database: string, topic: string): Promise<void> {
  const { bookOne: book, statements } = dialect === 'sqlite' ? sqliteBareBooker(database, topic) : await openPostgresBooker(database, topic);
  const server = http.createServer((request, response) => {
    if (request.method === 'GET' && (request.url === '/bench/cpu' || request.url === '/bench/commits')) {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(request.url === '/bench/cpu' ? process.cpuUsage() : { commits: statements.commit ?? 0 }));
      return;
    }
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (body === '') {
        response.writeHead(400);
        response.end();
        return;
      }
      const { dates } = JSON.parse(body) as { dates: [{ start: string; username: string }] };
      book([Date.parse(dates[0].start), dates[0].username]).then(
        (uuid) => {
          response.writeHead(201, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ meetings: [{ uuid }] }));
        },
        (error: Error) => {
          response.writeHead(500, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: error.message }));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  console.log(`BARE_PORT ${(server.address() as { port: number }).port}`);
}

/** Runs the floor in a process of its own (this file with --floor), so that nothing else shares its CPU figure. */
function runFloor(job: FloorJob): Promise<FloorResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/booking-floor.ts', '--floor'], { stdio: ['pipe', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(output) as FloorResult) : reject(new Error(`the floor process exited with ${code}`))));
    child.stdin.end(JSON.stringify(job));
  });
}

if (process.argv.includes('--bare')) {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const job = JSON.parse(input) as { dialect: BenchDialect; database: string; topic: string };
  await serveBare(job.dialect, job.database, job.topic);
  // Serves until killed.
  await new Promise(() => undefined);
}

if (process.argv.includes('--floor')) {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const job = JSON.parse(input) as FloorJob;
  const result = job.dialect === 'sqlite' ? sqliteFloor(job) : await postgresFloor(job);
  process.stdout.write(JSON.stringify(result));
  process.exit(0);
}

const seconds = Number(process.argv[2] ?? 5);
const rounds = Number(process.argv[3] ?? 3);
const asked = process.argv.slice(4).filter((arg): arg is BenchDialect => arg === 'sqlite' || arg === 'postgres');
const CONNECTIONS = 20;
/** Warm-up rounds of bookings end once the server's threads other than its main one take at most this share of its CPU. */
const SETTLED_BACKGROUND_SHARE = 0.08;
const WARM_UP_MAX_ROUNDS = 6;

/** The server's CPU µs so far, and the part of it off its main thread (null without /proc). */
async function serverCpu(url: string): Promise<{ total: number; background: number | null }> {
  const usage = (await (await fetch(`${url}/bench/cpu`)).json()) as { user: number; system: number; threads: { background: number } | null };
  return { total: usage.user + usage.system, background: usage.threads?.background ?? null };
}

async function serverStatements(url: string): Promise<Record<string, number>> {
  return (await fetch(`${url}/bench/statements`)).json() as Promise<Record<string, number>>;
}

/** The server's CPU µs per request of a load, and the statements it ran meanwhile. */
async function measure(url: string, options: autocannon.Options, count: (result: autocannon.Result, statuses: Map<number, number>, statements: Record<string, number>) => number) {
  const statuses = new Map<number, number>();
  const cpuBefore = await serverCpu(url);
  const statementsBefore = await serverStatements(url);
  const result = await autocannon({
    ...options,
    connections: CONNECTIONS,
    duration: seconds,
    setupClient: (client: autocannon.Client) => client.on('response', (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1)),
  } as autocannon.Options);
  // Requests still in flight when the load stops finish on the server (their CPU is counted): wait for them.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const cpuAfter = await serverCpu(url);
  const statementsAfter = await serverStatements(url);
  const ran = Object.fromEntries(Object.entries(statementsAfter).map(([text, n]) => [text, n - (statementsBefore[text] ?? 0)]));
  const requests = count(result, statuses, ran);
  const background = cpuAfter.background !== null && cpuBefore.background !== null ? (cpuAfter.background - cpuBefore.background) / Math.max(1, requests) : null;
  return { requests, cpuMicros: (cpuAfter.total - cpuBefore.total) / Math.max(1, requests), backgroundMicros: background, statements: ran, statuses };
}

/** Statements whose rate per booking differs between the service and the floor by more than 10% (ignoring those under 0.1 a booking in both: the key's last use, once a minute). */
function statementDifferences(service: Record<string, number>, serviceBookings: number, floor: Record<string, number>, floorBookings: number): string[] {
  const texts = new Set([...Object.keys(service), ...Object.keys(floor)]);
  const differences: string[] = [];
  for (const text of texts) {
    const a = (service[text] ?? 0) / serviceBookings;
    const b = (floor[text] ?? 0) / floorBookings;
    if (Math.max(a, b) < 0.1 || Math.abs(a - b) <= 0.1 * Math.max(a, b)) continue;
    differences.push(`  ${a.toFixed(2)} vs ${b.toFixed(2)} a booking: ${text.slice(0, 120)}`);
  }
  return differences;
}

async function runDialect(dialect: BenchDialect): Promise<number> {
  const server = await spawnBenchServer({ BENCH_DIALECT: dialect, BENCH_SEED: 'none', BENCH_HOSTS: '100', BENCH_COUNT_STATEMENTS: '1' });
  try {
    const { info } = server;
    const bodies = bookingBodies(info);
    // The service books from the front of the list, the floor from the back: distinct slots, similar calendars.
    const slots = bodies.map((body) => {
      const parsed = JSON.parse(body) as { dates: [{ start: string; username: string }] };
      return [Date.parse(parsed.dates[0].start), parsed.dates[0].username] as [number, string];
    });
    let nextBody = 0;
    let nextFloorSlot = slots.length;
    const book = () =>
      measure(
        info.url,
        {
          url: `${info.url}/api/v1/schedule`,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-service-api-key': info.apiKey },
          requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, body: bodies[nextBody++ % bodies.length] }) }],
        } as autocannon.Options,
        // Every booking the server made, those whose answer came after the load stopped too (all of their CPU is counted).
        (_result, statuses, statements) => Math.max(statuses.get(201) ?? 0, statements[SQL.insertMeeting] ?? 0),
      );
    // Warm-up: the first seconds run unoptimised code, and the server compiles its remaining
    // schemas in the background after it starts listening (src/http/deferred-compile.ts).
    await measure(info.url, { url: `${info.url}/healthz` } as autocannon.Options, (result) => result.requests.total);
    // A fresh server goes on optimising its booking path on V8's background compiler thread
    // for tens of seconds under load on 2 cores shared with PostgreSQL (its CPU counts in a
    // booking’s figure: 10–20% of it in a round after 5 s of bookings, 3–6% once settled), so
    // the measured rounds start once that share has settled, or after WARM_UP_MAX_ROUNDS. On
    // SQLite it settles within a round or two (the second core is free); a quarter of the
    // slots at most, so the floor does not run out.
    let warmUps = 0;
    for (;;) {
      const warming = await book();
      warmUps += 1;
      const share = warming.backgroundMicros === null ? 0 : warming.backgroundMicros / warming.cpuMicros;
      if (share <= SETTLED_BACKGROUND_SHARE || warmUps >= WARM_UP_MAX_ROUNDS || nextBody > slots.length / 4) {
        console.log(
          `warm-up: ${warmUps} × ${seconds} s of bookings; the server's background threads (V8's compiler, GC helpers) ${warming.backgroundMicros === null ? 'not measured (no /proc)' : `${formatNumber(100 * share)}% of its CPU in the last one`}`,
        );
        break;
      }
    }
    console.log(
      dialect.padEnd(9),
      'round'.padEnd(6),
      'healthz µs'.padStart(11),
      'booking µs'.padStart(11),
      '(bg)'.padStart(5),
      'floor µs'.padStart(9),
      '(bg)'.padStart(5),
      'bookings'.padStart(9),
      'floor bk'.padStart(9),
      'per commit'.padStart(11),
      'ratio'.padStart(7),
    );
    const ratios: number[] = [];
    for (let round = 1; round <= rounds; round += 1) {
      const healthz = await measure(info.url, { url: `${info.url}/healthz` } as autocannon.Options, (result) => result.requests.total);
      const service = await book();
      const bookings = service.requests;
      if (bookings === 0) throw new Error(`no booking was made: ${JSON.stringify(Object.fromEntries(service.statuses))}`);
      const commits = service.statements.commit ?? 0;
      const savepoints = service.statements['savepoint grouped'] ?? 0;
      const aloneShare = Math.max(0, (bookings - savepoints) / bookings);
      const sharedSize = savepoints / Math.max(1, commits - (bookings - savepoints));
      // Enough slots for any rate this machine reaches, its warm-up included (PostgreSQL's floor books a few times slower).
      const take = Math.min(nextFloorSlot - nextBody - 1, (dialect === 'sqlite' ? 6_000 : 2_500) * (seconds + 2));
      const floorSlots = slots.slice(nextFloorSlot - take, nextFloorSlot).reverse();
      const database = dialect === 'sqlite' ? info.databaseFile! : info.databaseUrl!;
      const floor = await runFloor({ dialect, database, topic: info.topic, slots: floorSlots, seconds, alone: aloneShare, sharedSize });
      nextFloorSlot -= floor.used;
      // The floor's unused slots stay free for the bare server and later rounds.
      const ratio = service.cpuMicros / (floor.cpuMicros + healthz.cpuMicros);
      // A floor that ran out of free slots ran short, its fixed costs spread over fewer bookings: not a figure.
      if (!floor.exhausted) ratios.push(ratio);
      console.log(
        ''.padEnd(9),
        String(round).padEnd(6),
        formatNumber(healthz.cpuMicros).padStart(11),
        formatNumber(service.cpuMicros).padStart(11),
        (service.backgroundMicros === null ? '-' : formatNumber(service.backgroundMicros)).padStart(5),
        formatNumber(floor.cpuMicros).padStart(9),
        (floor.backgroundMicros === null ? '-' : formatNumber(floor.backgroundMicros)).padStart(5),
        formatNumber(bookings).padStart(9),
        formatNumber(floor.bookings).padStart(9),
        formatNumber(bookings / Math.max(1, commits), 1).padStart(11),
        formatNumber(ratio, 2).padStart(7),
      );
      if (floor.exhausted) console.log('  the floor ran out of free slots before its time: this round is not counted (fewer rounds, or shorter ones)');
      const differences = statementDifferences(service.statements, bookings, floor.statements, floor.bookings);
      if (differences.length > 0) console.log(`  the floor does not run what a booking runs (service vs floor):\n${differences.join('\n')}`);
      {
        const bareTake = Math.min(nextFloorSlot - nextBody - 1, (dialect === 'sqlite' ? 4_000 : 2_500) * (seconds + BARE_WARM_UP_S + 1));
        const bare = await measureBare(dialect, database, info.topic, bodies.slice(nextFloorSlot - bareTake, nextFloorSlot).reverse());
        nextFloorSlot -= bare.used;
        const stack = service.cpuMicros / bare.cpuMicros;
        const http = bare.cpuMicros / (floor.cpuMicros + healthz.cpuMicros);
        bareRatios[dialect].push({ stack, http });
        console.log(
          `  bare server (node:http + the floor's statements): ${formatNumber(bare.cpuMicros)} µs a booking (${formatNumber(bare.bookings)}, ${formatNumber(bare.perCommit, 1)} per commit); service ÷ bare ${formatNumber(stack, 2)}×, bare ÷ (floor + /healthz) ${formatNumber(http, 2)}×`,
        );
      }
    }
    return median(ratios);
  } finally {
    await server.stop();
  }
}

/** The bare server's own warm-up before its measured load. */
const BARE_WARM_UP_S = 2;
const bareRatios: Record<BenchDialect, { stack: number; http: number }[]> = { sqlite: [], postgres: [] };

/** The bare server (serveBare) in a process of its own: its CPU µs per booking of `seconds` of load, after its warm-up. */
async function measureBare(
  dialect: BenchDialect,
  database: string,
  topic: string,
  bareBodies: string[],
): Promise<{ cpuMicros: number; bookings: number; perCommit: number; used: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/booking-floor.ts', '--bare'], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    child.stdin.end(JSON.stringify({ dialect, database, topic }));
    const port = await new Promise<string>((resolve, reject) => {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const found = /BARE_PORT (\d+)/.exec(output);
        if (found) resolve(found[1]!);
      });
      child.once('exit', (code) => reject(new Error(`the bare server exited with ${code}`)));
    });
    const url = `http://127.0.0.1:${port}`;
    const cpu = async () => (await serverCpu(url)).total;
    const commits = async () => ((await (await fetch(`${url}/bench/commits`)).json()) as { commits: number }).commits;
    let next = 0;
    let created = 0;
    const load = (duration: number) =>
      autocannon({
        url: `${url}/schedule`,
        method: 'POST',
        connections: CONNECTIONS,
        duration,
        headers: { 'content-type': 'application/json' },
        requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, body: bareBodies[next++ % bareBodies.length] }) }],
        setupClient: (client: autocannon.Client) =>
          client.on('response', (status: number) => {
            if (status === 201) created += 1;
          }),
      } as autocannon.Options);
    await load(BARE_WARM_UP_S);
    const before = await cpu();
    const commitsBefore = await commits();
    created = 0;
    await load(seconds);
    // As for the service: what was in flight when the load stopped finishes and is counted.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const used = (await cpu()) - before;
    const committed = (await commits()) - commitsBefore;
    if (next > bareBodies.length) throw new Error('the bare server ran out of free slots');
    return { cpuMicros: used / Math.max(1, created), bookings: created, perCommit: created / Math.max(1, committed), used: Math.min(next, bareBodies.length) };
  } finally {
    child.kill();
  }
}

const dialects: BenchDialect[] = asked.length > 0 ? asked : (await postgresReachable()) ? ['sqlite', 'postgres'] : ['sqlite'];
console.log(
  `POST /schedule vs its own SQL through the driver alone, 100 hosts, ${CONNECTIONS} connections, ${seconds} s per case, ${rounds} rounds, Node ${process.version}, ${os.cpus().length} CPUs, load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
console.log(
  'CPU µs per request of the server process (healthz, booking) and of the floor process (floor), each with the part off its main thread (bg: V8’s compiler, GC helpers); PostgreSQL’s own CPU is in neither.',
);
const results: string[] = [];
for (const dialect of dialects) results.push(`${dialect} ${formatNumber(await runDialect(dialect), 2)}×`);
/** The median and the spread (lowest–highest) of the rounds' ratios. */
const spread = (values: number[]) => `${formatNumber(median(values), 2)}× (${formatNumber(Math.min(...values), 2)}–${formatNumber(Math.max(...values), 2)})`;
for (const dialect of dialects) {
  const ratios = bareRatios[dialect];
  if (ratios.length === 0) continue;
  console.log(
    `${dialect}, bare server: service ÷ bare ${spread(ratios.map((r) => r.stack))} (the service's own stack; goal ≤ 1.4), bare ÷ (floor + /healthz) ${spread(ratios.map((r) => r.http))} (HTTP and a server around the same statements), median rounds (spread)`,
  );
}
if (!dialects.includes('postgres') && asked.length === 0) console.log('PostgreSQL not reachable: skipped.');
console.log(`booking ÷ (SQL floor + /healthz), CPU per booking, median round: ${results.join(', ')} (goal ≤ 1.5)`);
