import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/**
 * Debian's PgBouncer in transaction mode in front of a PostgreSQL server, for the tests: the
 * PgBouncer suite (test/db/pgbouncer.test.ts) and whole runs through it (TEST_PGBOUNCER=1, see
 * test/global-setup.ts). No vitest import: the global setup loads it too.
 */
export interface RunningPgBouncer {
  /** `direct` with PgBouncer's host and port: any database of the server through it. */
  url: string;
  stop(): void;
}

/**
 * Only what PgBouncer needs to listen and let `direct`'s user in, with `extra` settings after
 * them (`[pgbouncer]` section); everything else at its defaults.
 */
export async function startPgBouncer(binary: string, direct: URL, extra: Record<string, string> = {}): Promise<RunningPgBouncer> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termin-pgbouncer-'));
  // PgBouncer refuses to run as root; as root (CI containers) it is told to switch to nobody, who must read these.
  fs.chmodSync(dir, 0o755);
  fs.writeFileSync(path.join(dir, 'users.txt'), `"${decodeURIComponent(direct.username)}" ""\n`, { mode: 0o644 });
  const ini = [
    '[databases]',
    `* = host=${direct.hostname} port=${direct.port || 5432}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'auth_type = trust',
    `auth_file = ${path.join(dir, 'users.txt')}`,
    'pool_mode = transaction',
    `unix_socket_dir = ${dir}`,
    ...Object.entries(extra).map(([key, value]) => `${key} = ${value}`),
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'pgbouncer.ini'), `${ini}\n`, { mode: 0o644 });
  const asRoot = process.getuid?.() === 0;
  const bouncer: ChildProcess = spawn(binary, [...(asRoot ? ['-u', 'nobody'] : []), path.join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let said = '';
  bouncer.stderr?.on('data', (chunk: Buffer) => (said += chunk.toString()));
  const url = new URL(direct);
  url.port = String(port);
  const stop = () => {
    bouncer.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilAccepting(url.toString(), () => said);
  } catch (error) {
    stop();
    throw error;
  }
  return { url: url.toString(), stop };
}

/** PgBouncer takes a moment to listen; what it said goes into the failure if it never does. */
async function waitUntilAccepting(url: string, said: () => string): Promise<void> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
    try {
      await client.connect();
      await client.query('select 1');
      return;
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  throw new Error(`PgBouncer did not accept connections: ${(lastError as Error)?.message}; it said: ${said()}`);
}

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
