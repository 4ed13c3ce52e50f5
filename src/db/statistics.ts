import { sql } from 'kysely';
import type { Db } from './database.js';

/**
 * Rows each index is sampled over when SQLite gathers statistics. A sample shorter than one
 * host's meetings saw one host only in the host index as in the account's, so both looked as
 * selective (a host's year is ~1,250 meetings in bench/year.ts): 10,000 tells a host from its
 * account up to that many meetings a host, and costs milliseconds per index.
 */
export const SQLITE_ANALYSIS_LIMIT = 10_000;

/**
 * SQLite's planner statistics, kept current the way SQLite recommends for a long-lived
 * connection: `PRAGMA optimize` (0x10002: every table, not only those this connection has
 * queried) analyses a table never analysed, or whose rows grew or shrank 25-fold since, and
 * does nothing otherwise, so it is cheap to repeat. Without statistics SQLite guesses every
 * index alike, and on a year's data chose the account's (account, start) index over a host's
 * own for a host's meetings. Statements this connection holds prepared are planned again with
 * the new figures. PostgreSQL: nothing to do, autovacuum analyses tables as they change.
 */
export async function refreshPlannerStatistics(db: Db, dialect: 'sqlite' | 'postgres'): Promise<void> {
  if (dialect !== 'sqlite') return;
  await sql.raw(`pragma analysis_limit = ${SQLITE_ANALYSIS_LIMIT}`).execute(db);
  await sql.raw('pragma optimize = 0x10002').execute(db);
}
