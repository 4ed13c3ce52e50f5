import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A key as its holder sees it: never the key itself, which is shown once when made. */
export interface ApiKeyRecord {
  uuid: string;
  accountUuid: string;
  userUuid: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

/**
 * API keys look like `tmn_<lookup>_<secret>`: the lookup part finds the row by an index,
 * the 256-bit secret part is only ever stored as its SHA-256 hash. A fast hash is enough
 * for a random secret of that size (nothing to brute-force), and it keeps the hot
 * authentication path cheap.
 */
export interface ParsedApiKey {
  lookup: string;
  secret: string;
}

const KEY_PATTERN = /^tmn_([A-Za-z0-9_-]{16})_([A-Za-z0-9_-]{43})$/;

/** `generateApiKey()` → `{ apiKey: 'tmn_…_…', lookup, secretHash }`; show `apiKey` once. */
export function generateApiKey(): { apiKey: string; lookup: string; secretHash: string } {
  // base64url of 12 bytes is exactly 16 characters; of 32 bytes, 43.
  const lookup = randomBytes(12).toString('base64url');
  const secret = randomBytes(32).toString('base64url');
  return { apiKey: `tmn_${lookup}_${secret}`, lookup, secretHash: hashSecret(secret) };
}

/** `parseApiKey('tmn_…_…')` → its parts, or null for anything malformed. */
export function parseApiKey(raw: string | undefined): ParsedApiKey | null {
  if (raw === undefined) return null;
  const match = KEY_PATTERN.exec(raw.trim());
  if (!match) return null;
  return { lookup: match[1]!, secret: match[2]! };
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Compares in constant time so response timing does not leak how much of a hash matched. */
export function verifySecret(secret: string, storedHash: string): boolean {
  const actual = Buffer.from(hashSecret(secret), 'hex');
  const expected = Buffer.from(storedHash, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
