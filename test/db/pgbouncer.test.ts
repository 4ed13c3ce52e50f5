import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { type AppContext, createContext } from '../../src/context.js';
import { inTransaction } from '../../src/db/transaction.js';
import { DIALECTS, PGBOUNCER_PATH, call, createClock, createTestAccount, createTestDatabase, type TestDatabase } from '../helpers.js';
import { type RunningPgBouncer, startPgBouncer } from '../pgbouncer-process.js';

/**
 * Behind PgBouncer in transaction mode with its default settings (issue 44, item 6): a
 * server connection serves another client after every transaction, startup parameters
 * other than a handful are refused, and a session SET would leak to the next client. So
 * termin must connect, migrate and book through it, and its timeouts must still apply. The
 * same checks run on a direct connection, where the timeouts now arrive the same way.
 */
for (const through of ['PgBouncer in transaction mode', 'a direct connection'] as const) {
  const bounced = through !== 'a direct connection';
  describe.runIf(DIALECTS.includes('postgres') && (!bounced || PGBOUNCER_PATH !== null))(`termin through ${through}`, () => {
    let database: TestDatabase;
    let bouncer: RunningPgBouncer | undefined;
    let ctx: AppContext;
    let databaseUrl: string;

    beforeAll(async () => {
      database = await createTestDatabase('postgres');
      if (database.config.database.dialect !== 'postgres') throw new Error('postgres expected');
      const direct = new URL(database.directUrl ?? database.config.database.url);
      databaseUrl = direct.toString();
      if (bounced) {
        bouncer = await startPgBouncer(PGBOUNCER_PATH!, direct);
        databaseUrl = bouncer.url;
      }

      const config: Config = {
        ...database.config,
        // PgBouncer 1.18 keeps no prepared statements across transactions (DATABASE_PREPARED_STATEMENTS=false, as the README says).
        database: { ...database.config.database, url: databaseUrl, preparedStatements: !bounced },
        databaseTimeouts: { ...database.config.databaseTimeouts, statementMs: 1_000, lockMs: 700, idleInTransactionMs: 5_000 },
      };
      ctx = await createContext(config, { now: createClock('2027-01-04T06:00:00.000Z').now, log: pino({ level: 'silent' }) });
    });

    afterAll(async () => {
      await ctx?.close();
      bouncer?.stop();
      await database?.drop();
    });

    it('migrates (on start) and books through it', async () => {
      const app = await buildApp(ctx);
      try {
        const acme = await createTestAccount(ctx, { timezone: 'Europe/Warsaw', places: ['zoom'] });
        const topic = (await call(app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Call', durationMinutes: 30, places: ['zoom'] })).json();
        const booked = await call(app, acme.apiKey, 'POST', '/api/v1/schedule', {
          dates: [{ start: '2027-01-05T08:00:00.000Z', username: acme.owner.username }],
          email: 'jan@example.com',
          lang: 'en',
          place: 'zoom',
          name: 'Jan Kowalski',
          meetingTopic: topic.uuid,
          timezone: 'Europe/Warsaw',
        });
        expect(booked.statusCode, booked.body).toBe(201);
        const listed = await call(app, acme.apiKey, 'GET', '/api/v1/meetings');
        expect(listed.json().meetings.map((meeting: { uuid: string }) => meeting.uuid)).toEqual([booked.json().meetings[0].uuid]);
      } finally {
        await app.close();
      }
    });

    it('every transaction runs with the configured timeouts, and no session keeps them', async () => {
      const inside = await inTransaction(ctx.db, async (trx) => ({
        statement: (await sql<{ statement_timeout: string }>`show statement_timeout`.execute(trx)).rows[0]?.statement_timeout,
        lock: (await sql<{ lock_timeout: string }>`show lock_timeout`.execute(trx)).rows[0]?.lock_timeout,
        idle: (await sql<{ idle_in_transaction_session_timeout: string }>`show idle_in_transaction_session_timeout`.execute(trx)).rows[0]?.idle_in_transaction_session_timeout,
      }));
      expect(inside).toEqual({ statement: '1s', lock: '700ms', idle: '5s' });
      // Outside a transaction the server connection has its defaults: nothing leaks to PgBouncer's next client.
      const outside = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(ctx.db);
      expect(outside.rows[0]?.statement_timeout).toBe('0');
    });

    it('a transaction running past statement_timeout is cancelled by the server', async () => {
      const slow = inTransaction(ctx.db, async (trx) => sql`select pg_sleep(5)`.execute(trx));
      await expect(slow).rejects.toMatchObject({ code: '57014', message: 'canceling statement due to statement timeout' });
    });

    it('a statement outside a transaction running past the timeout is cancelled too, and the pool goes on', async () => {
      const slow = sql`select pg_sleep(5)`.execute(ctx.db);
      await expect(slow).rejects.toMatchObject({ code: '57014', message: 'canceling statement due to user request' });
      expect((await sql<{ one: number }>`select 1 as one`.execute(ctx.db)).rows).toEqual([{ one: 1 }]);
    });
  });
}
