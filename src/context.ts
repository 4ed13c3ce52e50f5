import { pino, type Logger } from 'pino';
import type { Config } from './config.js';
import { createDb, type Dialect } from './db/connect.js';
import type { Db } from './db/database.js';
import { createFastReads } from './db/fast-reads.js';
import { migrateToLatest } from './db/migrate.js';
import { createScheduleCache } from './scheduling/schedule-cache.js';
import type { UseCaseContext } from './scheduling/context.js';

/** Everything the service shares between requests, built once at start-up. */
export interface AppContext extends UseCaseContext {
  config: Config;
  db: Db;
  dialect: Dialect;
  log: Logger;
  close(): Promise<void>;
}

export interface ContextOptions {
  /** A fixed or controllable clock for tests. */
  now?: () => number;
  log?: Logger;
}

export async function createContext(config: Config, options: ContextOptions = {}): Promise<AppContext> {
  const log = options.log ?? createLogger(config);
  const handle = createDb(config.database, (error) => log.warn({ err: error }, 'an idle database connection failed'));
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
    scheduleCache: createScheduleCache(),
    now: options.now ?? Date.now,
    async close() {
      if (closed) return;
      closed = true;
      reads.close();
      await handle.destroy();
    },
  };
}

export function createLogger(config: Config): Logger {
  return pino({
    level: config.logLevel,
    // Keys and e-mail credentials must never reach the logs.
    redact: { paths: ['req.headers["x-service-api-key"]', 'req.headers.authorization', 'apiKey', '*.apiKey'], censor: '[redacted]' },
  });
}
