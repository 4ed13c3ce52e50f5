import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, stopServer, type ServerProcess } from '../process.js';

/**
 * A "database" that accepts TCP connections and never says a word, and one that refuses
 * them: requests that need the database and /readyz get 503 promptly instead of hanging.
 */
describe('a database that accepts connections and never answers', () => {
  const sockets = new Set<net.Socket>();
  const silent = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  let server: ServerProcess;
  let refusing: ServerProcess;

  beforeAll(async () => {
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentPort = (silent.address() as net.AddressInfo).port;
    // A port that was free a moment ago: nobody listens, so connections are refused.
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const env = { MIGRATE_ON_START: 'false', DATABASE_CONNECT_TIMEOUT_MS: '1000', DATABASE_POOL_SIZE: '3' };
    [server, refusing] = await Promise.all([
      startServer({ ...env, DATABASE_URL: `postgres://postgres@127.0.0.1:${silentPort}/termin` }),
      startServer({ ...env, DATABASE_URL: `postgres://postgres@127.0.0.1:${closedPort}/termin` }),
    ]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([server && stopServer(server), refusing && stopServer(refusing)]);
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  const wellFormedKey = `tmn_${'A'.repeat(16)}_${'B'.repeat(43)}`;

  for (const which of ['silent', 'refusing'] as const) {
    it(`/readyz answers 503 within 2 s (${which})`, async () => {
      const target = which === 'silent' ? server : refusing;
      const started = Date.now();
      const response = await fetch(`${target.url}/readyz`, { signal: AbortSignal.timeout(10_000) });
      expect(response.status).toBe(503);
      expect(Date.now() - started).toBeLessThan(2_000);
    });

    it(`requests that need the database get 503 DATABASE_UNAVAILABLE with Retry-After (${which})`, async () => {
      const target = which === 'silent' ? server : refusing;
      // More at once than the pool has connections: the queued ones time out too.
      const responses = await Promise.all(
        Array.from({ length: 6 }, () => fetch(`${target.url}/api/v1/teams`, { headers: { 'x-service-api-key': wellFormedKey }, signal: AbortSignal.timeout(15_000) })),
      );
      for (const response of responses) {
        expect(response.status).toBe(503);
        expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(((await response.json()) as { code: string }).code).toBe('DATABASE_UNAVAILABLE');
      }
      // The process is still there and answers what needs no database.
      expect((await fetch(`${target.url}/healthz`)).status).toBe(200);
    });
  }
});
