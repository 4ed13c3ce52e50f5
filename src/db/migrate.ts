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
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
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
