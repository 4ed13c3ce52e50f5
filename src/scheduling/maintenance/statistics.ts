import type { Db } from '../../db/database.js';
import { refreshPlannerStatistics } from '../../db/statistics.js';

/**
 * The maintenance beat's last step, after the pruning: SQLite's planner statistics brought up
 * to date where a table grew or shrank enough to matter (src/db/statistics.ts); a no-op on
 * PostgreSQL, whose autovacuum analyses tables itself.
 */
export async function refreshStatistics(ctx: { db: Db; config: { database: { dialect: 'sqlite' | 'postgres' } } }): Promise<void> {
  await refreshPlannerStatistics(ctx.db, ctx.config.database.dialect);
}
