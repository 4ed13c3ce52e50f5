import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

export interface RadicaleServer {
  /** `http://127.0.0.1:<port>/` */
  baseUrl: string;
  username: string;
  password: string;
  /** MKCALENDAR `/<username>/<name>/`; answers the collection URL. */
  createCalendar(name: string): Promise<string>;
  /** Stops the server and removes its storage; safe to call twice. */
  stop(): Promise<void>;
}

export interface RadicaleOptions {
  username?: string;
  password?: string;
}

const STARTUP_DEADLINE_MS = 20_000;

/**
 * Debian's Radicale on 127.0.0.1 and a free port, with its own storage folder, htpasswd
 * users (plain text, one user) and only owner access, configured entirely by a file in a
 * temp folder so no system or user configuration leaks in. Ready once its port accepts a
 * connection. Tests that need it start one in `beforeAll` and stop it in `afterAll`.
 */
export async function startRadicale(options: RadicaleOptions = {}): Promise<RadicaleServer> {
  const username = options.username ?? 'alice';
  const password = options.password ?? 'correct horse battery staple';
  const dir = await mkdtemp(path.join(tmpdir(), 'termin-radicale-'));
  const port = await freePort();
  const users = path.join(dir, 'users');
  await writeFile(users, `${username}:${password}\n`);
  const config = path.join(dir, 'config');
  await writeFile(
    config,
    [
      '[server]',
      `hosts = 127.0.0.1:${port}`,
      '[auth]',
      'type = htpasswd',
      `htpasswd_filename = ${users}`,
      'htpasswd_encryption = plain',
      // Radicale delays every failed login by a second by default.
      'delay = 0',
      '[rights]',
      'type = owner_only',
      '[storage]',
      `filesystem_folder = ${path.join(dir, 'collections')}`,
      '[web]',
      'type = none',
      '[logging]',
      'level = warning',
      '',
    ].join('\n'),
  );

  const [command, args] = existsSync('/usr/bin/radicale') ? ['/usr/bin/radicale', []] : ['python3', ['-m', 'radicale']];
  const child = spawn(command, [...args, '--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let spawnError: Error | undefined;
  child.once('error', (error) => (spawnError = error));

  try {
    await waitForPort(
      port,
      child,
      () => spawnError,
      () => output,
    );
  } catch (error) {
    child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw error;
  }

  const baseUrl = `http://127.0.0.1:${port}/`;
  const authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  let stopped = false;
  return {
    baseUrl,
    username,
    password,
    async createCalendar(name) {
      const url = new URL(`${encodeURIComponent(username)}/${encodeURIComponent(name)}/`, baseUrl).href;
      const response = await fetch(url, {
        method: 'MKCALENDAR',
        headers: { authorization, 'content-type': 'application/xml; charset=utf-8' },
        body:
          '<?xml version="1.0" encoding="utf-8"?>' +
          '<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop>' +
          `<D:displayname>${name}</D:displayname>` +
          '<C:supported-calendar-component-set><C:comp name="VEVENT"/></C:supported-calendar-component-set>' +
          '</D:prop></D:set></C:mkcalendar>',
      });
      const text = await response.text();
      if (response.status !== 201) throw new Error(`MKCALENDAR ${url} answered ${response.status}: ${text}`);
      return url;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A port the OS just handed out; Radicale binds it right after (a tiny race, fine in tests). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Polls the port until it accepts a connection; fails early if Radicale exits. */
async function waitForPort(port: number, child: ChildProcess, spawnError: () => Error | undefined, output: () => string): Promise<void> {
  const deadline = Date.now() + STARTUP_DEADLINE_MS;
  for (;;) {
    const error = spawnError();
    if (error) throw new Error(`Radicale did not start: ${error.message}`);
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`Radicale exited (${child.exitCode ?? child.signalCode}) before listening:\n${output()}`);
    }
    if (await canConnect(port)) return;
    if (Date.now() > deadline) throw new Error(`Radicale did not listen on 127.0.0.1:${port} within ${STARTUP_DEADLINE_MS} ms:\n${output()}`);
    await delay(50);
  }
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
