import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Secrets } from '../config.js';
import { keysOf, type SecretKeys } from './secret-box.js';

export const SECRET_KEY_FILE = 'secret.key';

export interface ResolvedSecretKey {
  /** The current key, and the previous ones (TERMIN_SECRET_KEY_PREVIOUS) that still open what they sealed. */
  keys: SecretKeys;
  /** Where the current key came from, for the start-up banner (never the key itself). */
  source: 'env' | 'file' | 'generated';
  file: string | null;
}

/**
 * The key that encrypts stored credentials: TERMIN_SECRET_KEY when set; otherwise the one in
 * `<dataDir>/secret.key`, generated there (mode 0600) on first start so the embedded quick
 * start needs no setup. Several instances must share TERMIN_SECRET_KEY instead: each would
 * otherwise generate its own and fail to read what another stored.
 */
export function resolveSecretKey(secrets: Secrets, dataDir: string): ResolvedSecretKey {
  const { key, source, file } = resolveCurrentKey(secrets, dataDir);
  return { keys: keysOf(key, secrets.previousSecretKeys ?? []), source, file };
}

function resolveCurrentKey(secrets: Secrets, dataDir: string): { key: Buffer; source: ResolvedSecretKey['source']; file: string | null } {
  if (secrets.secretKey !== null) return { key: secrets.secretKey, source: 'env', file: null };
  const file = path.join(dataDir, SECRET_KEY_FILE);
  try {
    const hex = fs.readFileSync(file, 'utf8').trim();
    const key = Buffer.from(hex, 'hex');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte hex key; restore it from your backup or set TERMIN_SECRET_KEY`);
    return { key, source: 'file', file };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  try {
    // 'wx': if another process generated it a moment ago, keep theirs.
    fs.writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return resolveCurrentKey(secrets, dataDir);
    throw error;
  }
  return { key, source: 'generated', file };
}
