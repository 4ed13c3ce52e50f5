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
      // info: the shutdown line tells the test when SIGTERM has been taken.
      env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info', DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child = server;
    let output = '';
    const waiters: { text: string; resolve: () => void }[] = [];
    server.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      for (const waiter of waiters.filter((w) => output.includes(w.text))) waiter.resolve();
    });
    /** Resolves once the server has printed `text` (no polling, no fixed sleeps). */
    const printed = (text: string) =>
      new Promise<void>((resolve, reject) => {
        if (output.includes(text)) return resolve();
        waiters.push({ text, resolve });
        server.once('exit', () => reject(new Error(`the server exited before printing "${text}":\n${output}`)));
      });
    await printed('curl');

    const key = /tmn_[A-Za-z0-9_-]+/.exec(output)?.[0];
    expect(key).toBeDefined();
    expect(output).toContain(`curl -s -H 'X-Service-Api-Key: ${key}' http://127.0.0.1:${port}/api/v1/teams`);
    // The web app and the demo owner's e-mail, and where the sign-in e-mail lands without SMTP_URL: true as printed.
    const outboxDir = path.join(dataDir, 'outbox');
    expect(output).toContain(`  Web app:   http://127.0.0.1:${port}/app`);
    expect(output).toContain(`  http://127.0.0.1:${port}/app   e-mail: owner@demo.termin.test`);
    expect(output).toContain(`it is written as an .eml file to ${outboxDir}; open the link in it.`);
    const form = await fetch(`http://127.0.0.1:${port}/app/login`, { headers: { accept: 'text/html' } });
    const cookie = form.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ');
    const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
    const asked = await fetch(`http://127.0.0.1:${port}/app/login`, {
      method: 'POST',
      headers: { accept: 'text/html', cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, email: 'owner@demo.termin.test' }).toString(),
    });
    expect(asked.status).toBe(200);
    let link: string | undefined;
    await expect
      .poll(() => {
        const files = fs.existsSync(outboxDir) ? fs.readdirSync(outboxDir).filter((file) => file.endsWith('.eml')) : [];
        const texts = files.map((file) => fs.readFileSync(path.join(outboxDir, file), 'utf8').replace(/=\r?\n/g, ''));
        link = texts.map((text) => new RegExp(`http://127\\.0\\.0\\.1:${port}/app/login/[A-Za-z0-9_-]+`).exec(text)?.[0]).find((found) => found !== undefined);
        return link;
      })
      .toBeDefined();
    expect(await (await fetch(link!, { headers: { accept: 'text/html' } })).text()).toContain('Sign in to Demo as owner@demo.termin.test?');

    const teams = await fetch(`http://127.0.0.1:${port}/api/v1/teams`, { headers: { 'x-service-api-key': key! } });
    expect(teams.status).toBe(200);
    expect(((await teams.json()) as { teams: { name: string }[] }).teams.map((team) => team.name)).toEqual(['Demo team']);
    // The printed calculate-schedule line works as printed.
    const calculateBody = /-d '(\{.*\})'/.exec(output)![1]!;
    const schedule = await fetch(`http://127.0.0.1:${port}/api/v1/calculate-schedule`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: calculateBody });
    expect(schedule.status).toBe(200);
    // The printed booking page lists the demo topic, whose page offers times this month or next.
    const pageUrl = new RegExp(`http://127\\.0\\.0\\.1:${port}/book/[a-z0-9.-]+`).exec(output)?.[0];
    expect(pageUrl).toBeDefined();
    const list = await fetch(pageUrl!, { headers: { accept: 'text/html' } });
    expect(list.status).toBe(200);
    const listHtml = await list.text();
    expect(listHtml).toContain('Intro call');
    const topicPath = /href="(\/book\/[^"]+\/[0-9a-f-]{36})"/.exec(listHtml)?.[1];
    expect(topicPath).toBeDefined();
    expect((await fetch(`http://127.0.0.1:${port}${topicPath}`)).status).toBe(200);
    const { username, meetingTopic, timezone } = JSON.parse(calculateBody) as { username: string; meetingTopic: string; timezone: string };
    const now = new Date();
    let slots = 0;
    for (const ahead of [0, 1]) {
      const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + ahead, 1));
      const monthSchedule = await fetch(`http://127.0.0.1:${port}/api/v1/calculate-schedule`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username, meetingTopic, timezone, offset: 0, month: month.getUTCMonth() + 1, year: month.getUTCFullYear() }),
      });
      const days = ((await monthSchedule.json()) as { days: { slots: unknown[] }[] }).days;
      slots += days.reduce((sum, day) => sum + day.slots.length, 0);
    }
    expect(slots).toBeGreaterThan(0);

    // A request whose body is still arriving when SIGTERM comes is answered, then the process exits 0.
    // `Expect: 100-continue` makes the server say when it has the request's headers; the log
    // line says when it has taken SIGTERM; only then does the rest of the body follow.
    const body = JSON.stringify({ name: 'Late team' });
    let response: http.IncomingMessage | undefined;
    const request = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/api/v1/teams',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-service-api-key': key, expect: '100-continue' },
    });
    const answered = new Promise<number>((resolve, reject) => {
      request.on('response', (res) => {
        response = res;
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      request.on('error', reject);
    });
    const continued = new Promise<void>((resolve) => request.once('continue', resolve));
    request.flushHeaders();
    await continued;
    server.kill('SIGTERM');
    await printed('shutting down');
    request.end(body);
    const inFlight = answered;
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    expect(await inFlight).toBe(201);
    expect(response?.statusCode).toBe(201);
    expect(await exited).toBe(0);
  }, 60_000);
});
