import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { SecretUnreadableError } from '../domain/errors.js';

export { SecretUnreadableError };

/**
 * Credentials at rest: AES-256-GCM with a fresh 96-bit nonce per value, so the same secret
 * stored twice gives two different texts, and any change to a stored text (or the wrong
 * key) fails authentication instead of decrypting to garbage.
 *
 * `sealSecret(keys, 'sk_test_123')` → `'v1.<nonce>.<tag>.<ciphertext>'` (base64url parts);
 * `openSecret(keys, sealed)` → `'sk_test_123'`.
 */
const VERSION = 'v1';

/**
 * The secret key and the keys it replaced: new data is sealed (and new MACs made) with
 * `current`; data sealed with any of `previous` (TERMIN_SECRET_KEY_PREVIOUS) still opens, so a
 * key can be rotated without losing anything, and `cli secrets reseal` moves it all over.
 */
export interface SecretKeys {
  readonly current: Buffer;
  readonly previous: readonly Buffer[];
}

/** A keyring of one key (no earlier keys): `keysOf(randomBytes(32))`. */
export function keysOf(current: Buffer, previous: readonly Buffer[] = []): SecretKeys {
  return Object.freeze({ current, previous: Object.freeze([...previous]) });
}

/** Every key that may open data or check a MAC, the current one first. */
export function allKeys(keys: SecretKeys): readonly Buffer[] {
  return [keys.current, ...keys.previous];
}

export function sealSecret(keys: SecretKeys, plaintext: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keys.current, nonce);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, nonce.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
}

/** The plaintext, and whether the current key opened it (false: a previous key did, and it is worth sealing again). */
export function openSecretWithKey(keys: SecretKeys, sealed: string): { plaintext: string; current: boolean } {
  const [version, nonce, tag, ciphertext] = sealed.split('.');
  if (version !== VERSION || nonce === undefined || tag === undefined || ciphertext === undefined) throw new SecretUnreadableError();
  for (const key of allKeys(keys)) {
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      const plaintext = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
      return { plaintext, current: key === keys.current };
    } catch {
      // Not this key: the next one may be the one it was sealed with.
    }
  }
  throw new SecretUnreadableError();
}

/** Opens with the current key or any previous one; SecretUnreadableError when none opens it. */
export function openSecret(keys: SecretKeys, sealed: string): string {
  return openSecretWithKey(keys, sealed).plaintext;
}

/** Whether any of the keys opens it. */
export function canOpenSecret(keys: SecretKeys, sealed: string): boolean {
  try {
    openSecretWithKey(keys, sealed);
    return true;
  } catch (error) {
    if (error instanceof SecretUnreadableError) return false;
    throw error;
  }
}

/**
 * The same secret sealed with the current key, or null when it already is (nothing to write);
 * SecretUnreadableError when no key opens it. `cli secrets reseal` uses it on every sealed column.
 */
export function resealSecret(keys: SecretKeys, sealed: string): string | null {
  const opened = openSecretWithKey(keys, sealed);
  return opened.current ? null : sealSecret(keys, opened.plaintext);
}

/** Seals every value of a record: `{ apiKey: '…' }` → `{ apiKey: 'v1.…' }`. */
export function sealRecord(keys: SecretKeys, values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, sealSecret(keys, value)]));
}

export function openRecord(keys: SecretKeys, sealed: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(sealed).map(([name, value]) => [name, openSecret(keys, value)]));
}

/** `seal`/`open` bound to the keys: what an adapter is handed instead of the keys themselves. */
export function secretBoxOf(keys: SecretKeys): { seal(secret: string): string; open(sealed: string): string } {
  return { seal: (secret) => sealSecret(keys, secret), open: (sealed) => openSecret(keys, sealed) };
}
