import type { Transaction } from 'kysely';
import type { Database, Db } from './database.js';
import { isRetryableConflict } from './errors.js';

/**
 * Runs `work` in one transaction and re-runs it from scratch when the database reports a
 * conflict a retry resolves (a unique index lost a race, a serialisation failure or a
 * deadlock). `work` must therefore only touch the database, never send or print anything.
 */
export async function inTransaction<T>(db: Db, work: (trx: Transaction<Database>) => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (attempt >= attempts || !isRetryableConflict(error)) throw error;
      // A little jitter so the racers do not collide again in lockstep.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
}
