import pg from 'pg';
import type {} from 'vitest';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of a reachable PostgreSQL server, or null when the PostgreSQL half is skipped. */
    postgresAdminUrl: string | null;
  }
}

const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Decides once per run whether the PostgreSQL half of the database tests runs. CI sets
 * TERMIN_REQUIRE_POSTGRES=1 so an unreachable server fails the run instead of silently
 * testing only SQLite.
 */
export default async function setup(project: TestProject): Promise<(() => void) | void> {
  const url = process.env.TEST_POSTGRES_URL ?? DEFAULT_ADMIN_URL;
  const required = process.env.TERMIN_REQUIRE_POSTGRES === '1';
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    project.provide('postgresAdminUrl', url);
    console.log(`[termin tests] PostgreSQL reachable at ${redact(url)}: database tests run on SQLite and PostgreSQL.`);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (required) {
      throw new Error(`TERMIN_REQUIRE_POSTGRES=1 but PostgreSQL is unreachable at ${redact(url)}: ${reason}`);
    }
    project.provide('postgresAdminUrl', null);
    const warning =
      `[termin tests] SKIPPING the PostgreSQL half: no server at ${redact(url)} (${reason}). ` +
      'Only SQLite is tested. Set TEST_POSTGRES_URL to point at one.';
    console.warn(warning);
    // Said again after the summary, where it cannot scroll out of sight.
    return () => console.warn(warning);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}
