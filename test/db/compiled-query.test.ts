import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileOnce } from '../../src/db/compiled-query.js';
import { createDb, type DbHandle } from '../../src/db/connect.js';
import { DIALECTS, createTestDatabase, type TestDatabase } from '../helpers.js';

/**
 * The hot statements (a booking's, an API key's lookup) are compiled once and re-run with
 * each call's values (src/db/compiled-query.ts). A mix-up of values between calls would book
 * the wrong host, so: each call gets its own values, on both databases, and a build that
 * could silently freeze one call's values into the SQL is refused.
 */
describe.each(DIALECTS)('queries compiled once (%s)', (dialect) => {
  let database: TestDatabase;
  let handle: DbHandle;
  // A scratch table outside the service's schema.
  let db: Kysely<any>;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    handle = createDb(database.config.database);
    db = handle.db as unknown as Kysely<any>;
    await sql`create table probe (id text primary key, label text not null default 'unnamed', n integer)`.execute(db);
  });

  afterAll(async () => {
    await handle.destroy();
    await database.drop();
  });

  const insertProbe = compileOnce((trx, row: { id: string; label?: string; n: number | null }) => (trx as unknown as Kysely<any>).insertInto('probe').values(row));
  const findProbe = compileOnce((trx, id: string, minimum: number) =>
    (trx as unknown as Kysely<any>)
      .selectFrom('probe')
      .select(['id', 'label', 'n'])
      .where('id', '=', id)
      .where((eb) => eb.or([eb('n', '>=', minimum), eb('n', 'is', null)])),
  );

  it('runs each call with its own values', async () => {
    await insertProbe(handle.db, { id: 'a', label: 'first', n: 1 });
    await insertProbe(handle.db, { id: 'b', label: 'second', n: 2 });
    expect((await findProbe(handle.db, 'a', 0)).rows).toEqual([{ id: 'a', label: 'first', n: 1 }]);
    expect((await findProbe(handle.db, 'b', 0)).rows).toEqual([{ id: 'b', label: 'second', n: 2 }]);
    expect((await findProbe(handle.db, 'b', 3)).rows).toEqual([]);
  });

  it('leaves a column whose value is undefined out of an insert, as Kysely does, so its default applies', async () => {
    await insertProbe(handle.db, { id: 'c', label: undefined, n: null });
    await insertProbe(handle.db, { id: 'd', label: 'named', n: null });
    expect((await findProbe(handle.db, 'c', 0)).rows).toEqual([{ id: 'c', label: 'unnamed', n: null }]);
    expect((await findProbe(handle.db, 'd', 0)).rows).toEqual([{ id: 'd', label: 'named', n: null }]);
  });

  it('refuses a build that branches on an argument (its first call would decide for every call)', async () => {
    const branching = compileOnce((trx, onlyNamed: boolean) => {
      const query = (trx as unknown as Kysely<any>).selectFrom('probe').select('id');
      return onlyNamed ? query.where('label', '!=', 'unnamed') : query;
    });
    await expect(branching(handle.db, false)).rejects.toThrow(/did not reach the query as a parameter/);
  });
});
