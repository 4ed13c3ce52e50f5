import { pingDatabase } from '../db/connect.js';
import type { UseCaseContext } from './context.js';

export type Readiness = { ready: true } | { ready: false; reason: 'database not answering' | 'database unreachable'; error?: unknown };

/**
 * Whether this instance can serve: the database answers a trivial statement within
 * `timeoutMs`. A database that accepts connections but never answers must not hang the
 * probe (load balancers time out too), so the answer comes within the bound either way;
 * the abandoned statement fails later on its own connection timeout.
 */
export async function checkReadiness(ctx: Pick<UseCaseContext, 'db'>, timeoutMs: number): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const probe = pingDatabase(ctx.db);
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    if ((await Promise.race([probe, timedOut])) === 'timeout') {
      probe.catch(() => undefined);
      return { ready: false, reason: 'database not answering' };
    }
    return { ready: true };
  } catch (error) {
    return { ready: false, reason: 'database unreachable', error };
  } finally {
    clearTimeout(timer);
  }
}
