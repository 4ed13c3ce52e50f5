import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, stopServer, type ServerProcess } from '../process.js';

/** A raw HTTP/1.1 connection, so the test sees exactly what the server sends and when it closes. */
async function openConnection(port: number) {
  const socket = await new Promise<net.Socket>((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
  let received = '';
  let failure: string | null = null;
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
  socket.on('error', (error: NodeJS.ErrnoException) => (failure = error.code ?? error.message));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    socket,
    received: () => received,
    failure: () => failure,
    closed,
    /** Sends `request` and resolves once a whole response (headers and a Content-Length body) has arrived. */
    async exchange(request: string): Promise<string> {
      const before = received.length;
      socket.write(request);
      for (;;) {
        const response = received.slice(before);
        const head = response.indexOf('\r\n\r\n');
        const length = /content-length: (\d+)/i.exec(response)?.[1];
        if (head >= 0 && length !== undefined && response.length >= head + 4 + Number(length)) return response;
        if (socket.destroyed) throw new Error(`the connection ended (${failure ?? 'closed'}) after: ${JSON.stringify(response)}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
  };
}

/**
 * SIGTERM while clients are connected: new connections are refused at once, a request still
 * arriving on a kept-alive connection gets a 503 problem with Retry-After and Connection:
 * close (not a reset), logged at info and not as an error, a request in flight finishes
 * normally, and the process exits cleanly.
 */
describe('shutting down with clients connected', () => {
  const folders: string[] = [];
  let server: ServerProcess | undefined;
  afterAll(async () => {
    if (server) await stopServer(server);
    for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
  });

  it('refuses new connections, answers late requests on open ones as problems, and finishes the one in flight', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'termin-drain-'));
    folders.push(dataDir);
    server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'info' }, 'pipe');
    let output = '';
    server.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));

    // In flight: a request whose body is still arriving holds the shutdown open.
    const inFlight = await openConnection(server.port);
    const body = JSON.stringify({ meetingTopic: '00000000-0000-4000-8000-000000000000', username: 'nobody', timezone: 'UTC', offset: 0 });
    inFlight.socket.write(`POST /api/v1/calculate-schedule HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`);
    // Kept alive: one request answered, the connection left open and idle.
    const keptAlive = await openConnection(server.port);
    expect(await keptAlive.exchange('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n')).toMatch(/^HTTP\/1\.1 200/);

    server.child.kill('SIGTERM');
    // New connections are refused as soon as the server stops listening.
    await expect
      .poll(
        () =>
          new Promise<string>((resolve) => {
            const probe = net.connect(server!.port, '127.0.0.1', () => {
              probe.destroy();
              resolve('accepted');
            });
            probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
          }),
        { timeout: 5_000 },
      )
      .toBe('ECONNREFUSED');

    // The kept-alive connection's next request is answered, as a problem the client can act on.
    const late = await keptAlive.exchange('GET /api/v1/teams HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n\r\n');
    expect(late).toMatch(/^HTTP\/1\.1 503/);
    expect(late).toMatch(/\r\nconnection: close\r\n/i);
    expect(late).toMatch(/\r\nretry-after: \d+\r\n/i);
    expect(late).toMatch(/\r\ncontent-type: application\/problem\+json/i);
    await keptAlive.closed;
    expect(keptAlive.failure()).toBeNull();

    // The request in flight completes with its real answer, and then the process exits 0.
    const finished = inFlight.exchange(body.slice(10));
    expect(await finished).toMatch(/^HTTP\/1\.1 404/);
    expect(await server.exited).toBe(0);

    // The refusal is the shutdown doing its job: an info line saying so, no error line at all.
    const lines = output.split('\n').flatMap((line) => {
      try {
        return [JSON.parse(line) as { level: number; msg: string; url?: string; status?: number }];
      } catch {
        return []; // the start-up banner
      }
    });
    expect(lines.filter((line) => line.url === '/api/v1/teams')).toEqual([expect.objectContaining({ level: 30, msg: 'request refused: shutting down', status: 503 })]);
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
  }, 60_000);
});
