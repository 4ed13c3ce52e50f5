import { describe, expect, it } from 'vitest';
import { generateApiKey, hashSecret, parseApiKey, verifySecret } from './api-key.js';

describe('API keys', () => {
  it('generates keys with a 256-bit secret that parse back and verify against the stored hash only', () => {
    const { apiKey, lookup, secretHash } = generateApiKey();
    const parsed = parseApiKey(apiKey);
    expect(parsed?.lookup).toBe(lookup);
    expect(Buffer.from(parsed!.secret, 'base64url')).toHaveLength(32);
    expect(secretHash).not.toContain(parsed!.secret);
    expect(verifySecret(parsed!.secret, secretHash)).toBe(true);
    expect(verifySecret(`${parsed!.secret.slice(0, -1)}A`, secretHash)).toBe(parsed!.secret.endsWith('A'));
  });

  it('never generates the same key twice', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateApiKey().apiKey));
    expect(keys.size).toBe(1000);
  });

  it.each([undefined, '', 'tmn_', 'Bearer tmn_abc', 'tmn_short_secret', `tmn_${'a'.repeat(16)}_${'b'.repeat(42)}`])('rejects malformed key %j', (raw) => {
    expect(parseApiKey(raw)).toBeNull();
  });

  it('hashes deterministically', () => {
    expect(hashSecret('abc')).toBe(hashSecret('abc'));
    expect(hashSecret('abc')).toHaveLength(64);
  });
});
