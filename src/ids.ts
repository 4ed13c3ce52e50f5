import { randomBytes } from 'node:crypto';

/**
 * UUID v7: a millisecond timestamp followed by randomness. Time-ordered ids keep
 * B-tree inserts at the right edge of the index (PostgreSQL and SQLite alike), and they
 * sort by creation time, which cursor pagination uses.
 */
export function newId(now: number = Date.now()): string {
  const bytes = randomBytes(16);
  let ms = now;
  for (let i = 5; i >= 0; i -= 1) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
