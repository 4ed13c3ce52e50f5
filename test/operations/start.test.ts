import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, bannerUrl, copyCommittedTree, descendantsOf, isAlive, npmStart, type NpmStart } from './project-copy.js';

const exec = promisify(execFile);
const version = (JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** Resolves once nothing accepts connections on the port any more. */
async function portClosed(url: string, deadlineMs = 20_000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: hostname, port: Number(port) });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (!open) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

async function allGone(pids: number[], deadlineMs = 20_000): Promise<number[]> {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline && pids.some(isAlive)) await new Promise((resolve) => setTimeout(resolve, 100));
  return pids.filter(isAlive);
}

describe('npm start, as an operator or a supervisor runs it', () => {
  const folders: string[] = [];
  let started: NpmStart | undefined;
  afterAll(() => {
    if (started) for (const pid of [started.child.pid!, ...descendantsOf(started.child.pid!)]) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
  });

  it('SIGTERM to the npm process stops the server: the port is freed and no process is left behind', async () => {
    const copy = copyCommittedTree('termin-npm-start-');
    folders.push(copy);
    fs.symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(copy, 'node_modules'));
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'termin-npm-start-data-'));
    folders.push(dataDir);

    // PORT=0 on every interface: the banner must name a real port and an address that answers.
    started = npmStart(copy, { PORT: '0', HOST: '0.0.0.0', DATA_DIR: dataDir, TERMIN_DEMO: 'false', LOG_LEVEL: 'warn', DATABASE_URL: '' });
    await started.printed('OpenAPI:');
    const output = started.output();
    expect(output).not.toMatch(/:0\b\/?/);
    expect(output).toContain(`Data:      ${dataDir}`);
    const url = bannerUrl(output);
    const health = await fetch(`${url}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok', version });

    const tree = descendantsOf(started.child.pid!);
    expect(tree.length).toBeGreaterThan(0);
    started.child.kill('SIGTERM');
    const code = await started.exited;
    expect(code === 0 || code === 'SIGTERM').toBe(true);
    expect(await portClosed(url)).toBe(true);
    expect(await allGone(tree)).toEqual([]);
    started = undefined;
  }, 180_000);

  it('DATA_DIR and the default database are found from the project folder, whatever the current directory', async () => {
    const relative = path.join('test', 'artifacts', `data-dir-${process.pid}-${Date.now()}`);
    const expected = path.join(PROJECT_ROOT, relative);
    folders.push(expected);
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'termin-elsewhere-'));
    folders.push(elsewhere);
    const tsx = path.join(PROJECT_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
    const { stdout } = await exec(process.execPath, [tsx, path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), 'account', 'list', '--json'], {
      cwd: elsewhere,
      env: { ...process.env, DATA_DIR: relative, DATABASE_URL: '', LOG_LEVEL: 'silent' },
    });
    expect(JSON.parse(stdout)).toEqual({ accounts: [] });
    expect(fs.existsSync(path.join(expected, 'termin.db'))).toBe(true);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  }, 60_000);
});
