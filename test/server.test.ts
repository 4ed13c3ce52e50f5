import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './helpers.js';


/**
 * The real entry point (`src/server.ts`, as `npm start` runs it compiled) on an empty
 * embedded database: the printed key works, and SIGTERM lets a request in flight finish.
 */
describe('the server process', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'termin-server-'));
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints a working demo key on first start and shuts down gracefully on SIGTERM', async () => {
    const port = await freePort();
    const server = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child = server;
    let output = '';
    server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 30_000;
    while (!output.includes('curl') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));

    const key = /tmn_[A-Za-z0-9_-]+/.exec(output)?.[0];
    expect(key).toBeDefined();
    expect(output).toContain(`curl -s -H 'X-Service-Api-Key: ${key}' http://127.0.0.1:${port}/api/v1/teams`);
    const teams = await fetch(`http://127.0.0.1:${port}/api/v1/teams`, { headers: { 'x-service-api-key': key! } });
    expect(teams.status).toBe(200);
    expect(((await teams.json()) as { teams: { name: string }[] }).teams.map((team) => team.name)).toEqual(['Demo team']);
    // The printed calculate-schedule line works as printed.
    const calculateBody = /-d '(\{.*\})'/.exec(output)![1]!;
    const schedule = await fetch(`http://127.0.0.1:${port}/api/v1/calculate-schedule`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: calculateBody });
    expect(schedule.status).toBe(200);

    // A request whose body is still arriving when SIGTERM comes is answered, then the process exits 0.
    const body = JSON.stringify({ name: 'Late team' });
    const inFlight = new Promise<number>((resolve, reject) => {
      const request = http.request(
        { host: '127.0.0.1', port, method: 'POST', path: '/api/v1/teams', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-service-api-key': key } },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        },
      );
      request.on('error', reject);
      request.write(body.slice(0, 5));
      setTimeout(() => {
        server.kill('SIGTERM');
        setTimeout(() => request.end(body.slice(5)), 300);
      }, 200);
    });
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    expect(await inFlight).toBe(201);
    expect(await exited).toBe(0);
  }, 60_000);
});
