import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { runCli } from '../src/cli/main.js';
import { createContext, type AppContext } from '../src/context.js';
import { claimJobs, failJob, insertJobs } from '../src/db/repositories/outbox.js';
import type { FastifyInstance } from 'fastify';
import { DIALECTS, call, createTestDatabase, type TestDatabase } from './helpers.js';

const packageVersion = (JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;

function envOf(database: TestDatabase): Record<string, string> {
  const { config } = database;
  return config.database.dialect === 'postgres'
    ? { DATABASE_URL: config.database.url, DATA_DIR: config.dataDir, LOG_LEVEL: 'silent' }
    : { DATABASE_URL: `sqlite:${config.database.filename}`, DATA_DIR: config.dataDir, LOG_LEVEL: 'silent' };
}

/** The operator CLI's bad-day commands, each checked by what the API then does. */
for (const dialect of DIALECTS) {
  describe(`operator CLI for a bad day [${dialect}]`, () => {
    let database: TestDatabase;
    let ctx: AppContext;
    let app: FastifyInstance;

    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      ctx = await createContext(database.config, { log: pino({ level: 'silent' }) });
      app = await buildApp(ctx);
      await app.ready();
    });
    afterAll(async () => {
      await app.close();
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

    async function newAccount(name: string) {
      const created = await cli(
        'account',
        'create',
        '--name',
        name,
        '--owner-email',
        `owner@${name.toLowerCase()}.test`,
        '--owner-first-name',
        'Olga',
        '--owner-last-name',
        name,
        '--max-users',
        '5',
        '--json',
      );
      expect(created.code).toBe(0);
      return created.json as { account: { uuid: string }; owner: { uuid: string; username: string }; team: { uuid: string }; apiKey: string };
    }

    it("--version prints package.json's version, as /healthz does", async () => {
      expect((await cli('--version')).out.trim()).toBe(`termin ${packageVersion}`);
      expect((await cli('--version', '--json')).json).toEqual({ version: packageVersion });
      expect((await app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok', version: packageVersion });
    });

    it('user list finds the user to reissue a key to; key list and key revoke handle a leaked key', async () => {
      const acme = await newAccount('Listco');
      const member = await call(app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Piotr', lastName: 'Member', email: 'piotr@listco.test' });
      expect(member.statusCode).toBe(201);

      const users = await cli('user', 'list', '--account', acme.account.uuid, '--json');
      expect(users.json.users.map((u: { username: string; teams: { name: string; admin: boolean }[]; liveKeys: number }) => [u.username, u.teams, u.liveKeys])).toEqual([
        ['olga-listco', [{ uuid: acme.team.uuid, name: 'Listco', admin: true }], 1],
        ['piotr-member', [{ uuid: acme.team.uuid, name: 'Listco', admin: false }], 0],
      ]);
      expect((await cli('user', 'list', '--account', acme.account.uuid)).out).toContain('olga-listco  Olga Listco <owner@listco.test>  keys: 1  teams: Listco (admin)');

      const keys = await cli('key', 'list', '--user', acme.owner.uuid, '--json');
      expect(keys.json.keys).toHaveLength(1);
      expect(keys.json.keys[0]).toMatchObject({ name: 'Owner key', revokedAt: null });
      expect(JSON.stringify(keys.json)).not.toContain(acme.apiKey.slice(-12));

      expect((await call(app, acme.apiKey, 'GET', '/api/v1/teams')).statusCode).toBe(200);
      const revoked = await cli('key', 'revoke', '--key', keys.json.keys[0].uuid, '--json');
      expect(revoked.json).toMatchObject({ alreadyRevoked: false, key: { uuid: keys.json.keys[0].uuid, revokedAt: expect.any(String) } });
      expect((await call(app, acme.apiKey, 'GET', '/api/v1/teams')).statusCode).toBe(401);
      expect((await cli('key', 'revoke', '--key', keys.json.keys[0].uuid)).out).toContain('was already revoked');
      expect((await cli('key', 'list', '--user', acme.owner.uuid, '--json')).json.keys[0].revokedAt).toEqual(expect.any(String));

      // A new key for the owner works.
      const reissued = await cli('key', 'create', '--user', acme.owner.uuid, '--json');
      expect((await call(app, reissued.json.apiKey, 'GET', '/api/v1/teams')).statusCode).toBe(200);
    });

    it('account deactivate stops keys and slots at once but keeps the data; account delete removes only that account', async () => {
      const gone = await newAccount('Goneco');
      const kept = await newAccount('Keptco');
      const topic = (await call(app, gone.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30 })).json() as { uuid: string };
      const slotsOf = async () =>
        (await call(app, null, 'POST', '/api/v1/calculate-schedule', { username: gone.owner.username, meetingTopic: topic.uuid, timezone: 'UTC', offset: 7 })).statusCode;
      expect(await slotsOf()).toBe(200);

      const deactivated = await cli('account', 'deactivate', '--account', gone.account.uuid, '--json');
      expect(deactivated.json).toMatchObject({ usersDeactivated: 1, keysRevoked: 1 });
      expect((await call(app, gone.apiKey, 'GET', '/api/v1/teams')).statusCode).toBe(401);
      expect(await slotsOf()).toBe(404);
      const afterUsers = await cli('user', 'list', '--account', gone.account.uuid, '--json');
      expect(afterUsers.json.users.map((u: { deactivatedAt: string | null }) => u.deactivatedAt)).toEqual([expect.any(String)]);

      expect((await cli('account', 'delete', '--account', gone.account.uuid)).code).toBe(2); // no --yes
      expect((await cli('account', 'list', '--json')).json.accounts.map((a: { name: string }) => a.name)).toContain('Goneco');
      const deleted = await cli('account', 'delete', '--account', gone.account.uuid, '--yes', '--json');
      expect(deleted.json.deleted).toMatchObject({ users: 1, teams: 1, meetings: 0 });
      const names = (await cli('account', 'list', '--json')).json.accounts.map((a: { name: string }) => a.name);
      expect(names).not.toContain('Goneco');
      expect(names).toContain('Keptco');
      expect((await call(app, kept.apiKey, 'GET', '/api/v1/teams')).statusCode).toBe(200);
    });

    it('outbox status shows the backlog by kind and status; outbox retry --failed queues the failed again', async () => {
      const now = Date.now();
      await insertJobs(
        ctx.db,
        [
          { uuid: '00000000-0000-4000-8000-00000000e001', kind: 'cli-test-mail', payload: {} },
          { uuid: '00000000-0000-4000-8000-00000000e002', kind: 'cli-test-mail', payload: {}, runAt: now + 3_600_000 },
          { uuid: '00000000-0000-4000-8000-00000000e003', kind: 'cli-test-hook', payload: {}, runAt: now + 3_600_000 },
        ],
        now - 90_000,
      );
      const [claimed] = await claimJobs(ctx.db, 'cli-test-mail', 'cli-test-claim', now, 60_000, 1);
      expect(claimed?.uuid).toBe('00000000-0000-4000-8000-00000000e001');
      expect(await failJob(ctx.db, claimed!, 'SMTP said 554 no', null)).toBe(true);

      const status = await cli('outbox', 'status', '--json');
      const mine = status.json.groups.filter((g: { kind: string }) => g.kind.startsWith('cli-test-'));
      expect(mine.map((g: { kind: string; status: string; count: number }) => [g.kind, g.status, g.count])).toEqual([
        ['cli-test-hook', 'pending', 1],
        ['cli-test-mail', 'failed', 1],
        ['cli-test-mail', 'pending', 1],
      ]);
      expect(mine[1].lastError).toBe('SMTP said 554 no');
      expect(status.json.oldestPendingAgeSeconds).toBeGreaterThanOrEqual(90);
      expect((await cli('outbox', 'status')).out).toContain('retry with: outbox retry --failed');

      expect((await cli('outbox', 'retry')).err).toContain('--failed');
      const retried = await cli('outbox', 'retry', '--failed', '--kind', 'cli-test-mail', '--json');
      expect(retried.json).toEqual({ requeued: 1, kind: 'cli-test-mail' });
      const after = (await cli('outbox', 'status', '--json')).json.groups.filter((g: { kind: string }) => g.kind === 'cli-test-mail');
      expect(after.map((g: { status: string; count: number }) => [g.status, g.count])).toEqual([['pending', 2]]);
    });

    it('phrases every mistake by its flag and exits non-zero', async () => {
      const missing = await cli('user', 'list');
      expect([missing.code, missing.err.trim()]).toEqual([2, '--account is required. Run with --help for usage.']);
      const malformed = await cli('key', 'list', '--user', 'olga');
      expect([malformed.code, malformed.err.trim()]).toEqual([2, '--user must be a UUID, got "olga"']);
      const unknown = await cli('account', 'deactivate', '--account', '00000000-0000-4000-8000-000000000000');
      expect(unknown.code).toBe(1);
      expect(unknown.err).toContain('--account 00000000-0000-4000-8000-000000000000: no such account');
      expect((await cli('key', 'revoke', '--key', '00000000-0000-4000-8000-000000000000')).err).toContain('--key 00000000-0000-4000-8000-000000000000: no such API key');
      expect((await cli('backup')).err).toContain('--to is required');
      expect(unknown.out).toBe('');
    });

    it('backup --to and restore --from', async () => {
      const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'termin-cli-backup-'));
      try {
        const file = path.join(folder, dialect === 'sqlite' ? 'backup.db' : 'backup.dump');
        // An account of its own, so the backup has one to count whichever test ran before.
        await newAccount('Backupco');
        const backup = await cli('backup', '--to', file, '--json');
        expect(backup.code).toBe(0);
        if (dialect === 'postgres') {
          // pg_dump on PATH: run it (the URL is never printed); otherwise the command is printed.
          if (backup.json.ran) expect(fs.statSync(file).size).toBeGreaterThan(0);
          expect(backup.json.command).toContain('"$DATABASE_URL"');
          expect(backup.out).not.toContain(database.config.database.dialect === 'postgres' ? database.config.database.url : '');
          const restore = await cli('restore', '--from', file, '--json');
          expect(restore.json).toEqual({ dialect: 'postgres', ran: false, command: `pg_restore --clean --if-exists --no-owner --dbname="$DATABASE_URL" ${file}` });
          return;
        }
        expect(backup.json.accounts).toBeGreaterThan(0);
        expect((await cli('backup', '--to', file)).err).toContain('already exists');
        // This test's server context holds the database open: a restore is refused.
        const refused = await cli('restore', '--from', file);
        expect([refused.code, refused.err]).toEqual([1, expect.stringContaining('is in use')]);
        const forced = await cli('restore', '--from', file, '--force', '--json');
        expect(forced.json.previous).toEqual(expect.stringContaining('before-restore'));
        expect(fs.existsSync(forced.json.previous)).toBe(true);
        // Something that is not a database is refused before anything changes.
        fs.writeFileSync(path.join(folder, 'junk.db'), 'not a database at all, just text');
        const junk = await cli('restore', '--from', path.join(folder, 'junk.db'), '--force');
        expect([junk.code, junk.err]).toEqual([1, expect.stringContaining('cannot be restored')]);
      } finally {
        fs.rmSync(folder, { recursive: true, force: true });
      }
    });
  });
}
