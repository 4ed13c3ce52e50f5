import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createContext, type AppContext } from '../../src/context.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { call, createTestAccount, createTestDatabase, expectProblem, freePort, type TestDatabase } from '../helpers.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('rate limits shared through Redis by two instances', () => {
  let database: TestDatabase;
  const instances: { app: FastifyInstance; ctx: AppContext }[] = [];
  let acme: CreatedAccount;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    // Both instances use one database and one Redis, with a key prefix of this run's own.
    const env = { ...envOf(database), REDIS_URL, REDIS_KEY_PREFIX: `termin-test-${randomUUID()}:`, RATE_LIMIT_PER_MINUTE: '4', CALCULATE_RATE_LIMIT_PER_MINUTE: '2' };
    for (let i = 0; i < 2; i += 1) {
      const ctx = await createContext(loadConfig(env), { log: pino({ level: 'silent' }) });
      const app = await buildApp(ctx);
      await app.ready();
      instances.push({ app, ctx });
    }
    acme = await createTestAccount(instances[0]!.ctx);
  });
  afterAll(async () => {
    for (const { app, ctx } of instances) {
      await app.close();
      await ctx.close();
    }
    await database.drop();
  });

  it('enforces one limit between them: two requests on each use up a limit of four', async () => {
    const [a, b] = [instances[0]!, instances[1]!];
    const first = await call(a.app, acme.apiKey, 'GET', '/api/v1/teams');
    expect(first.statusCode).toBe(200);
    expect(first.headers['x-ratelimit-limit']).toBe('4');
    expect((await call(b.app, acme.apiKey, 'GET', '/api/v1/teams')).headers['x-ratelimit-remaining']).toBe('2');
    expect((await call(a.app, acme.apiKey, 'GET', '/api/v1/teams')).statusCode).toBe(200);
    expect((await call(b.app, acme.apiKey, 'GET', '/api/v1/teams')).statusCode).toBe(200);
    for (const { app } of [a, b]) {
      const limited = await call(app, acme.apiKey, 'GET', '/api/v1/teams');
      expectProblem(limited, 429, 'RATE_LIMITED');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    }
  });

  it('gives the public calculate endpoint its own allowance (CALCULATE_RATE_LIMIT_PER_MINUTE)', async () => {
    const [a, b] = [instances[0]!, instances[1]!];
    // A topic that does not exist: the limit counts every answer, 404s too.
    const body = { username: 'nobody-here', meetingTopic: randomUUID(), timezone: 'Europe/Warsaw', offset: 0 };
    const answers = [await call(a.app, null, 'POST', '/api/v1/calculate-schedule', body), await call(b.app, null, 'POST', '/api/v1/calculate-schedule', body)];
    expect(answers.map((r) => r.headers['x-ratelimit-limit'])).toEqual(['2', '2']);
    expect(answers.map((r) => r.statusCode)).toEqual([404, 404]);
    expectProblem(await call(a.app, null, 'POST', '/api/v1/calculate-schedule', body), 429, 'RATE_LIMITED');
  });
});

describe('rate limits when Redis is down', () => {
  it("counts the same limits in the instance's memory and logs one warning (fail open, not unlimited)", async () => {
    const lines: { level: number; msg: string; [field: string]: unknown }[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line));
        done();
      },
    });
    const database = await createTestDatabase('sqlite');
    const port = await freePort();
    const ctx = await createContext(loadConfig({ ...envOf(database), REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_PER_MINUTE: '2' }), { log: pino({ level: 'warn' }, sink) });
    const app = await buildApp(ctx);
    try {
      const acme = await createTestAccount(ctx);
      const statuses: number[] = [];
      for (let i = 0; i < 5; i += 1) statuses.push((await call(app, acme.apiKey, 'GET', '/api/v1/teams')).statusCode);
      expect(statuses).toEqual([200, 200, 429, 429, 429]);
      const limited = await call(app, acme.apiKey, 'GET', '/api/v1/teams');
      expectProblem(limited, 429, 'RATE_LIMITED');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      const warnings = lines.filter((line) => line.level === 40 && /rate-limit Redis/.test(line.msg));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ msg: expect.stringMatching(/per instance/), connection: expect.stringMatching(/ECONNREFUSED/) });
    } finally {
      await app.close();
      await ctx.close();
      await database.drop();
    }
  });
});

function envOf(database: TestDatabase): Record<string, string> {
  return { DATA_DIR: database.config.dataDir, TERMIN_DEMO: 'false', MIGRATE_ON_START: 'true', LOG_LEVEL: 'silent' };
}
