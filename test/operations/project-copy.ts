import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const PROJECT_ROOT = path.resolve(import.meta.dirname, '..', '..');

/** The committed tree (`git archive HEAD`) in a fresh folder: what a clone would hold. */
export function copyCommittedTree(prefix: string): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const archive = execFileSync('git', ['archive', '--format=tar', 'HEAD'], { cwd: PROJECT_ROOT, maxBuffer: 512 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', folder], { input: archive });
  return folder;
}

export interface NpmStart {
  child: ChildProcess;
  output: () => string;
  /** Resolves once the output holds `text`; rejects if the process exits first. */
  printed(text: string): Promise<void>;
  exited: Promise<number | string | null>;
}

/** `npm start` in `cwd`, its output collected; waits on what it prints, never on a timer. */
export function npmStart(cwd: string, env: Record<string, string>): NpmStart {
  const child = spawn('npm', ['start'], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  const take = (chunk: Buffer) => {
    output += chunk.toString();
    for (const waiter of waiters.filter((w) => output.includes(w.text))) waiter.resolve();
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  return {
    child,
    output: () => output,
    exited,
    printed: (text) =>
      new Promise<void>((resolve, reject) => {
        if (output.includes(text)) return resolve();
        waiters.push({ text, resolve });
        void exited.then((code) => reject(new Error(`npm start exited (${code}) before printing "${text}":\n${output}`)));
      }),
  };
}

/** Every process below `pid` (children, their children, …), from /proc. */
export function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // the process ended while we looked
    }
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !fs.readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

/** The first http://127.0.0.1:PORT the banner names. */
export function bannerUrl(output: string): string {
  const match = /termin \S+ is listening on .*?(http:\/\/127\.0\.0\.1:(\d+))/.exec(output);
  if (!match) throw new Error(`no address in the banner:\n${output}`);
  return match[1]!;
}
