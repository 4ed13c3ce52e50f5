// `npm start`'s first step: compiles src/ to dist/ only when the sources changed since the
// last build (a content hash of src/ and the tsconfig files, kept in dist/.build-stamp). An
// unchanged checkout starts without the compiler; a changed one is built exactly as before.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const stamp = path.join(root, 'dist', '.build-stamp');

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return sources(full);
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
    });
}

const hash = createHash('sha256');
for (const file of [...sources(path.join(root, 'src')), path.join(root, 'tsconfig.json'), path.join(root, 'tsconfig.build.json')]) {
  hash.update(path.relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
}
const digest = hash.digest('hex');

if (existsSync(path.join(root, 'dist', 'server.js')) && existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === digest) process.exit(0);

const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const built = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json'), '--noCheck'], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
writeFileSync(stamp, `${digest}\n`);
