/**
 * The booking page's weight and speed, server and browser in one run:
 *   npx tsx bench/booking-page.ts [runs]
 * Starts the real server (src/server.ts, own process, fresh SQLite), creates a public topic
 * whose host is free all day every day, then prints
 *   - the first view's bytes: the HTML and every stylesheet and script it loads (raw and gzip),
 *   - the time from navigation to the first slot list in Chromium (cold cache and warm),
 *     with the calculate-schedule request's share of it as the browser saw it.
 * Figures, not assertions.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { pino } from 'pino';
import { chromium } from 'playwright-core';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { createAccount } from '../src/scheduling/account/create-account.js';
import { median } from './support.js';

const runs = Number(process.argv[2] ?? 5);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'termin-bench-page-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    TERMIN_DEMO: 'false',
    MIGRATE_ON_START: 'true',
    LOG_LEVEL: 'warn',
    DATABASE_URL: '',
    PORT: String(port),
    PUBLIC_URL: url,
  };
  const ctx = await createContext(loadConfig(env), { log: pino({ level: 'silent' }) });
  const created = await createAccount(ctx, {
    name: 'Bench',
    ownerEmail: 'bench@example.com',
    ownerFirstName: 'Bea',
    ownerLastName: 'Bench',
    maxUsers: 5,
    timezone: 'Europe/Warsaw',
    places: ['offline', 'zoom'],
  });
  await ctx.close();

  const server = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${url}/readyz`)).ok) break;
      } catch {
        // starting
      }
      if (i > 400) throw new Error('the server did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const api = (method: string, p: string, body: unknown) =>
      fetch(`${url}/api/v1${p}`, {
        method,
        headers: { 'content-type': 'application/json', accept: 'application/json', 'x-service-api-key': created.apiKey },
        body: JSON.stringify(body),
      }).then(async (response) => ({ status: response.status, body: (await response.json()) as Record<string, any> }));
    const allDay = [{ start: '00:00', end: '24:00' }];
    await api('PUT', `/users/${created.owner.uuid}/availability`, {
      timezone: 'Europe/Warsaw',
      weekly: { monday: allDay, tuesday: allDay, wednesday: allDay, thursday: allDay, friday: allDay, saturday: allDay, sunday: allDay },
      overrides: [],
    });
    const topic = await api('POST', '/meeting-topics', {
      name: 'Intro call',
      durationMinutes: 30,
      public: true,
      places: ['offline', 'zoom'],
      description: 'A first talk.',
      form: [{ key: 'company', label: 'Company', required: false }],
    });
    const pageUrl = `${url}/book/${created.owner.username}/${topic.body.uuid}`;

    // Bytes of the first view: the document and what it links.
    const htmlText = await (await fetch(pageUrl)).text();
    const linked = [...htmlText.matchAll(/<(?:link rel="stylesheet" href|script src)="([^"]+)"/g)].map((match) => match[1]!);
    const files = [{ name: 'HTML', body: Buffer.from(htmlText) }];
    for (const href of linked) files.push({ name: href, body: Buffer.from(await (await fetch(`${url}${href}`)).arrayBuffer()) });
    const rawTotal = files.reduce((sum, file) => sum + file.body.length, 0);
    const gzipTotal = files.reduce((sum, file) => sum + gzipSync(file.body).length, 0);
    console.log('\nFirst view of the booking page (no images):');
    for (const file of files) console.log(`  ${file.name.padEnd(40)} ${String(file.body.length).padStart(7)} B   gzip ${String(gzipSync(file.body).length).padStart(6)} B`);
    console.log(`  ${'total'.padEnd(40)} ${String(rawTotal).padStart(7)} B   gzip ${String(gzipTotal).padStart(6)} B   (budget 100 KB)`);

    // Time to the first slot list: navigation start → the first `button[data-start]` shown.
    const measure = async (page: import('playwright-core').Page) => {
      const started = Date.now();
      await page.goto(pageUrl);
      await page.locator('#slots button[data-start]').first().waitFor();
      const total = Date.now() - started;
      const schedule = (await page.evaluate(
        `performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/calculate-schedule')).map((e) => e.duration).pop() ?? 0`,
      )) as number;
      return { total, schedule };
    };
    const cold: { total: number; schedule: number }[] = [];
    const warm: { total: number; schedule: number }[] = [];
    for (let i = 0; i < runs; i++) {
      const context = await browser.newContext({ timezoneId: 'America/New_York' });
      const page = await context.newPage();
      cold.push(await measure(page));
      warm.push(await measure(page));
      await context.close();
    }
    const row = (label: string, samples: { total: number; schedule: number }[]) =>
      console.log(
        `  ${label.padEnd(28)} median ${String(median(samples.map((s) => s.total))).padStart(5)} ms   (calculate-schedule ${median(samples.map((s) => s.schedule)).toFixed(1)} ms)   max ${Math.max(...samples.map((s) => s.total))} ms`,
      );
    console.log(`\nTime to first slot list in Chromium, ${runs} runs (a month view, 48 slots a day):`);
    row('cold cache, new context', cold);
    row('warm (assets cached)', warm);
    console.log('');
  } finally {
    await browser.close();
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
