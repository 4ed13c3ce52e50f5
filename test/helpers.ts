import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { pino } from 'pino';
import { inject } from 'vitest';
import { buildApp } from '../src/app.js';
import { startBackgroundJobs } from '../src/background.js';
import { loadConfig, type Config } from '../src/config.js';
import { createContext, type AppContext } from '../src/context.js';
import type { Dialect } from '../src/db/connect.js';
import type { RenderedMessage } from '../src/mail/message.js';
import { createAccount, type CreateAccountInput, type CreatedAccount } from '../src/scheduling/account/create-account.js';

const postgresAdminUrl = inject('postgresAdminUrl');
const postgresBouncerUrl = inject('postgresBouncerUrl');

/**
 * Whether this run's PostgreSQL tests reach the server through PgBouncer in transaction mode
 * (TEST_PGBOUNCER=1: test/global-setup.ts starts it); the SQLite halves are left out then.
 */
export const THROUGH_PGBOUNCER = postgresBouncerUrl !== null;

/** The dialects this run tests; PostgreSQL only when the global setup reached a server. */
export const DIALECTS: readonly Dialect[] = THROUGH_PGBOUNCER ? ['postgres'] : postgresAdminUrl ? ['sqlite', 'postgres'] : ['sqlite'];

/** Whether the suites driving real Chromium and Radicale can run here (see test/global-setup.ts). */
export const HAS_CHROMIUM = inject('chromiumPath') !== null;
export const HAS_RADICALE = inject('radicaleAvailable');
/** Debian's PgBouncer (test/db/pgbouncer.test.ts), or null when it is not installed. */
export const PGBOUNCER_PATH = inject('pgbouncerPath');

/** A controllable clock: tests move time explicitly instead of sleeping. */
export interface TestClock {
  now: () => number;
  set(ms: number | string): void;
  advance(ms: number): void;
}

export function createClock(start: number | string = '2027-01-04T08:00:00.000Z'): TestClock {
  let current = typeof start === 'string' ? Date.parse(start) : start;
  return {
    now: () => current,
    set: (ms) => {
      current = typeof ms === 'string' ? Date.parse(ms) : ms;
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

export interface TestDatabase {
  config: Config;
  /** PostgreSQL: the database's URL on the server itself, which `config` reaches through PgBouncer in a TEST_PGBOUNCER run. */
  directUrl?: string;
  drop(): Promise<void>;
}

/**
 * A database of its own for one test file: an SQLite file in a temp folder, or a freshly
 * created PostgreSQL database that is dropped afterwards. Files can so run in parallel.
 */
export async function createTestDatabase(dialect: Dialect, extraEnv: Record<string, string> = {}): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'termin-test-'));
  const env: Record<string, string> = { DATA_DIR: dataDir, TERMIN_DEMO: 'false', MIGRATE_ON_START: 'true', LOG_LEVEL: 'silent', ...extraEnv };
  if (dialect === 'sqlite') {
    return {
      config: loadConfig(env),
      drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  if (!postgresAdminUrl) throw new Error('PostgreSQL is not available in this run');
  const name = `termin_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  await withAdminClient((client) => client.query(`create database ${name}`));
  const url = new URL(postgresAdminUrl);
  url.pathname = `/${name}`;
  // Through PgBouncer, as docs/deploying.md configures termin behind it: no named statements, no LISTEN.
  const bounced = postgresBouncerUrl === null ? {} : { DATABASE_PREPARED_STATEMENTS: 'false', DATABASE_CHANGE_NOTIFICATIONS: 'false' };
  const appUrl = new URL(postgresBouncerUrl ?? postgresAdminUrl);
  appUrl.pathname = `/${name}`;
  return {
    config: loadConfig({ ...env, ...bounced, ...extraEnv, DATABASE_URL: appUrl.toString(), DATABASE_POOL_SIZE: '20' }),
    directUrl: url.toString(),
    drop: async () => {
      await withAdminClient((client) => client.query(`drop database if exists ${name} with (force)`));
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function withAdminClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: postgresAdminUrl! });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  clock: TestClock;
  close(): Promise<void>;
}

/** The real application over a fresh database of the dialect, driven through `app.inject()`. */
export async function createTestApp(dialect: Dialect, clock: TestClock = createClock(), extraEnv: Record<string, string> = {}): Promise<TestApp> {
  const database = await createTestDatabase(dialect, extraEnv);
  const ctx = await createContext(database.config, { now: clock.now, log: pino({ level: 'silent' }) });
  const app = await buildApp(ctx);
  await app.ready();
  return {
    app,
    ctx,
    clock,
    async close() {
      await app.close();
      await ctx.close();
      await database.drop();
    },
  };
}

/** Two instances of the application over one database, sharing one clock (each with its own caches). */
export interface TwoInstances {
  /** Instance A, owner of the database: it is dropped when the pair closes. */
  a: TestApp;
  /** Instance B: its own context (caches, pools) and app on A's configuration and clock. */
  b: FastifyInstance;
  bCtx: AppContext;
  close(): Promise<void>;
}

/** Two instances over a fresh database of the dialect, for changes made through one to be checked on the other. */
export async function createTwoInstances(dialect: Dialect, clock: TestClock = createClock()): Promise<TwoInstances> {
  const a = await createTestApp(dialect, clock);
  let bCtx: AppContext | undefined;
  try {
    const ctx = await createContext(a.ctx.config, { now: clock.now, log: pino({ level: 'silent' }) });
    bCtx = ctx;
    const b = await buildApp(ctx);
    return {
      a,
      b,
      bCtx: ctx,
      async close() {
        await b.close();
        await ctx.close();
        await a.close();
      },
    };
  } catch (error) {
    // The database A created is dropped even when B does not start.
    await bCtx?.close();
    await a.close();
    throw error;
  }
}

let accountCounter = 0;

/** An account with its owner and first team, created as the operator CLI does. */
export async function createTestAccount(ctx: AppContext, overrides: Partial<CreateAccountInput> = {}): Promise<CreatedAccount> {
  accountCounter += 1;
  return createAccount(ctx, {
    name: `Account ${accountCounter}`,
    ownerEmail: `owner${accountCounter}@example.com`,
    ownerFirstName: 'Olga',
    ownerLastName: 'Owner',
    maxUsers: 10,
    timezone: 'Europe/Warsaw',
    places: ['offline', 'phone-call', 'zoom'],
    ...overrides,
  });
}

/** `app.inject` with the API key and JSON headers a client would send. */
export function call(
  app: FastifyInstance,
  apiKey: string | null,
  method: InjectOptions['method'],
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url,
    headers: {
      accept: 'application/json',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(apiKey !== null ? { 'x-service-api-key': apiKey } : {}),
      ...headers,
    },
    ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
}

/** Asserts the response is problem+json with the given status and code, and returns it. */
export function expectProblem(response: LightMyRequestResponse, status: number, code: string) {
  const body = response.json() as { status: number; code: string; type: string; title: string; detail: string; errors?: { path: string; message: string }[] };
  if (response.statusCode !== status || body.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${response.statusCode} ${response.body}`);
  }
  if (!String(response.headers['content-type']).startsWith('application/problem+json')) {
    throw new Error(`expected application/problem+json, got ${response.headers['content-type']}`);
  }
  if (body.status !== status || !body.type.startsWith('/docs/problems#') || !body.title || !body.detail) {
    throw new Error(`malformed problem body: ${response.body}`);
  }
  return body;
}

/** A TCP port nobody listens on right now, for a server process a test starts. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Runs every due background job (events, e-mails, webhook deliveries) until none is left,
 * the e-mails going into `sent` instead of out.
 */
export async function runJobsCapturingMail(ctx: AppContext, sent: RenderedMessage[]): Promise<void> {
  const transport = { send: async (message: RenderedMessage) => void sent.push(message), close: () => undefined, describe: () => 'capture' };
  const jobs = startBackgroundJobs(ctx, { transport, jobIntervalMs: 3_600_000 });
  try {
    await jobs.runOnce();
  } finally {
    await jobs.stop();
  }
}
