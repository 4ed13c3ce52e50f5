import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createContext, type AppContext } from '../../src/context.js';
import { createLogger, redactUrl } from '../../src/logging.js';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../helpers.js';

describe('request logs never carry an API key', () => {
  const lines: string[] = [];
  let database: TestDatabase;
  let ctx: AppContext;
  let app: FastifyInstance;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite', { LOG_LEVEL: 'info' });
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(
          ...chunk
            .toString()
            .split('\n')
            .filter((line) => line !== ''),
        );
        done();
      },
    });
    ctx = await createContext(database.config, { log: createLogger(database.config, sink) });
    app = await buildApp(ctx);
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await ctx.close();
    await database.drop();
  });

  it('redacts key-bearing query parameters in the logged URL, and the header', async () => {
    const secret = 'tmn_AAAAAAAAAAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB';
    for (const name of ['api_key', 'apiKey', 'key', 'x-service-api-key', 'API_KEY']) {
      const response = await app.inject({ method: 'GET', url: `/api/v1/teams?${name}=${secret}&page=2`, headers: { 'x-service-api-key': secret } });
      expect(response.statusCode).toBe(401);
    }
    const logged = lines.join('\n');
    expect(logged).toContain('/api/v1/teams?api_key=[redacted]&page=2');
    expect(logged).toContain('?apiKey=[redacted]');
    expect(logged).not.toContain('BBBBBBBBBBBBBBBB');
    expect(logged).not.toContain('AAAAAAAAAAAAAAAA');
  });

  it('leaves other parameters alone', () => {
    expect(redactUrl('/a?month=3&keyword=x')).toBe('/a?month=3&keyword=x');
    expect(redactUrl('/a?Key=s3cret')).toBe('/a?Key=[redacted]');
    expect(redactUrl('/a?api%5Fkey=s3cret&b')).toBe('/a?api%5Fkey=[redacted]&b');
    expect(redactUrl('/a')).toBe('/a');
  });
});
