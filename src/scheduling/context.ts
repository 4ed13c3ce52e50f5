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
}

/** The caller, as established from a valid API key. */
export interface Principal {
  keyUuid: string;
  userUuid: string;
  accountUuid: string;
  username: string;
}
