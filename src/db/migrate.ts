import { Migrator, type MigrationResult } from 'kysely';
import type { Db } from './database.js';
import { migrations } from './migrations/index.js';

export interface MigrationOutcome {
  applied: string[];
  /** Every migration now applied, oldest first. */
  current: string[];
}

/**
 * Brings the schema up to date. Kysely's migrator holds a lock table while it runs, so
 * several instances starting together on one PostgreSQL database apply each migration once.
 */
export async function migrateToLatest(db: Db, databaseUrl?: string): Promise<MigrationOutcome> {
  // Migrations are written on parallel branches and land in merge order, not name order
  // (0016 reached main before 0014): a database migrated in between must still take the
  // one it lacks instead of refusing to start.
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations }, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const missing = missingDatabaseOf(error);
    if (missing !== null) throw new Error(explainMissingDatabase(missing, databaseUrl), { cause: error });
    const failed = results?.find((result) => result.status === 'Error');
    throw new Error(`Migration ${failed?.migrationName ?? '(unknown)'} failed: ${describe(error)}`, { cause: error });
  }
  const all = await migrator.getMigrations();
  return {
    applied: (results ?? []).filter((r: MigrationResult) => r.status === 'Success').map((r) => r.migrationName),
    current: all.filter((m) => m.executedAt !== undefined).map((m) => m.name),
  };
}

/** PostgreSQL's "database … does not exist" (SQLSTATE 3D000): its name, else null. */
function missingDatabaseOf(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  const named = /database "([^"]+)" does not exist/.exec(message);
  return code === '3D000' || named ? (named?.[1] ?? '(the one in DATABASE_URL)') : null;
}

/**
 * A fresh PostgreSQL server has no database of ours yet; the service does not create it
 * (its user often may not), so it says what to run, with DATABASE_URL's host, port and user
 * and never its password:
 * `explainMissingDatabase('termin', 'postgres://app:pw@db:5433/termin')` →
 * '… createdb -h db -p 5433 -U app termin …'.
 */
export function explainMissingDatabase(name: string, databaseUrl?: string): string {
  let flags = '';
  try {
    const url = databaseUrl ? new URL(databaseUrl) : null;
    if (url) flags = [url.hostname && `-h ${url.hostname}`, url.port && `-p ${url.port}`, url.username && `-U ${decodeURIComponent(url.username)}`].filter(Boolean).join(' ');
  } catch {
    flags = '';
  }
  const quoted = `"${name.replace(/"/g, '""')}"`;
  return (
    `The PostgreSQL database ${quoted} does not exist, so nothing could be migrated. Create it, as a user allowed to, then run this again:\n` +
    `  createdb ${flags ? `${flags} ` : ''}${name}\n` +
    `or in psql: CREATE DATABASE ${quoted};`
  );
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
