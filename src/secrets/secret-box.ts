import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Credentials at rest: AES-256-GCM with a fresh 96-bit nonce per value, so the same secret
 * stored twice gives two different texts, and any change to a stored text (or the wrong
 * key) fails authentication instead of decrypting to garbage.
 *
 * `sealSecret(key, 'sk_test_123')` → `'v1.<nonce>.<tag>.<ciphertext>'` (base64url parts);
 * `openSecret(key, sealed)` → `'sk_test_123'`.
 */
const VERSION = 'v1';

export function sealSecret(key: Buffer, plaintext: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, nonce.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
}

export class SecretUnreadableError extends Error {
  constructor() {
    // Deliberately says nothing of the value: it must never reach a log.
    super('A stored secret could not be decrypted: TERMIN_SECRET_KEY (or data/secret.key) is not the key it was stored with');
  }
}

export function openSecret(key: Buffer, sealed: string): string {
  const [version, nonce, tag, ciphertext] = sealed.split('.');
  if (version !== VERSION || nonce === undefined || tag === undefined || ciphertext === undefined) throw new SecretUnreadableError();
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretUnreadableError();
  }
}

/** Seals every value of a record: `{ apiKey: '…' }` → `{ apiKey: 'v1.…' }`. */
export function sealRecord(key: Buffer, values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, sealSecret(key, value)]));
}

export function openRecord(key: Buffer, sealed: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(sealed).map(([name, value]) => [name, openSecret(key, value)]));
}

/** `seal`/`open` bound to one key: what an adapter is handed instead of the key itself. */
export function secretBoxOf(key: Buffer): { seal(secret: string): string; open(sealed: string): string } {
  return { seal: (secret) => sealSecret(key, secret), open: (sealed) => openSecret(key, sealed) };
}
