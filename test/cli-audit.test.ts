import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.js';
import { createContext, type AppContext } from '../src/context.js';
import { DIALECTS, createTestAccount, createTestDatabase, type TestDatabase } from './helpers.js';

function envOf(database: TestDatabase): Record<string, string> {
  const { config } = database;
  return config.database.dialect === 'postgres'
    ? { DATABASE_URL: config.database.url, DATA_DIR: config.dataDir, LOG_LEVEL: 'silent' }
    : { DATABASE_URL: `sqlite:${config.database.filename}`, DATA_DIR: config.dataDir, LOG_LEVEL: 'silent' };
}

/** The operator reads an account's audit log, and the CLI's own changes appear in it as the operator's. */
for (const dialect of DIALECTS) {
  describe(`CLI audit list [${dialect}]`, () => {
    let database: TestDatabase;
    let ctx: AppContext;

    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      ctx = await createContext(database.config, { log: pino({ level: 'silent' }) });
    });
    afterAll(async () => {
      await ctx.close();
      await database.drop();
    });

    async function cli(...args: string[]): Promise<{ code: number; out: string; err: string; json: any }> {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli(args, { out: { write: (t: string) => out.push(t) }, err: { write: (t: string) => err.push(t) } }, envOf(database));
      const text = out.join('');
      return { code, out: text, err: err.join(''), json: args.includes('--json') && code === 0 ? JSON.parse(text) : undefined };
    }

    it('lists the CLI’s own changes as the operator’s, filtered by action and since; refuses bad flags', async () => {
      const acme = await createTestAccount(ctx);
      expect((await cli('account', 'set-plan', '--account', acme.account.uuid, '--max-users', '7')).code).toBe(0);
      expect((await cli('key', 'create', '--user', acme.owner.uuid)).code).toBe(0);

      const all = await cli('audit', 'list', '--account', acme.account.uuid, '--json');
      expect(all.code, all.err).toBe(0);
      expect(all.json.auditEvents.map((event: { action: string }) => event.action)).toEqual(['key.created', 'account.updated']);
      expect(all.json.auditEvents[1]).toMatchObject({
        actor: { type: 'operator', via: 'cli' },
        target: { type: 'account', uuid: acme.account.uuid },
        details: { changed: ['maxUsers'] },
      });

      const keys = await cli('audit', 'list', '--account', acme.account.uuid, '--action', 'key.created');
      expect(keys.out).toContain('key.created');
      expect(keys.out).toContain('operator via cli');
      expect(keys.out).not.toContain('account.updated');
      expect((await cli('audit', 'list', '--account', acme.account.uuid, '--since', '2999-01-01T00:00:00Z')).out).toContain('No audit entries.');

      expect((await cli('audit', 'list', '--account', acme.account.uuid, '--action', 'nonsense')).code).toBe(2);
      expect((await cli('audit', 'list', '--account', acme.account.uuid, '--since', 'yesterday')).code).toBe(2);
      const unknown = await cli('audit', 'list', '--account', '0193b0a4-6f1e-7c3a-9d2b-5e8f1a2b3c4d');
      expect(unknown.code).toBe(1);
      expect(unknown.err).toContain('no such account');
    });
  });
}
