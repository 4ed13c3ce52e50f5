import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.js';
import { loadConfig, loadSecrets } from '../src/config.js';
import { createContext } from '../src/context.js';
import { listAuditEventsAsOperator } from '../src/scheduling/audit/audit-events.js';
import { openIntegrationApp } from '../src/scheduling/integrations/apps.js';
import { DIALECTS, createTestAccount, createTestDatabase, type TestDatabase } from './helpers.js';

const SECRET_KEY = 'ab'.repeat(32);

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: { write: (t: string) => out.push(t) }, err: { write: (t: string) => err.push(t) } }, out, err };
}

for (const dialect of DIALECTS) {
  describe(`operator CLI: integrations set / remove [${dialect}]`, () => {
    let database: TestDatabase;
    let env: Record<string, string>;
    let dir: string;
    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      const { config } = database;
      env = {
        DATABASE_URL: config.database.dialect === 'postgres' ? config.database.url : `sqlite:${config.database.filename}`,
        LOG_LEVEL: 'silent',
        TERMIN_SECRET_KEY: SECRET_KEY,
        PUBLIC_URL: 'https://termin.example.com',
      };
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termin-cli-secret-'));
    });
    afterAll(async () => {
      fs.rmSync(dir, { recursive: true, force: true });
      await database.drop();
    });

    async function withContext<T>(work: (ctx: Awaited<ReturnType<typeof createContext>>) => Promise<T>): Promise<T> {
      const ctx = await createContext(loadConfig(env), { secrets: loadSecrets(env), migrate: true, log: pino({ level: 'silent' }) });
      try {
        return await work(ctx);
      } finally {
        await ctx.close();
      }
    }

    it('sets an account’s Zoom app with the secret read from a file (never an argument), prints the redirect URI, and removes it', async () => {
      const account = await withContext(async (ctx) => (await createTestAccount(ctx)).account);
      const secretFile = path.join(dir, 'zoom-secret');
      fs.writeFileSync(secretFile, 'zoom-from-file\n', { mode: 0o600 });

      const set = capture();
      const code = await runCli(
        ['integrations', 'set', '--account', account.uuid, '--provider', 'zoom', '--client-id', 'zoom-cli-app', '--client-secret-file', secretFile, '--json'],
        set.io,
        env,
      );
      expect(set.err.join('')).toBe('');
      expect(code).toBe(0);
      expect(JSON.parse(set.out[0]!)).toEqual({ account: account.uuid, provider: 'zoom', configured: true, redirectUri: 'https://termin.example.com/oauth/zoom/callback' });
      expect(set.out.join('')).not.toContain('zoom-from-file');
      // What the connect flow opens: the id as given, the secret as the file had it (without its newline).
      const app = await withContext((ctx) => openIntegrationApp(ctx, ctx.db, account.uuid, 'zoom'));
      expect(app).toMatchObject({ clientId: 'zoom-cli-app', clientSecret: 'zoom-from-file' });

      // The secret is not a flag at all; a missing one for a new app is refused at its flag.
      const asFlag = capture();
      expect(await runCli(['integrations', 'set', '--account', account.uuid, '--provider', 'webex', '--client-id', 'w', '--client-secret', 'leak'], asFlag.io, env)).toBe(2);
      const missing = capture();
      expect(await runCli(['integrations', 'set', '--account', account.uuid, '--provider', 'webex', '--client-id', 'w'], missing.io, env)).toBe(1);
      expect(missing.err.join('')).toContain('--client-secret-file: is required');
      const badProvider = capture();
      expect(await runCli(['integrations', 'set', '--account', account.uuid, '--provider', 'skype', '--client-id', 'w'], badProvider.io, env)).toBe(2);
      expect(badProvider.err.join('')).toContain('--provider must be one of');

      const removed = capture();
      expect(await runCli(['integrations', 'remove', '--account', account.uuid, '--provider', 'zoom'], removed.io, env)).toBe(0);
      expect(await withContext((ctx) => openIntegrationApp(ctx, ctx.db, account.uuid, 'zoom'))).toBeNull();
      // Both changes are the operator's, in the account's audit log, naming fields and never the secret.
      const audit = await withContext((ctx) => listAuditEventsAsOperator(ctx, account.uuid, { action: 'integration.updated' }));
      expect(audit.items.map((event) => [event.actor, event.details])).toEqual([
        [
          { type: 'operator', via: 'cli' },
          { provider: 'zoom', removed: true },
        ],
        [
          { type: 'operator', via: 'cli' },
          { provider: 'zoom', removed: false, changed: ['clientId', 'clientSecret'] },
        ],
      ]);
      expect(JSON.stringify(audit.items)).not.toContain('zoom-from-file');
    });
  });
}
