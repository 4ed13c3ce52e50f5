import { sql } from 'kysely';
import type { Db } from './database.js';
import { inTransaction } from './transaction.js';

/** Writes refused for lack of room, from the first until now. */
export interface StorageOutage {
  since: number;
  lastFailureAt: number;
  failedWrites: number;
}

/**
 * Whether the SQLite database's writes find room on its disk, as its own writes tell: the
 * connection reports each write refused for lack of room (isStorageFull) and each commit
 * that stored rows after such a refusal. Readiness reports the outage; a commit that stores
 * something again ends it, and so does a readiness probe (probeStorage) that finds room when
 * no write has come for a while (a load balancer stops sending any to an unready instance).
 * A process writes once at start (probeStorage, from src/context.ts), so a full disk shows
 * before any request, not at the first refused booking.
 *
 * Only SQLite has one: its disk is this instance's own. PostgreSQL's disk is the server's,
 * shared by every instance, and taking them all out of service would stop the reads too.
 */
export class StorageHealth {
  private current: StorageOutage | null = null;

  constructor(
    private readonly now: () => number,
    private readonly onRecovered: (outage: StorageOutage, at: number) => void = () => undefined,
  ) {}

  /** Null while writes are stored. */
  get outage(): Readonly<StorageOutage> | null {
    return this.current;
  }

  /** `writes` (transactions, or statements outside one) were refused for lack of room. */
  noteRefused(writes = 1): void {
    const now = this.now();
    this.current ??= { since: now, lastFailureAt: now, failedWrites: 0 };
    this.current.lastFailureAt = now;
    this.current.failedWrites += writes;
  }

  /** A write was stored after all: there is room again. */
  noteStored(): void {
    const ended = this.current;
    if (ended === null) return;
    this.current = null;
    this.onRecovered(ended, this.now());
  }
}

/**
 * The smallest write that needs room: the database header rewritten unchanged (its
 * `user_version`, which termin does not use), one page appended to the WAL. It cannot fill
 * the disk (the page is reclaimed at the next checkpoint) and changes nothing a booking
 * reads; it queues with the bookings' transactions like any other (transaction.ts).
 * Throws SQLITE_FULL while the WAL cannot grow.
 */
export async function probeStorage(db: Db): Promise<void> {
  await inTransaction(db, async (trx) => {
    const { rows } = await sql<{ user_version: number }>`pragma user_version`.execute(trx);
    await sql.raw(`pragma user_version = ${Math.trunc(rows[0]?.user_version ?? 0)}`).execute(trx);
  });
}
