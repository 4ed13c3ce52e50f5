import { CompiledQuery, SqliteAdapter, type Kysely, type Transaction } from 'kysely';
import type { Database, Db, DbOrTrx } from './database.js';
import { isRetryableConflict } from './errors.js';

/**
 * Runs `work` in one transaction and re-runs it from scratch when the database reports a
 * conflict a retry resolves (a unique index lost a race, a serialisation failure or a
 * deadlock). `work` must therefore only touch the database, never send or print anything.
 *
 * On SQLite, transactions that arrive while another is running share one commit (see
 * commitTogether); each still sees the database as if it ran alone, after the ones before it.
 */
export async function inTransaction<T>(db: Db, work: (trx: Transaction<Database>) => Promise<T>, attempts = 5): Promise<T> {
  return retried(db, work, attempts, true);
}

/**
 * A transaction of the outbox's own bookkeeping (claims, completions, an event's fan-out),
 * whose loss in a power cut only makes work run again, at least once as before. On SQLite
 * with `synchronous = full`, a commit shared only by such transactions skips its sync: the
 * next durable commit (a booking's) syncs the WAL, which holds these before it, and a process
 * that is killed loses nothing either way (the WAL is written before COMMIT returns). Under a
 * booking peak the outbox's syncs, several per job, held the event loop a sixth of the time.
 */
export async function inOutboxTransaction<T>(db: Db, work: (trx: Transaction<Database>) => Promise<T>, attempts = 5): Promise<T> {
  return retried(db, work, attempts, false);
}

async function retried<T>(db: Db, work: (trx: Transaction<Database>) => Promise<T>, attempts: number, durable: boolean): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return isSqlite(db) ? await commitTogether(db, work, durable) : await db.transaction().execute(work);
    } catch (error) {
      if (attempt >= attempts || !isRetryableConflict(error)) throw error;
      // A little jitter so the racers do not collide again in lockstep.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
}

/**
 * Runs a lone write (an outbox job's claim or completion) so that on SQLite it shares the
 * commit of the transactions queued meanwhile (see commitTogether) instead of paying a WAL
 * sync of its own: under a booking peak the outbox's own commits, several per job, starved it
 * of the single writer and confirmations fell minutes behind. On PostgreSQL it runs as it is:
 * concurrent commits there share their WAL flushes already. Same retry rules as inTransaction.
 */
export function inSharedCommit<T>(db: Db, work: (db: DbOrTrx) => Promise<T>): Promise<T> {
  return isSqlite(db) ? inOutboxTransaction(db, work) : work(db);
}

function isSqlite(db: Db): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter;
}

/** At most this many transactions share one commit: a bound on how long the first one waits. */
const MAX_UNITS_PER_COMMIT = 32;

interface Unit {
  work: (trx: Transaction<Database>) => Promise<unknown>;
  /** Its commit must be synced before it is told (false: outbox bookkeeping, see inOutboxTransaction). */
  durable: boolean;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

const groups = new WeakMap<Db, (unit: Unit) => void>();

/** Each transaction sharing a commit runs in one of these (connect.ts counts them as they start and fail). */
export const SAVEPOINT = CompiledQuery.raw('savepoint grouped');
const RELEASE = CompiledQuery.raw('release grouped');
export const ROLLBACK_TO = CompiledQuery.raw('rollback to grouped');

/**
 * Group commit for SQLite. It has one writer, so transactions already run one after another;
 * what each one paid alone was its COMMIT: writing every page it touched to the WAL (and, every
 * thousand pages, a checkpoint). A booking touches some fourteen pages — the meetings, events
 * and outbox tables and their indexes — and the next booking touches mostly the same ones. So
 * the transactions queued while one runs are run together: one BEGIN IMMEDIATE, each in a
 * savepoint of its own, one COMMIT. A transaction that fails rolls back to its savepoint and
 * fails alone; the others commit. Nobody hears of success before the shared COMMIT is done,
 * so what a caller is told is as durable as before. Units never wait for company, only for
 * the current turn of the event loop: a lone transaction commits at once.
 */
function commitTogether<T>(db: Db, work: (trx: Transaction<Database>) => Promise<T>, durable: boolean): Promise<T> {
  let enqueue = groups.get(db);
  if (!enqueue) {
    enqueue = createCommitGroup(db);
    groups.set(db, enqueue);
  }
  const run = enqueue;
  return new Promise<T>((resolve, reject) => run({ work, durable, resolve: resolve as (value: unknown) => void, reject }));
}

function createCommitGroup(db: Db): (unit: Unit) => void {
  const queue: Unit[] = [];
  let draining = false;
  const drain = async () => {
    const batch = queue.splice(0, MAX_UNITS_PER_COMMIT);
    try {
      queue.unshift(...(await commitBatch(db, batch)));
    } catch (error) {
      // commitBatch settles every unit itself; this only guards against a caller left waiting.
      for (const unit of batch) unit.reject(error);
    }
    // What queued meanwhile (or must run again) commits in the next turn, after pending I/O:
    // a chain of transactions cannot keep the event loop from answering requests, and the
    // requests read in that turn join the batch.
    if (queue.length > 0) setImmediate(() => void drain());
    else draining = false;
  };
  return (unit) => {
    queue.push(unit);
    if (draining) return;
    // better-sqlite3 runs synchronously, so a transaction never yields to the event loop: the
    // requests that reach a unit in this turn of it are all queued by the time this runs.
    draining = true;
    setImmediate(() => void drain());
  };
}

/**
 * Runs the units in one transaction and settles each. Returns the units to run again: those
 * that had not failed themselves when another unit broke the shared transaction.
 */
async function commitBatch(db: Db, batch: Unit[]): Promise<Unit[]> {
  if (batch.every((unit) => !unit.durable) && (await syncsEveryCommit(db))) {
    // On one connection held throughout, so nothing else commits unsynced meanwhile (the
    // setting cannot change inside a transaction).
    return db.connection().execute(async (connection) => {
      await connection.executeQuery(SYNC_NORMAL);
      try {
        return await commitUnits(connection, batch);
      } finally {
        await connection.executeQuery(SYNC_FULL);
      }
    });
  }
  return commitUnits(db, batch);
}

const SYNC_NORMAL = CompiledQuery.raw('pragma synchronous = normal');
const SYNC_FULL = CompiledQuery.raw('pragma synchronous = full');
const syncSettings = new WeakMap<Db, Promise<boolean>>();

/** Whether the database syncs at every commit (`synchronous = full`, the default), read once. */
function syncsEveryCommit(db: Db): Promise<boolean> {
  let full = syncSettings.get(db);
  if (!full) {
    full = db.executeQuery<{ synchronous: number }>(CompiledQuery.raw('pragma synchronous')).then((result) => result.rows[0]?.synchronous === 2);
    syncSettings.set(db, full);
  }
  return full;
}

async function commitUnits(db: Kysely<Database>, batch: Unit[]): Promise<Unit[]> {
  if (batch.length === 1) {
    const unit = batch[0]!;
    await db.transaction().execute(unit.work).then(unit.resolve, unit.reject);
    return [];
  }
  const committed: { unit: Unit; value: unknown }[] = [];
  const failed = new Set<Unit>();
  // The unit whose failure also ended SQLite's transaction (disk full, I/O error): its
  // savepoint is gone, and so is everything the units before it did.
  let broken: { unit: Unit; error: unknown } | null = null;
  try {
    await db.transaction().execute(async (trx) => {
      for (const unit of batch) {
        await trx.executeQuery(SAVEPOINT);
        try {
          const value = await unit.work(trx);
          await trx.executeQuery(RELEASE);
          committed.push({ unit, value });
        } catch (error) {
          try {
            await trx.executeQuery(ROLLBACK_TO);
            await trx.executeQuery(RELEASE);
          } catch (rollbackError) {
            broken = { unit, error };
            throw rollbackError;
          }
          failed.add(unit);
          unit.reject(error);
        }
      }
    });
  } catch (error) {
    // (When SQLite already ended the transaction, no ROLLBACK is sent after it: see connect.ts.)
    const culprit = broken as { unit: Unit; error: unknown } | null;
    if (culprit !== null) {
      // Its own failure goes to the unit that broke the transaction; the others lost
      // nothing they were told of, and run again.
      culprit.unit.reject(culprit.error);
      return batch.filter((unit) => unit !== culprit.unit && !failed.has(unit));
    }
    // BEGIN or COMMIT failed: nothing was stored. Each caller decides (a busy database is retried).
    for (const unit of batch) if (!failed.has(unit)) unit.reject(error);
    return [];
  }
  for (const { unit, value } of committed) unit.resolve(value);
  return [];
}
