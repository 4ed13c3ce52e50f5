import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.js';
import { DIALECTS, createTestDatabase, type TestDatabase } from './helpers.js';

const exec = promisify(execFile);

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: { write: (t: string) => out.push(t) }, err: { write: (t: string) => err.push(t) } }, out, err };
}

function envOf(database: TestDatabase): Record<string, string> {
  const { config } = database;
  return config.database.dialect === 'postgres'
    ? { DATABASE_URL: config.database.url, LOG_LEVEL: 'silent' }
    : { DATABASE_URL: `sqlite:${config.database.filename}`, LOG_LEVEL: 'silent' };
}

for (const dialect of DIALECTS) {
  describe(`operator CLI [${dialect}]`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase(dialect);
    });
    afterAll(async () => database.drop());

    it('account create --json prints exactly the contract object, and key create adds a working key', async () => {
      const run = capture();
      const code = await runCli(
        [
          'account',
          'create',
          '--name',
          'Acme',
          '--owner-email',
          'owner@acme.test',
          '--owner-first-name',
          'Olga',
          '--owner-last-name',
          'Owner',
          '--max-users',
          '5',
          '--timezone',
          'Europe/Warsaw',
          '--json',
        ],
        run.io,
        envOf(database),
      );
      expect(code).toBe(0);
      expect(run.out).toHaveLength(1);
      const created = JSON.parse(run.out[0]!);
      expect(Object.keys(created).sort()).toEqual(['account', 'apiKey', 'owner', 'team']);
      expect(created.account).toEqual({ uuid: expect.any(String), name: 'Acme', maxUsers: 5 });
      expect(created.owner).toEqual({ uuid: expect.any(String), username: 'olga-owner', email: 'owner@acme.test' });
      expect(created.team).toEqual({ uuid: expect.any(String), name: 'Acme' });
      expect(created.apiKey).toMatch(/^tmn_/);

      const keyRun = capture();
      expect(await runCli(['key', 'create', '--user', created.owner.uuid, '--json'], keyRun.io, envOf(database))).toBe(0);
      const key = JSON.parse(keyRun.out[0]!);
      expect(key).toEqual({ user: { uuid: created.owner.uuid, username: 'olga-owner' }, apiKey: expect.stringMatching(/^tmn_/) });
      expect(key.apiKey).not.toBe(created.apiKey);
    });

    it('explains bad input in terms of the flags and exits non-zero', async () => {
      const missing = capture();
      expect(await runCli(['account', 'create', '--name', 'X', '--json'], missing.io, envOf(database))).toBe(2);
      expect(missing.err.join('')).toContain('--owner-email is required');
      expect(missing.out).toEqual([]);

      const invalid = capture();
      const args = [
        'account',
        'create',
        '--name',
        'X',
        '--owner-email',
        'nope',
        '--owner-first-name',
        'A',
        '--owner-last-name',
        'B',
        '--max-users',
        '0',
        '--places',
        'offline,teleport',
      ];
      expect(await runCli(args, invalid.io, envOf(database))).toBe(1);
      const message = invalid.err.join('');
      expect(message).toContain('--owner-email: must be an e-mail address');
      expect(message).toContain('--max-users: must be an integer from 1 to 100000');
      expect(message).toContain('--places: must be one of');

      const unknownUser = capture();
      expect(await runCli(['key', 'create', '--user', '00000000-0000-4000-8000-000000000000'], unknownUser.io, envOf(database))).toBe(1);
      expect(unknownUser.err.join('')).toContain('user does not exist');

      const unknownCommand = capture();
      expect(await runCli(['frobnicate'], unknownCommand.io, envOf(database))).toBe(2);
    });

    it('migrate applies what is pending, then reports the database up to date', async () => {
      const fresh = await createTestDatabase(dialect);
      try {
        const first = capture();
        expect(await runCli(['migrate', '--json'], first.io, envOf(fresh))).toBe(0);
        expect(JSON.parse(first.out[0]!).applied).toEqual(expect.arrayContaining(['0001-foundation', '0005-discount-codes']));
        const second = capture();
        expect(await runCli(['migrate'], second.io, envOf(fresh))).toBe(0);
        expect(second.out.join('')).toContain('The database is up to date.');
      } finally {
        await fresh.drop();
      }
    });

    it.runIf(dialect === 'postgres')('migrate on a database that does not exist says so and how to create it', async () => {
      const url = new URL(envOf(database).DATABASE_URL!);
      url.pathname = `/termin_missing_${Date.now()}`;
      const run = capture();
      expect(await runCli(['migrate'], run.io, { DATABASE_URL: url.toString(), LOG_LEVEL: 'silent' })).toBe(1);
      const said = run.err.join('');
      const name = url.pathname.slice(1);
      expect(said).toContain(`The PostgreSQL database "${name}" does not exist`);
      expect(said).toContain(`createdb -h ${url.hostname} -p ${url.port} -U ${url.username} ${name}`);
      expect(said).toContain(`CREATE DATABASE "${name}";`);
      expect(said).not.toContain('(unknown)');
    });

    it('prints help', async () => {
      const help = capture();
      expect(await runCli(['--help'], help.io, envOf(database))).toBe(0);
      expect(help.out.join('')).toContain('account create');
    });
  });
}

describe('npm run --silent cli (as the acceptance tests call it)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
  });
  afterAll(async () => database.drop());

  it('prints one JSON object on stdout', async () => {
    const { stdout } = await exec(
      'npm',
      [
        'run',
        '--silent',
        'cli',
        '--',
        'account',
        'create',
        '--name',
        'Shell Co',
        '--owner-email',
        'o@shell.test',
        '--owner-first-name',
        'Olga',
        '--owner-last-name',
        'Owner',
        '--max-users',
        '3',
        '--places',
        'offline,phone-call,zoom',
        '--json',
      ],
      { env: { ...process.env, ...envOf(database) } },
    );
    const created = JSON.parse(stdout);
    expect(created.account.name).toBe('Shell Co');
    expect(created.apiKey).toMatch(/^tmn_/);
  }, 60_000);
});
