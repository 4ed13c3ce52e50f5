import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, copyCommittedTree } from './project-copy.js';

/** `npm start` compiles only when the sources changed: a current dist/ starts without the compiler. */
describe('the build step of npm start', () => {
  const folders: string[] = [];
  afterAll(() => {
    for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
  });

  it('builds a fresh clone, skips an unchanged one, and builds again after a change to src/', () => {
    const copy = copyCommittedTree('termin-build-');
    folders.push(copy);
    fs.symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(copy, 'node_modules'));
    const build = () => execFileSync(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: copy, encoding: 'utf8' });
    const server = path.join(copy, 'dist', 'server.js');

    build();
    expect(fs.existsSync(server)).toBe(true);
    const built = fs.statSync(server).mtimeMs;

    build();
    expect(fs.statSync(server).mtimeMs).toBe(built);

    const version = path.join(copy, 'src', 'version.ts');
    fs.appendFileSync(version, "\nexport const BUILD_PROBE = 'changed';\n");
    build();
    expect(fs.readFileSync(path.join(copy, 'dist', 'version.js'), 'utf8')).toContain('BUILD_PROBE');
  }, 120_000);
});
