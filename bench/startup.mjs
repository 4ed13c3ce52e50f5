// Time to a healthy /healthz: starts `node dist/server.js` of a project folder on a fresh
// embedded database (migrations and the demo account included), waits until /healthz
// answers, stops it, and prints the milliseconds. Compare two builds with farm-bench:
//   npm run build && farm-bench -n 9 -- node bench/startup.mjs . --vs 'node bench/startup.mjs ../other-checkout'
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const project = path.resolve(process.argv[2] ?? '.');
const dataDir = mkdtempSync(path.join(tmpdir(), 'termin-startup-'));
const port = 20_000 + Math.floor(Math.random() * 20_000);
const started = performance.now();
const server = spawn(process.execPath, [path.join(project, 'dist', 'server.js')], {
  cwd: project,
  env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', DATABASE_URL: '' },
  stdio: 'ignore',
});
try {
  for (;;) {
    const healthy = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    if (server.exitCode !== null) throw new Error(`the server exited (${server.exitCode}) before answering`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  console.log(`healthy after ${Math.round(performance.now() - started)} ms`);
} finally {
  server.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
}
