import type { Logger } from 'pino';
import type { Config, Secrets } from './config.js';
import { createDb, type Dialect, type PoolStats } from './db/connect.js';
import type { Db } from './db/database.js';
import { createFastReads } from './db/fast-reads.js';
import { migrateToLatest } from './db/migrate.js';
import { createLogger } from './logging.js';
import { createScheduleCache } from './scheduling/schedule-cache.js';
import { resolveSecretKey, type ResolvedSecretKey } from './secrets/secret-key.js';
import type { UseCaseContext } from './scheduling/context.js';

/** Everything the service shares between requests, built once at start-up. */
export interface AppContext extends UseCaseContext {
  config: Config;
  db: Db;
  dialect: Dialect;
  log: Logger;
  secretKey: Buffer;
  /** Where the secret key came from, for the start-up banner. */
  secretKeySource: Omit<ResolvedSecretKey, 'key'>;
  /** PostgreSQL pool usage for /metrics; null on SQLite (no pool). */
  dbPoolStats: (() => PoolStats) | null;
  close(): Promise<void>;
}

export interface ContextOptions {
  /** A fixed or controllable clock for tests. */
  now?: () => number;
  log?: Logger;
  /** From loadSecrets(); without them the key in the data directory is used (or generated). */
  secrets?: Secrets;
}

export async function createContext(config: Config, options: ContextOptions = {}): Promise<AppContext> {
  const log = options.log ?? createLogger(config);
  const { key: secretKey, ...secretKeySource } = resolveSecretKey(options.secrets ?? { secretKey: null }, config.dataDir);
  const handle = createDb(config.database, (error) => log.warn({ err: error }, 'a database connection failed'), config.databaseTimeouts);
  if (config.migrateOnStart) {
    const outcome = await migrateToLatest(handle.db);
    if (outcome.applied.length > 0) log.info({ applied: outcome.applied }, 'database migrated');
  }
  // After migrating: the read connection prepares statements against the tables.
  const reads = createFastReads(config.database, handle.db);
  let closed = false;
  return {
    config,
    db: handle.db,
    dialect: handle.dialect,
    log,
    reads,
    scheduleCache: createScheduleCache(config.scheduleCacheBytes),
    secretKey,
    secretKeySource,
    dbPoolStats: handle.poolStats,
    now: options.now ?? Date.now,
    async close() {
      if (closed) return;
      closed = true;
      reads.close();
      await handle.destroy();
    },
  };
}
