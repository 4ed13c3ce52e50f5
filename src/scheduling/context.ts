import type { Db } from '../db/database.js';
import type { FastReads } from '../db/fast-reads.js';
import type { ScheduleCache } from './schedule-cache.js';

/** What every use case needs: the database and the clock (so tests can move time). */
export interface UseCaseContext {
  db: Db;
  now: () => number;
  /** Prepared reads for the hot calculate path; without them the repositories serve. */
  reads?: FastReads | undefined;
  /** Computed schedules, checked against the host's calendar version on every use. */
  scheduleCache?: ScheduleCache | undefined;
  /** Seals stored credentials (src/secrets); absent in contexts that never touch them (the CLI). */
  secretKey?: Buffer | undefined;
}

/** The key that seals credentials; a context without one cannot store or use them. */
export function requireSecretKey(ctx: UseCaseContext): Buffer {
  if (!ctx.secretKey) throw new Error('this context has no secret key: credentials cannot be sealed or opened here');
  return ctx.secretKey;
}

/** The caller, as established from a valid API key. */
export interface Principal {
  keyUuid: string;
  userUuid: string;
  accountUuid: string;
  username: string;
}
