import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import pg from 'pg';
import SqliteDatabase from 'better-sqlite3';
import { DateTime } from 'luxon';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createContext, type AppContext } from '../src/context.js';
import type { Meeting } from '../src/domain/meeting.js';
import { locationWithoutDetails } from '../src/domain/place-details.js';
import { newId } from '../src/ids.js';
import { createLogger } from '../src/logging.js';
import { createAccount } from '../src/scheduling/account/create-account.js';

export type BenchDialect = 'sqlite' | 'postgres';

/**
 * A running service on a fresh database for a benchmark: SQLite in a temp folder, or a new
 * PostgreSQL database (BENCH_POSTGRES_URL, default the local server) dropped afterwards.
 */
export async function startBenchServer(dialect: BenchDialect, extraEnv: Record<string, string> = {}, beforeListen?: (app: FastifyInstance, ctx: AppContext) => Promise<void>) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'termin-bench-'));
  // The load generator is one client hammering one instance: no rate limit.
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    TERMIN_DEMO: 'false',
    MIGRATE_ON_START: 'true',
    LOG_LEVEL: 'silent',
    PORT: '0',
    RATE_LIMIT_PER_MINUTE: '0',
    ...extraEnv,
  };
  let dropDatabase = async () => undefined as unknown;
  if (dialect === 'postgres' && extraEnv.BENCH_ATTACH_URL) {
    // A further instance on another instance's database (bench/bookings.ts, two instances).
    env.DATABASE_URL = extraEnv.BENCH_ATTACH_URL;
    env.DATABASE_POOL_SIZE = '20';
    env.MIGRATE_ON_START = 'false';
  } else if (dialect === 'postgres') {
    const admin = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
    const name = `termin_bench_${Date.now()}`;
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query(`create database ${name}`);
    await client.end();
    const url = new URL(admin);
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.toString();
    env.DATABASE_POOL_SIZE = '20';
    dropDatabase = async () => {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    };
  }
  const config = loadConfig(env);
  // LOG_LEVEL=info gives the service's own logger (asynchronous, to stdout), to measure its cost.
  const ctx: AppContext = await createContext(config, { log: config.logLevel === 'silent' ? pino({ level: 'silent' }) : createLogger(config) });
  const app = await buildApp(ctx);
  await beforeListen?.(app, ctx);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : '';
  return {
    ctx,
    app,
    url,
    async close() {
      await app.close();
      await ctx.close();
      await dropDatabase();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Whether the benchmarks' PostgreSQL (BENCH_POSTGRES_URL, default the local server) answers. */
export async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * An account whose team has `hosts` members (the owner and hosts − 1 added through the API),
 * zone Europe/Warsaw, place zoom: the fixture of the team-view benchmarks. Returns the account,
 * the API headers of its key and the hosts' uuids, owner first.
 */
export async function createBenchTeam(ctx: AppContext, app: FastifyInstance, name: string, hosts: number) {
  const created = await createAccount(ctx, {
    name,
    ownerEmail: 'owner@bench.test',
    ownerFirstName: 'Olga',
    ownerLastName: 'Owner',
    maxUsers: hosts + 5,
    timezone: 'Europe/Warsaw',
    places: ['zoom'],
  });
  const headers = { 'content-type': 'application/json', accept: 'application/json', 'x-service-api-key': created.apiKey };
  const hostUuids = [created.owner.uuid];
  const members = [{ uuid: created.owner.uuid, username: created.owner.username }];
  for (let i = 1; i < hosts; i += 1) {
    const response = await app.inject({
      method: 'POST',
      url: `/api/v1/teams/${created.team.uuid}/users`,
      headers,
      payload: JSON.stringify({ firstName: `Host${i}`, lastName: 'Bench', email: `host${i}@bench.test` }),
    });
    if (response.statusCode !== 201) throw new Error(response.body);
    const member = response.json() as { uuid: string; username: string };
    hostUuids.push(member.uuid);
    members.push({ uuid: member.uuid, username: member.username });
  }
  return { created, headers, hostUuids, hosts: members };
}

/** A 30-minute zoom topic (120-day window) with `fields` on top, made through the API with `headers`. */
export async function createBenchTopic(app: FastifyInstance, headers: Record<string, string>, fields: Record<string, unknown>): Promise<{ uuid: string }> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/meeting-topics',
    headers,
    payload: JSON.stringify({ durationMinutes: 30, places: ['zoom'], bookingWindowDays: 120, ...fields }),
  });
  if (response.statusCode !== 201) throw new Error(response.body);
  return response.json() as { uuid: string };
}

/**
 * A confirmed 30-minute zoom meeting of `host` starting at `start`, created and updated at
 * `now`: what the benches seed a host's calendar with (insertMeetings).
 */
export function benchMeeting(fields: {
  accountUuid: string;
  topicUuid: string;
  teamUuid: string | null;
  host: { uuid: string; username: string };
  start: number;
  now: number;
}): Meeting {
  const { start, now } = fields;
  return {
    uuid: newId(),
    accountUuid: fields.accountUuid,
    topicUuid: fields.topicUuid,
    teamUuid: fields.teamUuid,
    hostUuid: fields.host.uuid,
    hostUsername: fields.host.username,
    bookingUuid: newId(),
    start,
    end: start + 30 * 60_000,
    status: 'confirmed',
    holdExpiresAt: null,
    place: 'zoom',
    location: locationWithoutDetails('zoom', null),
    participant: { name: 'P', email: 'p@x.test', phone: null, timezone: 'UTC', lang: 'en' },
    note: null,
    priceVariantUuid: null,
    form: {},
    metadata: {},
    invoice: null,
    sequence: 0,
    createdAt: now,
    updatedAt: now,
    cancelledAt: null,
    cancelReason: null,
    bookedByKeyUuid: null,
    noShow: null,
    declineReason: null,
  };
}

/**
 * The starts (ms) of the half hours 09:00–17:00 in `zone` on every Monday to Friday of the
 * month that `firstOfMonth` (an ISO date, the 1st) begins: e.g. ('2027-03-01', 'Europe/Warsaw')
 * gives 23 working days × 16 = 368 starts.
 */
export function workingHalfHours(firstOfMonth: string, zone: string): number[] {
  const starts: number[] = [];
  const first = DateTime.fromISO(firstOfMonth, { zone });
  for (let day = first; day.month === first.month; day = day.plus({ days: 1 })) {
    if (day.weekday > 5) continue;
    for (let half = 18; half < 34; half += 1) starts.push(day.set({ hour: Math.floor(half / 2), minute: (half % 2) * 30 }).toMillis());
  }
  return starts;
}

/**
 * This process's CPU µs so far, split between its main thread (JavaScript, the event loop)
 * and every other thread (V8's optimising compiler and parallel GC, libuv's pool), from
 * /proc (Linux; null elsewhere). A fresh process compiles its hot code on a background
 * thread for many seconds under load, which a CPU figure per request counts too: a bench
 * shows the split so a reader can tell warm-up from steady cost. /proc counts in clock
 * ticks, 100 a second on Linux (USER_HZ).
 */
export function threadCpuMicros(): { main: number; background: number } | null {
  if (!fs.existsSync('/proc/self/task')) return null;
  let main = 0;
  let background = 0;
  for (const tid of fs.readdirSync('/proc/self/task')) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // a thread that ended meanwhile
    }
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const micros = (Number(fields[11]) + Number(fields[12])) * 10_000;
    if (tid === String(process.pid)) main += micros;
    else background += micros;
  }
  return { main, background };
}

/** The middle value (the upper middle of an even count; NaN of none): the benches' figure of a noisy series. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The median milliseconds of `runs` calls, each after `before` (which is not timed). */
export async function timeMedian(runs: number, before: () => Promise<void>, call: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    await before();
    const start = process.hrtime.bigint();
    await call();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(samples);
}

export function formatNumber(value: number, digits = 0): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export interface SpawnedBenchServer {
  info: { url: string; apiKey: string; topic: string; team: string; usernames: string[]; month: number; databaseUrl: string | null; databaseFile?: string | null };
  /** Bytes the server wrote to stdout after its info line: its log, when it logs. */
  loggedBytes(): number;
  stop(): Promise<void>;
}

/** Starts bench/bench-server.ts in its own process and waits for its JSON line. */
export async function spawnBenchServer(env: Record<string, string>): Promise<SpawnedBenchServer> {
  const { spawn } = await import('node:child_process');
  const extraArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...extraArgs, '--import', 'tsx', 'bench/bench-server.ts'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let loggedBytes = 0;
  const info = await new Promise<SpawnedBenchServer['info']>((resolve, reject) => {
    let buffer = '';
    const readInfo = (chunk: Buffer) => {
      buffer += chunk.toString();
      // Log lines are JSON too: the server's own line is marked.
      const line = buffer.split('\n').find((l) => l.startsWith('BENCH_INFO '));
      if (!line) return;
      // From here on stdout (the server's log lines, with LOG_LEVEL=info) is drained and
      // dropped, as cheaply as a log shipper would read it: collecting and re-splitting it
      // here grew quadratically and took the load generator's CPU, which understated the
      // logged server's throughput.
      child.stdout.off('data', readInfo);
      // BENCH_SERVER_LOG=1 (with LOG_LEVEL in BENCH_SERVER_ENV): the server's log on this stderr, to see what went wrong.
      if (process.env.BENCH_SERVER_LOG === '1') child.stdout.pipe(process.stderr);
      // Counting is as cheap as draining, and shows a bench that the server it meant to log does.
      child.stdout.on('data', (more: Buffer) => {
        loggedBytes += more.length;
      });
      buffer = '';
      resolve(JSON.parse(line.slice('BENCH_INFO '.length)));
    };
    child.stdout.on('data', readInfo);
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return {
    info,
    loggedBytes: () => loggedBytes,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * Counts every statement this process runs from now on, by SQL text, on both drivers
 * (better-sqlite3 statements, pg clients created later). bench/booking-floor.ts reads the
 * counts from its server to check that the floor runs what a booking runs, and how many
 * bookings shared a commit on SQLite. A map update per statement: noise beside a booking.
 */
export function countStatements(): Map<string, number> {
  const counts = new Map<string, number>();
  const count = (text: string) => counts.set(text, (counts.get(text) ?? 0) + 1);
  const probe = new SqliteDatabase(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, (...args: unknown[]) => unknown>;
  probe.close();
  for (const method of ['run', 'get', 'all', 'iterate']) {
    const original = statement[method]!;
    statement[method] = function (this: { source: string }, ...args: unknown[]) {
      count(this.source);
      return original.apply(this, args);
    };
  }
  const client = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = client.query;
  client.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0] as string | { text?: string } | undefined;
    const text = typeof first === 'string' ? first : first?.text;
    if (text !== undefined) count(text);
    return query.apply(this, args);
  };
  return counts;
}

/**
 * Distinct free slots as POST /schedule bodies: the hosts' working half-hours (10:00–14:00
 * UTC lies inside 09:00–17:00 Warsaw in winter and in summer) on weekdays over the coming
 * weeks, interleaved across hosts (bench/bookings.ts, bench/booking-floor.ts).
 */
export function bookingBodies(info: SpawnedBenchServer['info']): string[] {
  const { topic, team, usernames } = info;
  const dayMs = 86_400_000;
  const firstDay = Math.ceil(Date.now() / dayMs) * dayMs + dayMs;
  const bodies: string[] = [];
  // ~170,000 over 300 days: a SQLite floor and service at ~3,000 bookings/s each use ~60,000 in three 5 s rounds.
  for (let day = 0; day < 300 && bodies.length < 200_000; day += 1) {
    const date = new Date(firstDay + day * dayMs);
    if (date.getUTCDay() === 0 || date.getUTCDay() === 6) continue;
    for (let half = 20; half < 28; half += 1) {
      for (const username of usernames) {
        const start = new Date(firstDay + day * dayMs + half * 30 * 60_000).toISOString();
        bodies.push(JSON.stringify({ dates: [{ start, username }], email: 'p@bench.test', lang: 'en', name: 'P', place: 'zoom', meetingTopic: topic, team, timezone: 'UTC' }));
      }
    }
  }
  return bodies;
}
