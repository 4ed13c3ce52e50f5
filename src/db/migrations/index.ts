import type { Migration } from 'kysely';
import * as foundation from './0001-foundation.js';

/** Every migration, in order. Listed explicitly so the build needs no directory scan. */
export const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
};
