import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createContext, type AppContext } from '../../src/context.js';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../helpers.js';

/** What an operator reads: one line per request, with its route, status, duration and id. */
describe('request log', () => {
  const lines: Record<string, unknown>[] = [];
  let database: TestDatabase;
  let ctx: AppContext;
  let app: FastifyInstance;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    ctx = await createContext(database.config, { log: pino({ level: 'info' }, sink) });
    app = await buildApp(ctx);
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await ctx.close();
    await database.drop();
  });

  it('writes exactly one info line per request, with route, status, duration and request id', async () => {
    lines.length = 0;
    await app.inject({ method: 'GET', url: '/healthz' });
    await app.inject({ method: 'GET', url: '/api/v1/teams?api_key=tmn_secret_in_query', headers: { accept: 'application/json' } });
    const requestLines = lines.filter((line) => line.msg === 'request' || line.msg === 'request failed');
    expect(lines.filter((line) => String(line.msg).includes('incoming request') || String(line.msg).includes('request completed'))).toEqual([]);
    expect(requestLines).toHaveLength(2);
    expect(requestLines[0]).toMatchObject({ level: 30, method: 'GET', route: '/healthz', url: '/healthz', status: 200, reqId: expect.anything() });
    expect(typeof requestLines[0]!.durationMs).toBe('number');
    expect(requestLines[1]).toMatchObject({ route: '/api/v1/teams', status: 401 });
    expect(JSON.stringify(requestLines)).not.toContain('tmn_secret_in_query');
  });

  it('keeps bearer tokens of manage links and private feeds out of the log', async () => {
    lines.length = 0;
    await app.inject({ method: 'GET', url: '/booking/0193b2c4-secret-manage-token?lang=pl' });
    await app.inject({ method: 'GET', url: '/feeds/secret-feed-token.ics' });
    await app.inject({ method: 'GET', url: '/api/v1/public/bookings/0193b2c4-secret-manage-token', headers: { accept: 'application/json' } });
    const urls = lines.filter((line) => line.msg === 'request').map((line) => line.url);
    expect(urls).toEqual(['/booking/[redacted]?lang=pl', '/feeds/[redacted].ics', '/api/v1/public/bookings/[redacted]']);
    expect(JSON.stringify(lines)).not.toContain('secret');
  });
});
