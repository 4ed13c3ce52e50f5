import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './helpers.js';

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  port: number;
  /** Resolves with the exit code (or the signal) once the process has ended. */
  exited: Promise<number | string | null>;
}

/**
 * The real entry point (`src/server.ts`) as a child process, for faults whose subject is the
 * process itself. Waits until /healthz answers (not /readyz: some tests give it no database).
 */
export async function startServer(env: Record<string, string>, stdout: 'ignore' | 'pipe' = 'ignore'): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'warn', TERMIN_DEMO: 'false', DATABASE_URL: '', ...env },
    stdio: ['ignore', stdout, 'inherit'],
  });
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const url = `http://127.0.0.1:${port}`;
  // Generous: under a loaded machine (CI running every suite at once) a start can take 20 s.
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      if ((await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) })).ok) return { child, url, port, exited };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`server on ${url} did not start`);
}

/** SIGTERM, then SIGKILL if it has not gone after `graceMs`; resolves with how it ended. */
export async function stopServer(server: ServerProcess, graceMs = 15_000): Promise<number | string | null> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return server.exited;
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), graceMs);
  try {
    return await server.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** `fetch` that gives up after `ms` instead of hanging with the server. */
export async function fetchStatus(url: string, init: RequestInit = {}, ms = 10_000): Promise<number | 'network-error'> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(ms) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 'network-error';
  }
}
