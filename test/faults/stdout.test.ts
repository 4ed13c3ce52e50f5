import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchStatus, startServer, stopServer, type ServerProcess } from '../process.js';

/**
 * Whatever reads the server's stdout may stall (a stuck log shipper) or go away
 * (`npm start | head`). Either way the server keeps answering and still exits on SIGTERM.
 */
describe('the log pipe', () => {
  const dataDirs: string[] = [];
  let server: ServerProcess | undefined;
  afterEach(async () => {
    if (server) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    server = undefined;
    for (const dir of dataDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** 720 logged requests, 24 at a time (~400 KB of log lines): more than the pipe, the parent and LOG_BUFFER_BYTES hold. */
  async function load(target: ServerProcess): Promise<(number | string)[]> {
    const statuses: (number | string)[] = [];
    for (let batch = 0; batch < 30; batch += 1) {
      statuses.push(...(await Promise.all(Array.from({ length: 24 }, (_, i) => fetchStatus(`${target.url}/healthz?batch=${batch}&i=${i}&pad=${'x'.repeat(200)}`)))));
    }
    return statuses;
  }

  async function start(): Promise<ServerProcess> {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'termin-stdout-'));
    dataDirs.push(dataDir);
    server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'info', LOG_BUFFER_BYTES: '65536' }, 'pipe');
    return server;
  }

  it('keeps answering while nobody reads stdout, and exits on SIGTERM', async () => {
    const target = await start();
    target.child.stdout!.pause(); // a reader that stopped reading: the pipe fills up
    const statuses = await load(target);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(await stopServer(target)).toBe(0);
  }, 90_000);

  it('keeps answering after the reader of stdout went away (EPIPE), and exits on SIGTERM', async () => {
    const target = await start();
    target.child.stdout!.destroy();
    const statuses = await load(target);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(await stopServer(target)).toBe(0);
  }, 90_000);
});
