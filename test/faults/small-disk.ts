import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A tmpfs of `size` at a new directory, or null where this process may not mount one (not root, no CAP_SYS_ADMIN). */
export function mountTmpfs(size: string, owner?: { uid: number; gid: number }): string | null {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termin-small-disk-'));
  const options = [`size=${size}`, ...(owner ? [`uid=${owner.uid}`, `gid=${owner.gid}`, 'mode=0700'] : [])].join(',');
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir]).status === 0) return dir;
  fs.rmdirSync(dir);
  return null;
}

export function unmount(dir: string): void {
  spawnSync('umount', [dir]);
  fs.rmdirSync(dir);
}

/** Whether this process can mount a small disk of its own to fill. */
export const CAN_MOUNT = (() => {
  const dir = mountTmpfs('1m');
  if (dir) unmount(dir);
  return dir !== null;
})();

/** Writes a file until the filesystem has no byte left; its path. */
export function fillUp(dir: string): string {
  const file = path.join(dir, 'filler');
  const fd = fs.openSync(file, 'w');
  try {
    for (const size of [1 << 20, 4096, 1]) {
      const chunk = Buffer.alloc(size, 1);
      try {
        for (;;) fs.writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return file;
}
