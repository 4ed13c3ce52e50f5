import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import pg from 'pg';
import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { type RunningPgBouncer, startPgBouncer } from './pgbouncer-process.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of a reachable PostgreSQL server, or null when the PostgreSQL half is skipped. */
    postgresAdminUrl: string | null;
    /** Debian's Chromium, for the browser suites; null when they are skipped. */
    chromiumPath: string | null;
    /** Whether Radicale (the CalDAV server the calendar suites start) is installed. */
    radicaleAvailable: boolean;
    /** Debian's PgBouncer, for the suite that runs termin through it; null when it is skipped. */
    pgbouncerPath: string | null;
    /** TEST_PGBOUNCER=1: PgBouncer in transaction mode before the PostgreSQL server, which every PostgreSQL test reaches through it (test/helpers.ts); else null. */
    postgresBouncerUrl: string | null;
  }
}

const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Decides once per run whether the PostgreSQL half of the database tests runs. CI sets
 * TERMIN_REQUIRE_POSTGRES=1 so an unreachable server fails the run instead of silently
 * testing only SQLite.
 */
function sayAll(lines: readonly string[]): void {
  for (const line of lines) console.warn(line);
}

export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  const serverWarnings = provideRealServers(project);
  project.provide('postgresBouncerUrl', null);

  const url = process.env.TEST_POSTGRES_URL ?? DEFAULT_ADMIN_URL;
  const bounced = process.env.TEST_PGBOUNCER === '1';
  const required = process.env.TERMIN_REQUIRE_POSTGRES === '1' || bounced;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    project.provide('postgresAdminUrl', url);
    if (bounced) {
      const bouncer = await startRunBouncer(url);
      project.provide('postgresBouncerUrl', bouncer.url);
      console.log(
        `[termin tests] TEST_PGBOUNCER=1: PostgreSQL at ${redact(url)} through PgBouncer in transaction mode (${redact(bouncer.url)}); database tests run on PostgreSQL only.`,
      );
      return () => {
        bouncer.stop();
        sayAll(serverWarnings);
      };
    }
    console.log(`[termin tests] PostgreSQL reachable at ${redact(url)}: database tests run on SQLite and PostgreSQL.`);
    // Said again after the summary, where they cannot scroll out of sight.
    if (serverWarnings.length > 0) return () => sayAll(serverWarnings);
    return undefined;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (required) {
      throw new Error(`TERMIN_REQUIRE_POSTGRES=1 but PostgreSQL is unreachable at ${redact(url)}: ${reason}`);
    }
    project.provide('postgresAdminUrl', null);
    const warning = `[termin tests] SKIPPING the PostgreSQL half: no server at ${redact(url)} (${reason}). Only SQLite is tested. Set TEST_POSTGRES_URL to point at one.`;
    console.warn(warning);
    // Said again after the summary, where it cannot scroll out of sight.
    return () => sayAll([...serverWarnings, warning]);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * TEST_PGBOUNCER=1: the run's PgBouncer, in transaction mode with its defaults but for how
 * many clients it lets in: test files run at once, each with a pool of up to 20 connections
 * (PgBouncer's default allows 100), and the PgBouncer suite's own sessions.
 */
async function startRunBouncer(adminUrl: string): Promise<RunningPgBouncer> {
  const binary = [process.env.PGBOUNCER_PATH, '/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((candidate) => candidate !== undefined && existsSync(candidate));
  if (binary === undefined) throw new Error('TEST_PGBOUNCER=1 but no PgBouncer is installed (apt-get install pgbouncer)');
  return startPgBouncer(binary, new URL(adminUrl), { max_client_conn: '1000' });
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}

/**
 * The browser, CalDAV and PgBouncer suites run against real programs (Debian's chromium, radicale
 * and pgbouncer).
 * Without them those suites are skipped and the run says so, as for PostgreSQL; CI
 * (TERMIN_REQUIRE_ALL=1, set by .ci/run after installing them) fails instead.
 */
function provideRealServers(project: TestProject): string[] {
  const chromium = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((candidate) => candidate !== undefined && existsSync(candidate)) ?? null;
  let radicale = existsSync('/usr/bin/radicale');
  if (!radicale) {
    try {
      execFileSync('python3', ['-c', 'import radicale'], { stdio: 'ignore' });
      radicale = true;
    } catch {
      radicale = false;
    }
  }
  const pgbouncer = [process.env.PGBOUNCER_PATH, '/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((candidate) => candidate !== undefined && existsSync(candidate)) ?? null;
  project.provide('chromiumPath', chromium);
  project.provide('pgbouncerPath', pgbouncer);
  project.provide('radicaleAvailable', radicale);
  const missing = [
    ...(chromium === null ? ['the browser suites (test/browser, the docs page in Chromium): no Chromium (apt-get install chromium)'] : []),
    ...(radicale ? [] : ['the CalDAV suites (test/calendars against Radicale): no Radicale (apt-get install radicale)']),
    ...(pgbouncer === null ? ['the PgBouncer suite (test/db/pgbouncer.test.ts): no PgBouncer (apt-get install pgbouncer)'] : []),
  ];
  if (missing.length > 0 && process.env.TERMIN_REQUIRE_ALL === '1') {
    throw new Error(`TERMIN_REQUIRE_ALL=1 but these cannot run: ${missing.join('; ')}`);
  }
  const warnings = missing.map((what) => `[termin tests] SKIPPING ${what}.`);
  for (const warning of warnings) console.warn(warning);
  return warnings;
}
