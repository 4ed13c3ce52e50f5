import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import axe from 'axe-core';
import { pino } from 'pino';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type AppContext, createContext } from '../../src/context.js';
import { redeemSignInLink, requestSignInLink } from '../../src/scheduling/host-app/sign-in.js';
import { freePort, createTestAccount } from '../helpers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ARTIFACTS = path.join(ROOT, 'test/artifacts');

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

export interface Owner {
  accountUuid: string;
  userUuid: string;
  username: string;
  teamUuid: string;
  apiKey: string;
}

export interface RunningServer {
  url: string;
  dataDir: string;
  owner: Owner;
  /** The API as an integrator calls it, with the owner's key. */
  api<T = any>(method: string, urlPath: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** The .eml files written so far (SMTP unset), newest last. */
  outbox(): string[];
  stop(): Promise<void>;
}

/**
 * The real service as `npm start` runs it (src/server.ts in its own process, listening on
 * 127.0.0.1, background jobs on, e-mail to files), over a fresh SQLite file. The account is
 * created beforehand through the same use case the CLI calls.
 */
export async function startServer(extraEnv: Record<string, string> = {}): Promise<RunningServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'termin-browser-'));
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
    ...extraEnv,
  };

  const ctx = await createContext(loadConfig(env), { log: pino({ level: 'silent' }) });
  let owner: Owner;
  try {
    const created = await createTestAccount(ctx, { timezone: 'Europe/Warsaw', places: ['offline', 'phone-call', 'zoom'] });
    owner = { accountUuid: created.account.uuid, userUuid: created.owner.uuid, username: created.owner.username, teamUuid: created.team.uuid, apiKey: created.apiKey };
  } finally {
    await ctx.close();
  }

  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + 45_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited: ${stderr}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the server did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return {
    url,
    dataDir,
    owner,
    async api(method, urlPath, body) {
      const response = await fetch(`${url}/api/v1${urlPath}`, {
        method,
        headers: { accept: 'application/json', 'x-service-api-key': owner.apiKey, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    outbox() {
      const dir = path.join(dataDir, 'outbox');
      if (!fs.existsSync(dir)) return [];
      return fs
        .readdirSync(dir)
        .filter((file) => file.endsWith('.eml'))
        .map((file) => path.join(dir, file))
        .sort((a, b) => fs.statSync(a).mtimeMs - fs.statSync(b).mtimeMs)
        .map((file) => fs.readFileSync(file, 'utf8'));
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface BrowserSuite {
  /** The suite's server, started (and the owner's hours opened, unless told not to) before its tests. */
  readonly server: RunningServer;
  readonly browser: Browser;
  /**
   * A page in a new context (Europe/Warsaw, en-GB, unless `options` say otherwise) at `url`
   * (a path on the server or a whole URL), whose uncaught errors fail the test.
   */
  open(url: string, options?: BrowserContextOptions): Promise<Page>;
}

/**
 * One server (startServer with `env`) and one Chromium for the calling describe block: started
 * in its beforeAll, with the owner open all day unless `openAllDay: false`, and both stopped in
 * its afterAll (whichever of them started). Read `server` and `browser` inside tests and hooks.
 */
export function useServerAndBrowser(options: { env?: () => Promise<Record<string, string>>; openAllDay?: boolean } = {}): BrowserSuite {
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    const env = (await options.env?.()) ?? {};
    await Promise.all([startServer(env).then((started) => (server = started)), launchBrowser().then((launched) => (browser = launched))]);
    if (options.openAllDay !== false) await openAllDay(server!, server!.owner.userUuid);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });
  const suite: BrowserSuite = {
    get server() {
      if (!server) throw new Error('the server starts in beforeAll: read it inside a test or hook');
      return server;
    },
    get browser() {
      if (!browser) throw new Error('the browser starts in beforeAll: read it inside a test or hook');
      return browser;
    },
    async open(url, contextOptions = {}) {
      const context = await suite.browser.newContext({ timezoneId: 'Europe/Warsaw', locale: 'en-GB', ...contextOptions });
      const page = await context.newPage();
      page.on('pageerror', (error) => {
        throw error;
      });
      await page.goto(url.startsWith('http') ? url : `${suite.server.url}${url}`);
      return page;
    },
  };
  return suite;
}

/** Every day, all day, in the owner's zone: any test day has free times, whatever today is. */
export const ALWAYS_OPEN = {
  timezone: 'Europe/Warsaw',
  weekly: Object.fromEntries(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [day, [{ start: '00:00', end: '24:00' }]])),
  overrides: [],
};

export async function openAllDay(server: RunningServer, userUuid: string): Promise<void> {
  const response = await server.api('PUT', `/users/${userUuid}/availability`, ALWAYS_OPEN);
  if (response.status !== 200) throw new Error(`availability: ${response.status} ${JSON.stringify(response.body)}`);
}

/**
 * The owner's web-app session, opened through the sign-in link's use cases (not its pages,
 * which have tests of their own), with a context of the server's own data for the test to use.
 */
export async function openOwnerSession(server: RunningServer): Promise<{ ctx: AppContext; sessionToken: string }> {
  const ctx = await createContext(loadConfig({ DATA_DIR: server.dataDir, DATABASE_URL: '', TERMIN_DEMO: 'false', LOG_LEVEL: 'silent', PUBLIC_URL: server.url }), {
    log: pino({ level: 'silent' }),
  });
  const members = await server.api('GET', `/teams/${server.owner.teamUuid}/users`);
  const email = members.body.users.find((user: { uuid: string }) => user.uuid === server.owner.userUuid).email as string;
  await requestSignInLink(ctx, email, 'en');
  // The link is e-mailed by the server's background worker: wait for it (expect.poll is for tests only).
  let token: string | undefined;
  for (const deadline = Date.now() + 15_000; token === undefined && Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
    token = /\/app\/login\/([A-Za-z0-9_-]+)/.exec(
      server
        .outbox()
        .join('\n')
        .replace(/=\r?\n/g, ''),
    )?.[1];
  }
  if (token === undefined) throw new Error('no sign-in e-mail in the outbox');
  return { ctx, sessionToken: (await redeemSignInLink(ctx, token))!.token };
}

export async function createTopic(server: RunningServer, body: Record<string, unknown>): Promise<{ uuid: string } & Record<string, any>> {
  const response = await server.api('POST', '/meeting-topics', { public: true, durationMinutes: 30, minimumNoticeMinutes: 120, ...body });
  if (response.status !== 201) throw new Error(`topic: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** A screenshot of the whole page under test/artifacts/, for a person to look at. */
export async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * axe-core in every page the context opens from now on, put there by Chromium as each page
 * starts: sending its half a megabyte of source over the DevTools protocol for each check
 * took most of a check's time (0.2–0.9 s of about 1 s on a loaded machine), and a test that
 * checks every page it visits pays that on each one.
 */
export async function preloadAxe(context: BrowserContext): Promise<void> {
  await context.addInitScript({ content: axe.source });
}

/**
 * axe-core run inside the page (evaluated through the DevTools protocol, which the page's
 * CSP does not govern); returns the serious and critical violations.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // A context prepared by preloadAxe has it in every page already; otherwise it is sent now.
  if (!(await page.evaluate("typeof axe !== 'undefined'"))) await page.evaluate(axe.source);
  // Browser-side code as text: the project's TypeScript has no DOM types.
  const violations = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
    result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`)) as AxeViolation[];
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/** The first bookable day and its first slot, as the page offers them. */
/**
 * Picks the first slot of a day in the calendar (the first day unless told). Tests that read
 * a "start–end" span pick day 1: late in the evening the first day's first slot can end
 * after midnight, and its span then rightly names two dates.
 */
export async function chooseFirstSlot(page: Page, dayIndex = 0): Promise<{ date: string; start: string }> {
  const day = page.locator('button[data-date]').nth(dayIndex);
  await day.waitFor();
  const date = (await day.getAttribute('data-date'))!;
  await day.click();
  const slots = page.locator('#slots button[data-start]');
  await slots.first().waitFor();
  // The earliest time sits on the edge of the topic's minimum notice. On a loaded machine the
  // seconds between showing it and booking it can carry it inside the notice, and the booking
  // is rightly refused; the next time has a whole interval to spare.
  const earliest = Date.parse((await slots.first().getAttribute('data-start'))!);
  const slot = earliest < Date.now() + 6 * 3_600_000 && (await slots.count()) > 1 ? slots.nth(1) : slots.first();
  const start = (await slot.getAttribute('data-start'))!;
  await slot.click();
  await page.locator('#details').waitFor();
  return { date, start };
}

/** Pressing Tab until the focused element matches, as a keyboard-only person would. */
export async function tabTo(page: Page, selector: string, maxPresses = 80): Promise<void> {
  for (let i = 0; i < maxPresses; i++) {
    if (await page.evaluate(`document.activeElement?.matches(${JSON.stringify(selector)}) ?? false`)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}
