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
export async function migrateToLatest(db: Db): Promise<MigrationOutcome> {
  // Migrations are written on parallel branches and land in merge order, not name order
  // (0016 reached main before 0014): a database migrated in between must still take the
  // one it lacks instead of refusing to start.
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations }, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    throw new Error(`Migration ${failed?.migrationName ?? '(unknown)'} failed: ${describe(error)}`, { cause: error });
  }
  const all = await migrator.getMigrations();
  return {
    applied: (results ?? []).filter((r: MigrationResult) => r.status === 'Success').map((r) => r.migrationName),
    current: all.filter((m) => m.executedAt !== undefined).map((m) => m.name),
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
