import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchStatus, startServer, stopServer, type ServerProcess } from '../process.js';

/** Opens a raw connection that sends `chunks` one at a time, `everyMs` apart, until the server hangs up. */
function trickle(port: number, chunks: string[], everyMs: number): Promise<{ closedAfterMs: number; response: string }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let response = '';
    let i = 0;
    const timer = setInterval(() => {
      if (i < chunks.length && !socket.destroyed) socket.write(chunks[i++]!);
    }, everyMs);
    socket.on('data', (data) => (response += data.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ closedAfterMs: Date.now() - started, response });
    });
    // The test's own bound: far past what the issue allows (30 s), so a hang fails clearly.
    setTimeout(() => socket.destroy(), 40_000);
  });
}

describe('slow clients', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'termin-slow-'));
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer({ DATA_DIR: dataDir, HEADERS_TIMEOUT_MS: '2000', REQUEST_TIMEOUT_MS: '3000' });
  }, 60_000);
  afterAll(async () => {
    if (server) await stopServer(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('cuts off a request whose headers trickle in, while serving another client', async () => {
    // One header byte every 200 ms: never idle, never finished.
    const headers = `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(400)}`;
    const slow = trickle(server.port, [...headers], 200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await fetchStatus(`${server.url}/healthz`)).toBe(200);
    const { closedAfterMs } = await slow;
    expect(closedAfterMs).toBeLessThan(30_000);
  }, 45_000);

  it('cuts off a request whose body trickles in (408), while serving another client', async () => {
    const body = JSON.stringify({ username: 'x', meetingTopic: '00000000-0000-4000-8000-000000000000', timezone: 'UTC', offset: 0, pad: 'p'.repeat(300) });
    const head = `POST /api/v1/calculate-schedule HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const slow = trickle(server.port, [head, ...body], 200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await fetchStatus(`${server.url}/healthz`)).toBe(200);
    const { closedAfterMs, response } = await slow;
    expect(closedAfterMs).toBeLessThan(30_000);
    expect(response).toMatch(/^HTTP\/1\.1 408/);
  }, 45_000);
});

/** GET /healthz on a connection of its own (fetch would reuse a pooled keep-alive socket). */
function freshConnectionStatus(port: number): Promise<number | 'network-error'> {
  return new Promise((resolve) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/healthz', agent: false, timeout: 10_000 }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve('network-error'));
  });
}

describe('the connection cap', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'termin-cap-'));
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer({ DATA_DIR: dataDir, MAX_CONNECTIONS: '4' });
  }, 60_000);
  afterAll(async () => {
    if (server) await stopServer(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses connections past MAX_CONNECTIONS and serves again once some close', async () => {
    const held = await Promise.all(
      Array.from(
        { length: 4 },
        () =>
          new Promise<net.Socket>((resolve) => {
            const socket = net.connect(server.port, '127.0.0.1', () => resolve(socket));
            socket.on('error', () => undefined);
          }),
      ),
    );
    // Let the server accept them all before the next one arrives.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await freshConnectionStatus(server.port)).toBe('network-error');
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await freshConnectionStatus(server.port)).toBe(200);
  });
});
