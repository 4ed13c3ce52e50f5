import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/db/errors.js';
import { DIALECTS } from '../helpers.js';
import { startServer, stopServer, type ServerProcess } from '../process.js';
import { createBookingFixture, type BookingFixture } from './booking.js';

/**
 * PostgreSQL that refuses to serve: a database not accepting connections (ALLOW_CONNECTIONS
 * false, as while it is restored), one that does not exist, a role it refuses. Each is an
 * outage the caller should wait out (503 with Retry-After), never a 500 that reads as a bug.
 */
describe.runIf(DIALECTS.includes('postgres'))('a PostgreSQL database that refuses connections', () => {
  let fixture: BookingFixture;
  let server: ServerProcess;
  let admin: pg.Client;
  let databaseName: string;
  let databaseUrl: URL;

  beforeAll(async () => {
    fixture = await createBookingFixture('postgres');
    const config = fixture.database.config.database;
    if (config.dialect !== 'postgres') throw new Error('expected PostgreSQL');
    databaseUrl = new URL(config.url);
    databaseName = databaseUrl.pathname.slice(1);
    const adminUrl = new URL(config.url);
    adminUrl.pathname = '/postgres';
    admin = new pg.Client({ connectionString: adminUrl.toString() });
    await admin.connect();
    server = await startServer({ ...fixture.serverEnv, DATABASE_POOL_SIZE: '3', DATABASE_CONNECT_TIMEOUT_MS: '2000' });
  }, 60_000);

  afterAll(async () => {
    await admin?.query(`alter database ${databaseName} allow_connections true`).catch(() => undefined);
    if (server) await stopServer(server);
    await admin?.end();
    await fixture?.close();
  });

  /** What the driver throws when it tries to connect to `url`. */
  const connectionError = async (url: URL): Promise<unknown> => {
    const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query('select 1');
      return null;
    } catch (error) {
      return error;
    } finally {
      await client.end().catch(() => undefined);
    }
  };

  it("reads the server's refusals as the database being unavailable, and a bad query as not", async () => {
    const missing = new URL(databaseUrl);
    missing.pathname = '/termin_no_such_database';
    const noRole = new URL(databaseUrl);
    noRole.username = 'termin_no_such_role';
    const refusals = { database: await connectionError(missing), role: await connectionError(noRole) };
    expect((refusals.database as { code?: string }).code).toBe('3D000');
    expect((refusals.role as { code?: string }).code).toBe('28000');
    expect(isDatabaseUnavailable(refusals.database)).toBe(true);
    expect(isDatabaseUnavailable(refusals.role)).toBe(true);

    const syntax = await admin.query('selec 1').catch((error: unknown) => error);
    expect((syntax as { code?: string }).code).toBe('42601');
    expect(isDatabaseUnavailable(syntax)).toBe(false);
  });

  it('answers every kind of route 503 with Retry-After while connections are refused, and recovers by itself', async () => {
    const { account, topicUuid } = fixture;
    const api = (path: string, init: RequestInit = {}) => fetch(`${server.url}${path}`, { ...init, signal: AbortSignal.timeout(15_000) });
    const calls = {
      authenticated: () => api('/api/v1/teams', { headers: { 'x-service-api-key': account.apiKey } }),
      public: () =>
        api('/api/v1/calculate-schedule', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ meetingTopic: topicUuid, username: account.owner.username, timezone: 'UTC', offset: 0 }),
        }),
    };
    expect((await calls.authenticated()).status).toBe(200);

    await admin.query(`alter database ${databaseName} allow_connections false`);
    await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [databaseName]);
    // What the driver now gets: SQLSTATE 55000, which the service must read as an outage.
    const refused = await connectionError(databaseUrl);
    expect((refused as { code?: string }).code).toBe('55000');

    for (const [which, call] of Object.entries(calls)) {
      const response = await call();
      expect(response.status, which).toBe(503);
      expect(Number(response.headers.get('retry-after')), which).toBeGreaterThan(0);
      expect(response.headers.get('content-type'), which).toMatch(/^application\/problem\+json/);
      expect(((await response.json()) as { code: string }).code, which).toBe('DATABASE_UNAVAILABLE');
    }
    // A page for people: the same outage, as an HTML page with Retry-After.
    const page = await api(`/book/${account.owner.username}/${topicUuid}`);
    expect(page.status).toBe(503);
    expect(Number(page.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect((await api('/readyz')).status).toBe(503);
    expect((await api('/healthz')).status).toBe(200);

    await admin.query(`alter database ${databaseName} allow_connections true`);
    await expect.poll(async () => (await calls.authenticated()).status, { timeout: 15_000 }).toBe(200);
    expect((await calls.public()).status).toBe(200);
  }, 60_000);
});
