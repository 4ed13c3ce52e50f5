/** True for a unique-constraint violation on either dialect (SQLite or PostgreSQL 23505). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * PostgreSQL's refusal to run a prepared statement whose result columns a schema change
 * altered (see prepareByText in connect.ts); the connection forgets its names, so a retry prepares anew.
 */
export function isStalePreparedPlan(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === '0A000' && typeof message === 'string' && message.includes('cached plan must not change result type');
}

/** Errors after which re-running the whole transaction is the right answer. */
export function isRetryableConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return isUniqueViolation(error) || code === '40001' || code === '40P01' || code === 'SQLITE_BUSY' || isStalePreparedPlan(error);
}

// Connection-level failures: the database is down, restarting, unreachable, overloaded, too
// slow, refusing connections or refusing these credentials. Retrying later may well succeed
// (or succeed once the operator mends it), so the caller gets 503 with Retry-After, not 500.
const UNAVAILABLE_SQLSTATE_CLASSES = ['08', '53', '57'];
/**
 * 55000: "database … is not currently accepting connections" (ALLOW_CONNECTIONS false, a
 * database being dropped or restored); 3D000: the database does not exist; 28000 / 28P01:
 * the role or its password is refused (a rotated credential); 55P03: a lock not had within
 * lock_timeout (the rows are busy: later they may not be).
 */
const UNAVAILABLE_SQLSTATES = new Set(['55000', '55P03', '3D000', '28000', '28P01']);
/** A TLS handshake to the database that fails (an expired or unknown certificate, a name mismatch). */
const UNAVAILABLE_TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);
const UNAVAILABLE_SYSTEM_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);
const UNAVAILABLE_SQLITE_CODES = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_BUSY_TIMEOUT', 'SQLITE_BUSY_SNAPSHOT']);
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
  'The server does not support SSL connections',
  'Connection terminated due to connection timeout',
];

/**
 * True when an error says the database could not be reached or did not answer in time,
 * rather than that the query or the data was wrong: PostgreSQL SQLSTATE classes 08
 * (connection exception), 53 (insufficient resources) and 57 (operator intervention:
 * `pg_terminate_backend`, shutdown, statement_timeout), socket errors, pg's own connection
 * and read timeouts, and SQLite's busy/locked after busy_timeout.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const { code, message } of causeChain(error)) {
    if (typeof code === 'string') {
      if (/^[0-9A-Z]{5}$/.test(code) && (UNAVAILABLE_SQLSTATE_CLASSES.includes(code.slice(0, 2)) || UNAVAILABLE_SQLSTATES.has(code))) return true;
      if (UNAVAILABLE_TLS_CODES.has(code)) return true;
      if (UNAVAILABLE_SYSTEM_CODES.has(code) || UNAVAILABLE_SQLITE_CODES.has(code)) return true;
    }
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((known) => message.startsWith(known))) return true;
  }
  return false;
}

/**
 * SQLite's "database or disk is full" (a write found no room: the disk, or the WAL that
 * cannot grow), the write errors a quota (EDQUOT) or a WAL index that cannot grow give
 * instead, and PostgreSQL's 53100 disk_full ("could not extend file").
 */
const STORAGE_FULL_CODES = new Set(['SQLITE_FULL', 'SQLITE_IOERR_WRITE', 'SQLITE_IOERR_SHMSIZE', '53100']);

/**
 * True when the database refused a write for lack of room. Reads still work, and writes do
 * again once there is room: an outage of writing, answered 503 like the others.
 */
export function isStorageFull(error: unknown): boolean {
  for (const { code } of causeChain(error)) if (typeof code === 'string' && STORAGE_FULL_CODES.has(code)) return true;
  return false;
}

/** The error and what caused it, at most five deep (a driver wraps the socket's error). */
function* causeChain(error: unknown): Generator<{ code?: unknown; message?: unknown }> {
  for (let current = error, depth = 0; current !== null && typeof current === 'object' && depth < 5; depth += 1) {
    yield current as { code?: unknown; message?: unknown };
    current = (current as { cause?: unknown }).cause;
  }
}
