/**
 * A year of a busy business (issue 44): does a request cost more once the database holds a
 * year? Two services in this process, on two fresh databases of the same dialect:
 *   - "empty": the business's fixture (200 hosts in 20 teams of 20, a round-robin topic per
 *     team, 5 webhook endpoints) and the measured hosts' meetings of the next three months;
 *   - "year": the same, plus a year of everything (bench/year-seed.ts): `--meetings` meetings
 *     (default 250,000) of all 200 hosts, nine months back and three ahead, 8% cancelled,
 *     their events, outbox jobs (the events' fan-out, e-mails, deliveries, reminders; done),
 *     deliveries to the 5 endpoints, reminders, payments for a tenth, 300 connected calendars
 *     with busy time.
 * The measured hosts (team 0's 20) have the very same meetings ahead on both, so each request
 * does the same work on both and any difference is what the year costs.
 *
 * Each case runs its requests one at a time through `app.inject` (routing, validation, use
 * case, database, serialisation; no socket), on the empty database and then on the year's,
 * round after round. Per request: this process's CPU time (process.cpuUsage, the figure the
 * goal is about) and the wall time (which on PostgreSQL also holds the database server's work,
 * where a bad plan shows). The ratio year ÷ empty of each case is the median over the rounds;
 * the last line is `worst <ratio>` (CPU). Goal: each ≤ 1.25.
 *
 * Also printed: the seeding rate, the database size per 1,000 meetings (and the largest
 * tables) without retention and, at the end, with the default retention rules applied and
 * the database compacted, `cli backup` and a restore of the year's database (time and size), and with
 * `--explain` the plan of every statement each case ran on the year's database (PostgreSQL:
 * EXPLAIN ANALYZE inside a rolled-back transaction; SQLite: EXPLAIN QUERY PLAN).
 *
 * Run: npx tsx bench/year.ts [sqlite|postgres] [--meetings 250000] [--rounds 5] [--explain] [--no-backup]
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import { startBackgroundJobs } from '../src/background.js';
import { runCli } from '../src/cli/main.js';
import { loadConfig } from '../src/config.js';
import type { AppContext } from '../src/context.js';
import { bumpCalendarVersions } from '../src/db/repositories/busy-time.js';
import { insertJobs } from '../src/db/repositories/outbox.js';
import { refreshPlannerStatistics } from '../src/db/statistics.js';
import { insertDeliveries } from '../src/db/repositories/webhooks.js';
import type { RenderedMessage } from '../src/mail/message.js';
import { newId } from '../src/ids.js';
import { runDueJobs } from '../src/outbox/worker.js';
import { redeemSignInLink, requestSignInLink } from '../src/scheduling/host-app/sign-in.js';
import { pruneTables } from '../src/scheduling/maintenance/prune.js';
import { createWebhookDeliverer } from '../src/scheduling/webhooks/delivery.js';
import { DateTime } from 'luxon';
import { formatNumber, median, startBenchServer, type BenchDialect } from './support.js';
import { TEAM_SIZE, ZONE, createFixture, isFree, seedYear, shareFor, workingSlots, yearSpan, type Fixture } from './year-seed.js';

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    meetings: { type: 'string', default: '250000' },
    rounds: { type: 'string', default: '5' },
    explain: { type: 'boolean', default: false },
    'no-backup': { type: 'boolean', default: false },
  },
});
const dialect = (positionals[0] ?? 'sqlite') as BenchDialect;
const MEETINGS = Number(flags.meetings);
const ROUNDS = Number(flags.rounds);
const GOAL = 1.25;
const now = Date.now();
const span = yearSpan(now);
const share = shareFor(MEETINGS, now);
const log = (line: string) => console.log(line);

// The webhook endpoints: one local receiver that answers 204 to every delivery.
const receiver = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => response.writeHead(204).end());
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;

interface Side {
  name: 'empty' | 'year';
  ctx: AppContext;
  app: Awaited<ReturnType<typeof startBenchServer>>['app'];
  server: Awaited<ReturnType<typeof startBenchServer>>;
  fixture: Fixture;
  meetings: number;
  session: string;
  /** Per case, what it keeps between requests (a cursor, the next slot). */
  state: Map<string, number | string>;
}

/**
 * The year is measured whole: its rows are kept for 100 years here, or the maintenance that
 * signIn runs would prune it to the default retention before any request. The default rules
 * are applied at the end, for the database size with retention.
 */
const KEEP_EVERYTHING = {
  RETENTION_OUTBOX_DAYS: '36500',
  RETENTION_EVENT_DAYS: '36500',
  RETENTION_WEBHOOK_DELIVERY_DAYS: '36500',
  RETENTION_SIGN_IN_DAYS: '36500',
  RETENTION_PAST_BUSY_DAYS: '36500',
  RETENTION_IDEMPOTENCY_HOURS: '876000',
  RETENTION_AUDIT_DAYS: '36500',
  RETENTION_SMS_NUMBER_LOCK_DAYS: '36500',
};
const env = { ALLOW_PRIVATE_URLS: 'true', SCHEDULE_CACHE_MB: '256', ...KEEP_EVERYTHING };
/** The rules a deployment runs with when it sets none (the RETENTION_* defaults). */
const DEFAULT_RETENTION = loadConfig({}).retention;
const probe = Array.from({ length: TEAM_SIZE }, (_, i) => i);

/** A signed-in web-app session of host 0, through the sign-in link's use cases. */
async function signIn(ctx: AppContext, email: string): Promise<string> {
  await requestSignInLink(ctx, email, 'en');
  const sent: RenderedMessage[] = [];
  const transport = { send: async (message: RenderedMessage) => void sent.push(message), close: () => undefined, describe: () => 'capture' };
  const jobs = startBackgroundJobs(ctx, { transport, jobIntervalMs: 3_600_000 });
  try {
    await jobs.runOnce();
  } finally {
    await jobs.stop();
  }
  const mail = sent.find((message) => message.to.email === email && message.text.includes('/app/login/'));
  const session = mail && (await redeemSignInLink(ctx, /\/app\/login\/([A-Za-z0-9_-]+)/.exec(mail.text)![1]!));
  if (!session) throw new Error('no web-app session');
  return session.token;
}

async function makeSide(name: Side['name']): Promise<Side> {
  const server = await startBenchServer(dialect, env);
  const { ctx, app } = server;
  const fixture = await createFixture(ctx, receiverUrl);
  const started = performance.now();
  const seeded = await seedYear(ctx, fixture, { meetings: MEETINGS, now, ...(name === 'empty' ? { probeOnly: probe } : { progress: log }) });
  const seconds = (performance.now() - started) / 1000;
  const total = Object.values(seeded.rows).reduce((sum, n) => sum + n, 0);
  log(
    `${name}: seeded ${formatNumber(seeded.meetings)} meetings, ${formatNumber(total)} rows in ${formatNumber(seconds, 1)} s (${formatNumber(total / Math.max(seconds, 0.001))} rows/s): ${Object.entries(
      seeded.rows,
    )
      .map(([table, n]) => `${table} ${formatNumber(n)}`)
      .join(', ')}`,
  );
  // A year-old PostgreSQL database has been analysed by autovacuum many times over; SQLite's
  // statistics are gathered by the maintenance beat (signIn runs it), timed here once.
  if (dialect === 'postgres') await sql`analyze`.execute(ctx.db);
  else {
    let began = performance.now();
    await refreshPlannerStatistics(ctx.db, 'sqlite');
    const firstMs = performance.now() - began;
    began = performance.now();
    await refreshPlannerStatistics(ctx.db, 'sqlite');
    log(`  ${name}: SQLite planner statistics (PRAGMA optimize): ${formatNumber(firstMs, 1)} ms gathered, ${formatNumber(performance.now() - began, 2)} ms on the next beat`);
  }
  const session = await signIn(ctx, fixture.hosts[0]!.email);
  return { name, ctx, app, server, fixture, meetings: seeded.meetings, session, state: new Map() };
}

// ---- The cases -------------------------------------------------------------------------------

const nextMonth = DateTime.fromMillis(now, { zone: ZONE }).plus({ months: 1 }).startOf('month');
const json = { 'content-type': 'application/json', accept: 'application/json' };
const keyed = (side: Side) => ({ ...json, 'x-service-api-key': side.fixture.apiKey });
const host = (side: Side, h: number) => side.fixture.hosts[h]!;
const team0 = (side: Side) => side.fixture.teams[0]!;
const monthView = (side: Side, h: number) =>
  JSON.stringify({
    username: host(side, h).username,
    meetingTopic: team0(side).topicUuid,
    team: team0(side).uuid,
    timezone: ZONE,
    offset: 0,
    month: nextMonth.month,
    year: nextMonth.year,
  });
// Free slots of hosts 10–19 in the month after next: the bookings (the same on both databases).
const bookable = workingSlots(nextMonth.plus({ months: 1 }).toMillis(), nextMonth.plus({ months: 2 }).toMillis()).flatMap((start) =>
  [10, 11, 12, 13, 14, 15, 16, 17, 18, 19].filter((h) => isFree(h, start, share)).map((h) => ({ h, start })),
);
// Starts to explain: next month's working half hours (some booked, some free).
const explainStarts = workingSlots(nextMonth.toMillis(), nextMonth.plus({ months: 1 }).toMillis());
const listFrom = new Date(span.ahead).toISOString();

async function expectOk(response: { statusCode: number; body: string }, what: string) {
  if (response.statusCode >= 300) throw new Error(`${what}: ${response.statusCode} ${response.body.slice(0, 400)}`);
}

// Host 4's meetings from tomorrow on, in pages of 20, or fewer when a small --meetings leaves it under ten full pages.
const futureOfHost4 = workingSlots(span.ahead, span.to).filter((start) => !isFree(4, start, share)).length;
const PAGE = Math.max(1, Math.min(20, Math.floor(futureOfHost4 / 10.5)));

/** The `nextCursor` after `pages` pages of host 4's meetings from tomorrow. */
async function cursorAfter(side: Side, pages: number): Promise<string> {
  let cursor = '';
  for (let i = 0; i < pages; i += 1) {
    const response = await side.app.inject({ method: 'GET', url: listUrl(side, cursor), headers: keyed(side) });
    await expectOk(response, 'GET /meetings');
    cursor = response.json().nextCursor;
    if (!cursor) throw new Error(`host 4 has fewer than ${pages + 1} pages of meetings ahead: raise --meetings`);
  }
  return cursor;
}
function listUrl(side: Side, cursor: string): string {
  return `/api/v1/meetings?username=${host(side, 4).username}&from=${encodeURIComponent(listFrom)}&limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
}

interface Case {
  name: string;
  requests: number;
  /** Untimed, before each request (a calendar version bumped, a delivery queued). */
  before?: (side: Side, i: number) => Promise<void>;
  run: (side: Side, i: number) => Promise<void>;
}

const deliverers = new Map<Side, ReturnType<typeof createWebhookDeliverer>>();

const cases: Case[] = [
  {
    name: 'booking (POST /schedule)',
    requests: 30,
    run: async (side) => {
      const next = Number(side.state.get('booking') ?? 0);
      side.state.set('booking', next + 1);
      const slot = bookable[next];
      if (!slot) throw new Error('out of free slots to book');
      const body = {
        dates: [{ start: new Date(slot.start).toISOString(), username: host(side, slot.h).username }],
        email: `booker${next}@customers.example`,
        lang: 'pl',
        name: `Booker ${next}`,
        place: 'zoom',
        meetingTopic: team0(side).topicUuid,
        team: team0(side).uuid,
        timezone: ZONE,
      };
      await expectOk(await side.app.inject({ method: 'POST', url: '/api/v1/schedule', headers: keyed(side), payload: JSON.stringify(body) }), 'booking');
    },
  },
  {
    name: 'month view, cached',
    requests: 200,
    run: async (side) => expectOk(await side.app.inject({ method: 'POST', url: '/api/v1/calculate-schedule', headers: json, payload: monthView(side, 1) }), 'month view'),
  },
  {
    name: 'month view, cold',
    requests: 40,
    before: (side) => bumpCalendarVersions(side.ctx.db, [host(side, 2).uuid]),
    run: async (side) => expectOk(await side.app.inject({ method: 'POST', url: '/api/v1/calculate-schedule', headers: json, payload: monthView(side, 2) }), 'cold month view'),
  },
  {
    name: 'team view, 20 hosts, cold',
    requests: 10,
    before: (side) =>
      bumpCalendarVersions(
        side.ctx.db,
        probe.map((h) => host(side, h).uuid),
      ),
    run: async (side) =>
      expectOk(
        await side.app.inject({
          method: 'POST',
          url: '/api/v1/calculate-schedule',
          headers: json,
          payload: JSON.stringify({ meetingTopic: team0(side).topicUuid, team: team0(side).uuid, timezone: ZONE, offset: 0, month: nextMonth.month, year: nextMonth.year }),
        }),
        'team view',
      ),
  },
  {
    name: 'explanation (POST /explain-schedule)',
    requests: 60,
    run: async (side, i) => {
      const start = new Date(explainStarts[(i * 37) % explainStarts.length]!).toISOString();
      const payload = JSON.stringify({ username: host(side, 3).username, meetingTopic: team0(side).topicUuid, team: team0(side).uuid, start });
      await expectOk(await side.app.inject({ method: 'POST', url: '/api/v1/explain-schedule', headers: keyed(side), payload }), 'explanation');
    },
  },
  {
    name: 'GET /meetings, host, page 1',
    requests: 100,
    run: async (side) => expectOk(await side.app.inject({ method: 'GET', url: listUrl(side, ''), headers: keyed(side) }), 'GET /meetings'),
  },
  {
    name: 'GET /meetings, host, page 10',
    requests: 100,
    before: async (side) => {
      if (!side.state.has('page10')) side.state.set('page10', await cursorAfter(side, 9));
    },
    run: async (side) => expectOk(await side.app.inject({ method: 'GET', url: listUrl(side, String(side.state.get('page10'))), headers: keyed(side) }), 'GET /meetings page 10'),
  },
  {
    name: 'web app, Upcoming (GET /app)',
    requests: 60,
    run: async (side) =>
      expectOk(
        await side.app.inject({
          method: 'GET',
          url: '/app',
          headers: { accept: 'text/html', 'accept-language': 'en', cookie: `termin_session=${encodeURIComponent(side.session)}` },
        }),
        'Upcoming',
      ),
  },
  {
    name: 'webhook delivery (one job)',
    requests: 30,
    before: async (side) => {
      // A delivery queued as an event's fan-out queues it: its event, the delivery, its job.
      const at = side.ctx.now();
      const eventUuid = newId(at);
      const deliveryUuid = newId(at);
      const jobUuid = newId(at);
      await side.ctx.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('events')
          .values({ id: eventUuid, account_id: side.fixture.accountUuid, type: 'meeting.scheduled', subject_id: newId(at), occurred_at: at, data: '{}' })
          .execute();
        await insertDeliveries(trx, [
          {
            uuid: deliveryUuid,
            subscriptionUuid: side.fixture.subscriptions[0]!,
            accountUuid: side.fixture.accountUuid,
            eventUuid,
            eventType: 'meeting.scheduled',
            body: '{"type":"meeting.scheduled"}',
            jobUuid,
            createdAt: at,
          },
        ]);
        await insertJobs(trx, [{ uuid: jobUuid, kind: 'webhook', payload: { deliveryUuid } }], at);
      });
    },
    run: async (side) => {
      const deliverer = deliverers.get(side) ?? createWebhookDeliverer(side.ctx);
      deliverers.set(side, deliverer);
      const counts = await runDueJobs({ db: side.ctx.db, handlers: [deliverer], log: side.ctx.log, now: side.ctx.now });
      if (counts.done !== 1) throw new Error(`webhook delivery: ${JSON.stringify(counts)}`);
    },
  },
];

// ---- Statement capture for --explain ---------------------------------------------------------

interface Captured {
  text: string;
  values: unknown[];
}
let capturing: Captured[] | null = null;
function captureStatements() {
  const probeDb = new SqliteDatabase(':memory:');
  const statement = Object.getPrototypeOf(probeDb.prepare('select 1')) as Record<string, (...args: unknown[]) => unknown>;
  probeDb.close();
  for (const method of ['run', 'get', 'all', 'iterate']) {
    const original = statement[method]!;
    statement[method] = function (this: { source: string }, ...args: unknown[]) {
      capturing?.push({ text: this.source, values: args });
      return original.apply(this, args);
    };
  }
  const client = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = client.query;
  client.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0] as string | { text?: string; values?: unknown[] } | undefined;
    if (capturing && first !== undefined) {
      const text = typeof first === 'string' ? first : first.text;
      const values = typeof first === 'string' ? (args[1] as unknown[] | undefined) : first.values;
      if (text) capturing.push({ text, values: values ?? [] });
    }
    return query.apply(this, args);
  };
}

const TRANSACTION_CONTROL = /^\s*(begin|commit|rollback|savepoint|release|set |select pg_advisory|start transaction)/i;

async function explainCase(side: Side, test: Case): Promise<string[]> {
  await test.before?.(side, 1_000_000);
  const seen: Captured[] = [];
  capturing = seen;
  try {
    await test.run(side, 1_000_000);
  } finally {
    capturing = null;
  }
  const distinct = new Map<string, Captured>();
  for (const one of seen) if (!TRANSACTION_CONTROL.test(one.text) && !distinct.has(one.text)) distinct.set(one.text, one);
  const lines: string[] = [];
  if (dialect === 'postgres') {
    const config = side.ctx.config.database;
    const client = new pg.Client({ connectionString: config.dialect === 'postgres' ? config.url : '' });
    await client.connect();
    try {
      for (const one of distinct.values()) {
        await client.query('begin');
        try {
          const result = await client.query(`explain (analyze, buffers, costs off, timing off, summary off) ${one.text}`, one.values);
          lines.push(`  ${oneLine(one.text)}`);
          for (const row of result.rows) lines.push(`      ${row['QUERY PLAN']}`);
        } catch (error) {
          lines.push(`  ${oneLine(one.text)}\n      (not explained: ${(error as Error).message})`);
        } finally {
          await client.query('rollback');
        }
      }
    } finally {
      await client.end();
    }
  } else {
    const config = side.ctx.config.database;
    const db = new SqliteDatabase(config.dialect === 'sqlite' ? config.filename : '', { readonly: true });
    try {
      for (const one of distinct.values()) {
        lines.push(`  ${oneLine(one.text)}`);
        try {
          for (const row of db.prepare(`explain query plan ${one.text}`).all(...(one.values as never[])) as { detail: string }[]) lines.push(`      ${row.detail}`);
        } catch (error) {
          lines.push(`      (not explained: ${(error as Error).message})`);
        }
      }
    } finally {
      db.close();
    }
  }
  return lines;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 240 ? `${flat.slice(0, 240)}…` : flat;
}

// ---- Measuring ---------------------------------------------------------------------------------

interface Sample {
  cpu: number;
  wall: number;
}

/**
 * Per side, the measurements during which PostgreSQL's change feed was not live at some
 * check (before and after each request): a cached view reads the database then, so a case's
 * ratio that swings both ways between rounds may be the feed's, not the data's.
 */
const feedDown = new Map<Side['name'], { measurements: number; down: number }>();

async function measure(side: Side, test: Case, counter: { i: number }): Promise<Sample> {
  let cpu = 0;
  let wall = 0;
  let down = false;
  const live = side.ctx.dbChangeNoticesLive;
  const checkFeed = () => {
    if (live && !live()) down = true;
  };
  for (let r = 0; r < test.requests; r += 1) {
    const i = counter.i++;
    await test.before?.(side, i);
    checkFeed();
    const cpuStart = process.cpuUsage();
    const wallStart = performance.now();
    await test.run(side, i);
    wall += performance.now() - wallStart;
    const used = process.cpuUsage(cpuStart);
    cpu += used.user + used.system;
    checkFeed();
  }
  const feed = feedDown.get(side.name) ?? { measurements: 0, down: 0 };
  feed.measurements += 1;
  if (down) feed.down += 1;
  feedDown.set(side.name, feed);
  return { cpu: cpu / test.requests, wall: (wall * 1000) / test.requests };
}

/** Bytes of the database, and of its largest tables (with their indexes). */
async function databaseSize(side: Side): Promise<{ total: number; tables: [string, number][] }> {
  if (dialect === 'postgres') {
    const total = await sql<{ bytes: string }>`select pg_database_size(current_database()) as bytes`.execute(side.ctx.db);
    const tables = await sql<{ name: string; bytes: string }>`
      select relname as name, pg_total_relation_size(relid) as bytes from pg_catalog.pg_statio_user_tables order by 2 desc limit 8`.execute(side.ctx.db);
    return { total: Number(total.rows[0]!.bytes), tables: tables.rows.map((row) => [row.name, Number(row.bytes)]) };
  }
  await sql`pragma wal_checkpoint(truncate)`.execute(side.ctx.db);
  const config = side.ctx.config.database;
  const total = fs.statSync(config.dialect === 'sqlite' ? config.filename : '').size;
  try {
    const tables = await sql<{ name: string; bytes: number }>`
      select coalesce(m.tbl_name, s.name) as name, sum(s.pgsize) as bytes from dbstat s left join sqlite_master m on m.name = s.name group by 1 order by 2 desc limit 8`.execute(
      side.ctx.db,
    );
    return { total, tables: tables.rows.map((row) => [row.name, Number(row.bytes)]) };
  } catch {
    return { total, tables: [] };
  }
}

const mb = (bytes: number) => `${formatNumber(bytes / 1024 / 1024, 1)} MB`;

/** `cli backup` of the year's database, then a restore into a new one: times and sizes. */
async function backupAndRestore(side: Side): Promise<void> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'termin-year-backup-'));
  const quiet = { out: { write: () => true }, err: { write: (text: string) => process.stderr.write(text) } };
  const config = side.ctx.config.database;
  try {
    const file = path.join(folder, dialect === 'sqlite' ? 'year.db' : 'year.dump');
    const cliEnv: Record<string, string> =
      config.dialect === 'sqlite' ? { DATA_DIR: path.dirname(config.filename), TERMIN_DEMO: 'false' } : { DATABASE_URL: config.url, TERMIN_DEMO: 'false' };
    let began = performance.now();
    const code = await runCli(['backup', '--to', file, '--json'], quiet, cliEnv);
    const backupMs = performance.now() - began;
    if (code !== 0) throw new Error(`cli backup exited with ${code}`);
    const bytes = fs.statSync(file).size;
    log(`cli backup: ${formatNumber(backupMs / 1000, 1)} s, ${mb(bytes)} (${formatNumber(((bytes / side.meetings) * 1000) / 1024, 1)} KB per 1,000 meetings)`);
    let restored = 0;
    if (config.dialect === 'sqlite') {
      const target = path.join(folder, 'restored');
      began = performance.now();
      const restoreCode = await runCli(['restore', '--from', file, '--json'], quiet, { DATA_DIR: target, TERMIN_DEMO: 'false' });
      const restoreMs = performance.now() - began;
      if (restoreCode !== 0) throw new Error(`cli restore exited with ${restoreCode}`);
      const db = new SqliteDatabase(path.join(target, 'termin.db'), { readonly: true });
      restored = (db.prepare('select count(*) as n from meetings').get() as { n: number }).n;
      db.close();
      log(`cli restore: ${formatNumber(restoreMs / 1000, 1)} s into a new data folder, ${formatNumber(restored)} meetings back`);
    } else {
      // `cli restore` prints the pg_restore command for PostgreSQL: that command, into a new database.
      const admin = new URL(config.url);
      const name = `termin_restore_${Date.now()}`;
      const client = new pg.Client({ connectionString: config.url });
      await client.connect();
      await client.query(`create database ${name}`);
      admin.pathname = `/${name}`;
      try {
        began = performance.now();
        const result = spawnSync('pg_restore', ['--clean', '--if-exists', '--no-owner', `--dbname=${admin.toString()}`, file], { encoding: 'utf8' });
        const restoreMs = performance.now() - began;
        if (result.status !== 0) throw new Error(`pg_restore: ${result.stderr}`);
        const target = new pg.Client({ connectionString: admin.toString() });
        await target.connect();
        restored = Number((await target.query('select count(*) as n from meetings')).rows[0].n);
        const size = Number((await target.query('select pg_database_size(current_database()) as n')).rows[0].n);
        await target.end();
        log(`pg_restore (the command cli restore prints): ${formatNumber(restoreMs / 1000, 1)} s into a new database of ${mb(size)}, ${formatNumber(restored)} meetings back`);
      } finally {
        await client.query(`drop database if exists ${name} with (force)`);
        await client.end();
      }
    }
    const live = Number(
      (
        await side.ctx.db
          .selectFrom('meetings')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    if (restored !== live) log(`  the restored database holds ${formatNumber(restored)} meetings of ${formatNumber(live)}`);
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * Issue 44: the size a year leaves with the default retention. The rules run once as of now
 * (batches of 5,000: the batch size changes the time, not what goes), then the database is
 * compacted, so the figure is what stays: without compaction the file (SQLite) and the tables
 * (PostgreSQL) keep their size, and new rows reuse the room freed, so a deployment that prunes
 * from the start levels off at about this size instead of growing.
 */
async function sizeWithRetention(side: Side, without: { total: number }): Promise<void> {
  let began = performance.now();
  const result = await pruneTables(side.ctx, { ...DEFAULT_RETENTION, batch: 5_000 }, { asOf: now });
  const pruneMs = performance.now() - began;
  const deleted = result.pruned.reduce((sum, rule) => sum + rule.deleted, 0);
  log(
    `default retention applied: ${formatNumber(deleted)} rows deleted in ${formatNumber(pruneMs / 1000, 1)} s (${result.pruned.map((rule) => `${rule.rule} ${formatNumber(rule.deleted)}`).join(', ')})`,
  );
  const config = side.ctx.config.database;
  let total: number;
  let tables: [string, number][] = [];
  began = performance.now();
  if (config.dialect === 'sqlite') {
    // VACUUM INTO: the compacted copy, without taking the live database's lock.
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'termin-year-vacuum-'));
    try {
      const file = path.join(folder, 'compacted.db');
      await sql`vacuum into ${file}`.execute(side.ctx.db);
      total = fs.statSync(file).size;
      const db = new SqliteDatabase(file, { readonly: true });
      try {
        tables = (
          db
            .prepare(
              'select coalesce(m.tbl_name, s.name) as name, sum(s.pgsize) as bytes from dbstat s left join sqlite_master m on m.name = s.name group by 1 order by 2 desc limit 8',
            )
            .all() as { name: string; bytes: number }[]
        ).map((row) => [row.name, Number(row.bytes)]);
      } catch {
        // dbstat is optional in SQLite builds.
      } finally {
        db.close();
      }
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  } else {
    const client = new pg.Client({ connectionString: config.url });
    await client.connect();
    try {
      for (const table of PRUNED_TABLES) await client.query(`vacuum full ${table}`);
    } finally {
      await client.end();
    }
    const size = await databaseSize(side);
    total = size.total;
    tables = size.tables;
  }
  const compactMs = performance.now() - began;
  const perThousand = (bytes: number) => `${formatNumber(((bytes / side.meetings) * 1000) / 1024, 1)} KB`;
  log(
    `database size per 1,000 meetings after a year: without retention ${perThousand(without.total)} (${mb(without.total)}), with the default retention ${perThousand(total)} (${mb(total)}; ${config.dialect === 'sqlite' ? 'VACUUM INTO' : 'VACUUM FULL of the pruned tables'} ${formatNumber(compactMs / 1000, 1)} s)`,
  );
  if (tables.length > 0) log(`  largest with retention: ${tables.map(([name, bytes]) => `${name} ${mb(bytes)}`).join(', ')}`);
}

/** The tables the retention rules delete from (src/scheduling/maintenance/prune.ts). */
const PRUNED_TABLES = [
  'outbox',
  'events',
  'webhook_deliveries',
  'app_sessions',
  'app_sign_in_links',
  'oauth_states',
  'external_busy',
  'idempotency_keys',
  'audit_events',
  'sms_number_locks',
];

// ---- The run -----------------------------------------------------------------------------------

if (flags.explain) captureStatements();
log(
  `A year of a busy business [${dialect}]: --meetings ${formatNumber(MEETINGS)} (${formatNumber(share * 100, 1)}% of working half hours taken), ${ROUNDS} rounds, Node ${process.version}, load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
const empty = await makeSide('empty');
const year = await makeSide('year');
try {
  const emptySize = await databaseSize(empty);
  const yearSize = await databaseSize(year);
  log(
    `database size: empty ${mb(emptySize.total)}, year ${mb(yearSize.total)}: ${formatNumber(((yearSize.total / year.meetings) * 1000) / 1024, 1)} KB per 1,000 meetings (${formatNumber(
      (((yearSize.total - emptySize.total) / Math.max(1, year.meetings - empty.meetings)) * 1000) / 1024,
      1,
    )} KB beyond the empty one's)`,
  );
  if (yearSize.tables.length > 0) log(`  largest: ${yearSize.tables.map(([name, bytes]) => `${name} ${mb(bytes)}`).join(', ')}`);

  const results = new Map<string, { cpu: number[]; wall: number[]; empty: Sample[]; year: Sample[] }>();
  const counters = new Map<string, { i: number }>();
  for (let round = 0; round <= ROUNDS; round += 1) {
    for (const test of cases) {
      const side = (s: Side) => {
        const key = `${test.name}/${s.name}`;
        if (!counters.has(key)) counters.set(key, { i: 0 });
        return counters.get(key)!;
      };
      // Which database goes first alternates, so neither always follows the other's garbage.
      let a: Sample;
      let b: Sample;
      if (round % 2 === 0) {
        a = await measure(empty, test, side(empty));
        b = await measure(year, test, side(year));
      } else {
        b = await measure(year, test, side(year));
        a = await measure(empty, test, side(empty));
      }
      // Round 0 warms up the JIT, the caches and the prepared statements of both.
      if (round === 0) continue;
      const entry = results.get(test.name) ?? { cpu: [], wall: [], empty: [], year: [] };
      entry.cpu.push(b.cpu / a.cpu);
      entry.wall.push(b.wall / a.wall);
      entry.empty.push(a);
      entry.year.push(b);
      results.set(test.name, entry);
    }
  }
  log('');
  log(`GET /meetings: host 4's ${futureOfHost4} meetings ahead, ${PAGE} a page`);
  log(
    `${'case'.padEnd(38)}${'empty CPU µs'.padStart(13)}${'year CPU µs'.padStart(13)}${'CPU ratio'.padStart(11)}${'empty wall µs'.padStart(15)}${'year wall µs'.padStart(14)}${'wall ratio'.padStart(12)}`,
  );
  let worst = 0;
  let worstWall = 0;
  for (const [name, entry] of results) {
    const cpu = median(entry.cpu);
    const wall = median(entry.wall);
    worst = Math.max(worst, cpu);
    worstWall = Math.max(worstWall, wall);
    log(
      `${name.padEnd(38)}${formatNumber(median(entry.empty.map((s) => s.cpu))).padStart(13)}${formatNumber(median(entry.year.map((s) => s.cpu))).padStart(13)}${`${cpu.toFixed(2)}×`.padStart(11)}${formatNumber(median(entry.empty.map((s) => s.wall))).padStart(15)}${formatNumber(median(entry.year.map((s) => s.wall))).padStart(14)}${`${wall.toFixed(2)}×`.padStart(12)}  rounds ${entry.cpu.map((r) => r.toFixed(2)).join(' ')}${cpu > GOAL ? '  over the goal' : ''}`,
    );
  }

  if (dialect === 'postgres')
    log(
      `change feed not live during ${[...feedDown].map(([name, feed]) => `${feed.down} of ${feed.measurements} measurements (${name})`).join(', ')}: a cached view reads the database while it is down`,
    );

  if (flags.explain) {
    log('');
    log(`Plans on the year's database (${dialect === 'postgres' ? 'EXPLAIN ANALYZE, rolled back' : 'EXPLAIN QUERY PLAN'}), each distinct statement of one request:`);
    for (const test of cases) {
      log(`\n${test.name}:`);
      for (const line of await explainCase(year, test)) log(line);
    }
  }
  if (!flags['no-backup']) {
    log('');
    await backupAndRestore(year);
  }
  // Last: it deletes most of the year's rows.
  log('');
  try {
    await sizeWithRetention(year, yearSize);
  } catch (error) {
    // The ratios above stand on their own.
    log(`database size with retention: not measured (${(error as Error).message})`);
  }
  log('');
  log(`worst wall ${worstWall.toFixed(2)}`);
  log(`worst ${worst.toFixed(2)}`);
} finally {
  await empty.server.close();
  await year.server.close();
  receiver.close();
}
process.exit(0);
