import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../src/db/connect.js';
import { inTransaction } from '../../src/db/transaction.js';
import { DIALECTS, createTestDatabase, type TestDatabase } from '../helpers.js';

/**
 * On PostgreSQL each connection names the statements it runs, so they are planned once
 * (src/db/connect.ts, prepareByText). What an operator must be able to count on: a
 * migration under running instances does not break them, and the switch turns it off.
 */
describe.runIf(DIALECTS.includes('postgres'))('PostgreSQL statements prepared per connection', () => {
  let database: TestDatabase | undefined;
  let handle: DbHandle | undefined;

  afterEach(async () => {
    await handle?.destroy();
    await database?.drop();
    handle = undefined;
    database = undefined;
  });

  async function open(preparedStatements: boolean) {
    database = await createTestDatabase('postgres');
    const config = database.config.database;
    if (config.dialect !== 'postgres') throw new Error('postgres expected');
    // One connection, so every query below meets the statements the previous ones prepared.
    handle = createDb({ ...config, poolSize: 1, preparedStatements });
    await sql`create table probe (id text primary key, label text not null)`.execute(handle.db);
    await sql`insert into probe (id, label) values ('a', 'first')`.execute(handle.db);
    return handle.db;
  }

  const preparedNames = async (db: DbHandle['db']) => (await sql<{ name: string }>`select name from pg_prepared_statements order by name`.execute(db)).rows.map((row) => row.name);
  const readProbe = (db: DbHandle['db'], id: string) => sql<Record<string, unknown>>`select * from probe where id = ${id}`.execute(db);

  it('prepares a statement with parameters once and runs it again by name', async () => {
    const db = await open(true);
    await readProbe(db, 'a');
    await readProbe(db, 'b');
    expect(await preparedNames(db)).toHaveLength(1);
    expect((await readProbe(db, 'a')).rows).toEqual([{ id: 'a', label: 'first' }]);
  });

  it('prepares nothing when DATABASE_PREPARED_STATEMENTS is false (a pooler that cannot keep them)', async () => {
    const db = await open(false);
    await readProbe(db, 'a');
    expect(await preparedNames(db)).toEqual([]);
  });

  it('survives a migration that changes a prepared select *: the transaction is retried on a fresh connection', async () => {
    const db = await open(true);
    await readProbe(db, 'a');
    // Another instance migrates: the prepared statement's result columns change.
    await sql`alter table probe add column note text`.execute(db);
    const attempts: string[] = [];
    const row = await inTransaction(db, async (trx) => {
      try {
        return (await readProbe(trx, 'a')).rows[0];
      } catch (error) {
        attempts.push((error as Error).message);
        throw error;
      }
    });
    expect(attempts).toEqual(['cached plan must not change result type']);
    expect(row).toEqual({ id: 'a', label: 'first', note: null });
    // The connection that held the stale plan was replaced; later queries just work.
    expect((await readProbe(db, 'a')).rows).toEqual([{ id: 'a', label: 'first', note: null }]);
  });
});
