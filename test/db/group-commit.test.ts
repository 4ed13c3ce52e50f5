import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../src/db/connect.js';
import { inOutboxTransaction, inTransaction } from '../../src/db/transaction.js';

/**
 * On SQLite, transactions that arrive together share one COMMIT (src/db/transaction.ts).
 * Each caller must still get what a transaction of its own would give: its writes all or
 * not at all, the writes of those before it, and an answer only once they are on disk.
 */
describe('SQLite transactions that share a commit', () => {
  let dir: string;
  let handle: DbHandle;
  let reader: SqliteDatabase.Database;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termin-group-commit-'));
    const filename = path.join(dir, 'probe.db');
    handle = createDb({ dialect: 'sqlite', filename });
    await sql`create table probe (id text primary key, n integer not null)`.execute(handle.db);
    // Another connection, as another process (or the prepared reads) would see the file.
    reader = new SqliteDatabase(filename, { readonly: true });
  });

  afterEach(async () => {
    reader.close();
    await handle.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const rows = () => reader.prepare('select id from probe order by id').pluck().all() as string[];
  const insert =
    (id: string, n = 0) =>
    (trx: Parameters<Parameters<typeof inTransaction>[1]>[0]) =>
      sql`insert into probe (id, n) values (${id}, ${n})`.execute(trx);

  it("skips the sync of a commit only the outbox's bookkeeping shares, never of one a booking shares, and syncs every commit after", async () => {
    // What the connection's setting was while each unit ran: 2 = full (a sync at COMMIT), 1 = normal.
    const insertSeeingSync = (id: string) => async (trx: Parameters<Parameters<typeof inTransaction>[1]>[0]) => {
      await insert(id)(trx);
      return (await sql<{ synchronous: number }>`pragma synchronous`.execute(trx)).rows[0]!.synchronous;
    };
    const alone = await Promise.all([inOutboxTransaction(handle.db, insertSeeingSync('claim-1')), inOutboxTransaction(handle.db, insertSeeingSync('claim-2'))]);
    expect(alone).toEqual([1, 1]);
    const shared = await Promise.all([inOutboxTransaction(handle.db, insertSeeingSync('claim-3')), inTransaction(handle.db, insertSeeingSync('booking'))]);
    expect(shared).toEqual([2, 2]);
    expect(rows()).toEqual(['booking', 'claim-1', 'claim-2', 'claim-3']);
    expect((await sql<{ synchronous: number }>`pragma synchronous`.execute(handle.db)).rows[0]!.synchronous).toBe(2);
  });

  it('commits the others when one of them fails, and keeps nothing of the one that failed', async () => {
    const results = await Promise.allSettled(
      ['a', 'b', 'c', 'd', 'e'].map((id) =>
        inTransaction(handle.db, async (trx) => {
          await insert(id)(trx);
          await insert(`${id}-second`)(trx);
          if (id === 'c') throw new Error('c changed its mind');
          return id;
        }),
      ),
    );
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((results[2] as PromiseRejectedResult).reason.message).toBe('c changed its mind');
    expect(rows()).toEqual(['a', 'a-second', 'b', 'b-second', 'd', 'd-second', 'e', 'e-second']);
  });

  it('answers a caller only once its writes are committed (another connection sees them)', async () => {
    const seenAtAnswer: string[][] = [];
    await Promise.all(
      ['a', 'b', 'c'].map((id) =>
        inTransaction(handle.db, async (trx) => {
          await insert(id)(trx);
        }).then(() => seenAtAnswer.push(rows())),
      ),
    );
    // Every answer came after all three were visible to another connection.
    expect(seenAtAnswer).toEqual([
      ['a', 'b', 'c'],
      ['a', 'b', 'c'],
      ['a', 'b', 'c'],
    ]);
  });

  it('runs them one after another: each sees what the earlier ones wrote, not what a failed one wrote', async () => {
    const counted = await Promise.allSettled(
      [1, 2, 3, 4].map((n) =>
        inTransaction(handle.db, async (trx) => {
          await sql`insert into probe (id, n) values (${`row-${n}`}, ${n})`.execute(trx);
          if (n === 2) throw new Error('rolled back');
          const { rows: found } = await sql<{ total: number }>`select count(*) as total from probe`.execute(trx);
          return found[0]!.total;
        }),
      ),
    );
    expect(counted.map((result) => (result.status === 'fulfilled' ? result.value : 'failed'))).toEqual([1, 'failed', 2, 3]);
  });

  it('retries a unit that broke the shared transaction alone, and runs the others again', async () => {
    // A unit that ends SQLite's transaction under the others (as a disk-full error would):
    // its savepoint is gone, so the earlier units' writes are lost and must be redone.
    const attempts = new Map<string, number>();
    const results = await Promise.allSettled(
      ['a', 'breaker', 'c'].map((id) =>
        inTransaction(
          handle.db,
          async (trx) => {
            attempts.set(id, (attempts.get(id) ?? 0) + 1);
            await insert(id)(trx);
            if (id === 'breaker') {
              await sql`rollback`.execute(trx);
              throw new Error('the transaction is gone');
            }
          },
          1,
        ),
      ),
    );
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('the transaction is gone');
    expect(rows()).toEqual(['a', 'c']);
    expect(attempts.get('breaker')).toBe(1);
  });

  it('tells every caller when the shared commit cannot start, and stores nothing', async () => {
    // Another process holds the write lock beyond the busy timeout.
    const other = new SqliteDatabase(path.join(dir, 'probe.db'));
    other.prepare('begin immediate').run();
    await sql`pragma busy_timeout = 50`.execute(handle.db);
    try {
      const results = await Promise.allSettled(['a', 'b'].map((id) => inTransaction(handle.db, insert(id), 1)));
      expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
      expect((results[0] as PromiseRejectedResult).reason.code).toBe('SQLITE_BUSY');
    } finally {
      other.prepare('rollback').run();
      other.close();
    }
    expect(rows()).toEqual([]);
    // And the next ones go through.
    await Promise.all(['x', 'y'].map((id) => inTransaction(handle.db, insert(id))));
    expect(rows()).toEqual(['x', 'y']);
  });
});
