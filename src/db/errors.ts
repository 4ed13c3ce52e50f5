/** True for a unique-constraint violation on either dialect (SQLite or PostgreSQL 23505). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Errors after which re-running the whole transaction is the right answer. */
export function isRetryableConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return isUniqueViolation(error) || code === '40001' || code === '40P01' || code === 'SQLITE_BUSY';
}
