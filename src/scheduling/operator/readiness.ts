import { pingDatabase } from '../../db/connect.js';
import { probeStorage, type StorageOutage } from '../../db/storage-health.js';
import type { UseCaseContext } from '../context.js';

export type Readiness =
  | { ready: true }
  | { ready: false; reason: 'database not answering' | 'database unreachable'; error?: unknown }
  | { ready: false; reason: 'database cannot store changes'; outage: StorageOutage };

/**
 * While writes are refused for lack of room, readiness writes once itself (probeStorage) when
 * none has been tried for this long, so that an instance a load balancer no longer sends
 * writes to still finds out that there is room again.
 */
export const STORAGE_RECHECK_MS = 5_000;

/**
 * Whether this instance can serve: the database answers a trivial statement within
 * `timeoutMs`, and (SQLite) its last write found room on the disk. A database that accepts
 * connections but never answers must not hang the probe (load balancers time out too), so
 * the answer comes within the bound either way; the abandoned statement fails later on its
 * own connection timeout.
 *
 * The disk is judged by the writes themselves, not by a write of every probe: that would
 * take the write lock between bookings every few seconds on a healthy instance, and a
 * one-page write can find room where a booking's dozen pages do not. Only while writes are
 * being refused does readiness write, to notice room coming back with no traffic at all; and
 * the context writes once at start (src/context.ts), so that a process started on a full disk
 * is not ready from its first probe on.
 */
export async function checkReadiness(ctx: Pick<UseCaseContext, 'db' | 'now' | 'dbStorage'>, timeoutMs: number): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const probe = pingDatabase(ctx.db).then(() => checkStorage(ctx));
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const outcome = await Promise.race([probe, timedOut]);
    if (outcome === 'timeout') {
      probe.catch(() => undefined);
      return { ready: false, reason: 'database not answering' };
    }
    return outcome;
  } catch (error) {
    return { ready: false, reason: 'database unreachable', error };
  } finally {
    clearTimeout(timer);
  }
}

async function checkStorage(ctx: Pick<UseCaseContext, 'db' | 'now' | 'dbStorage'>): Promise<Readiness> {
  const storage = ctx.dbStorage;
  if (!storage?.outage) return { ready: true };
  if (ctx.now() - storage.outage.lastFailureAt >= STORAGE_RECHECK_MS) {
    try {
      await probeStorage(ctx.db);
      storage.noteStored();
      return { ready: true };
    } catch {
      // Still no room: the connection has counted the refusal.
    }
  }
  const outage = storage.outage;
  return outage === null ? { ready: true } : { ready: false, reason: 'database cannot store changes', outage: { ...outage } };
}
