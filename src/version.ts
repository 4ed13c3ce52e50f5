import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's root folder: this file sits one level below it, in src/ (tsx) or dist/
 * (compiled), so the answer does not depend on the directory the process was started from.
 */
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The version in package.json: what `cli --version`, `GET /healthz` and the API document say. */
export const SERVICE_VERSION: string = (JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
