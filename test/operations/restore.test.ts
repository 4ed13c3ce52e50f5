import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { runCli } from '../../src/cli/main.js';
import type { Config } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, createTestDatabase } from '../helpers.js';

/** The CLI's environment for a test database: its URL (or file) and data folder. */
function envOf(config: Config): Record<string, string> {
  return config.database.dialect === 'postgres'
    ? { DATABASE_URL: config.database.url, DATA_DIR: config.dataDir, LOG_LEVEL: 'silent' }
    : { DATABASE_URL: `sqlite:${config.database.filename}`, DATA_DIR: config.dataDir, LOG_LEVEL: 'silent' };
}

async function cli(config: Config, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { out: { write: (t: string) => out.push(t) }, err: { write: (t: string) => err.push(t) } }, envOf(config));
  return { code, out: out.join(''), err: err.join('') };
}

/**
 * A backup is only as good as its restore: `cli backup` of a database with an account and
 * its meetings, then the restore `cli restore` does (SQLite) or names (PostgreSQL: the
 * pg_restore command it prints, run as printed) into a new, empty database, and a service
 * started on that database answers the same key with the same meetings as before.
 */
for (const dialect of DIALECTS) {
  describe(`cli backup, then a restore into a new database [${dialect}]`, () => {
    it('gives back a database on which the service answers as before the backup', async () => {
      const clock = createClock();
      const source = await createTestApp(dialect, clock);
      const target = await createTestDatabase(dialect);
      const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'termin-restore-'));
      try {
        const acme = await createTestAccount(source.ctx, { timezone: 'Europe/Warsaw', places: ['zoom'] });
        const topic = (await call(source.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Call', durationMinutes: 30, places: ['zoom'] })).json();
        for (const start of ['2027-01-05T08:00:00.000Z', '2027-01-05T09:00:00.000Z']) {
          const booked = await call(source.app, acme.apiKey, 'POST', '/api/v1/schedule', {
            dates: [{ start, username: acme.owner.username }],
            email: 'jan@example.com',
            lang: 'en',
            name: 'Jan Kowalski',
            place: 'zoom',
            meetingTopic: topic.uuid,
            timezone: 'Europe/Warsaw',
          });
          expect(booked.statusCode, booked.body).toBe(201);
        }
        const before = await call(source.app, acme.apiKey, 'GET', '/api/v1/meetings');
        expect(before.json().meetings).toHaveLength(2);

        const file = path.join(folder, dialect === 'sqlite' ? 'backup.db' : 'backup.dump');
        const backup = await cli(source.ctx.config, 'backup', '--to', file, '--json');
        expect([backup.code, backup.err]).toEqual([0, '']);
        expect(fs.statSync(file).size).toBeGreaterThan(0);

        const restore = await cli(target.config, 'restore', '--from', file, '--json');
        expect([restore.code, restore.err]).toEqual([0, '']);
        if (target.config.database.dialect === 'postgres') {
          // PostgreSQL: the CLI names the command; run exactly that, with the new database's URL.
          const { command } = JSON.parse(restore.out) as { command: string };
          const [program, ...args] = command.split(' ');
          const ran = spawnSync(
            program!,
            args.map((arg) => arg.replace('"$DATABASE_URL"', target.config.database.dialect === 'postgres' ? target.config.database.url : '')),
            { encoding: 'utf8' },
          );
          expect([ran.status, ran.stderr]).toEqual([0, '']);
        } else {
          expect(JSON.parse(restore.out)).toMatchObject({ meetings: 2, accounts: 1 });
        }

        const ctx = await createContext(target.config, { now: clock.now, log: pino({ level: 'silent' }) });
        const app = await buildApp(ctx);
        try {
          await app.ready();
          const after = await call(app, acme.apiKey, 'GET', '/api/v1/meetings');
          expect(after.statusCode).toBe(200);
          expect(after.json()).toEqual(before.json());
          // The restored database takes bookings too (its migrations and sequences came back whole).
          const third = await call(app, acme.apiKey, 'POST', '/api/v1/schedule', {
            dates: [{ start: '2027-01-05T10:00:00.000Z', username: acme.owner.username }],
            email: 'ola@example.com',
            lang: 'en',
            name: 'Ola Nowak',
            place: 'zoom',
            meetingTopic: topic.uuid,
            timezone: 'Europe/Warsaw',
          });
          expect(third.statusCode, third.body).toBe(201);
        } finally {
          await app.close();
          await ctx.close();
        }
      } finally {
        await source.close();
        await target.drop();
        fs.rmSync(folder, { recursive: true, force: true });
      }
    });
  });
}
