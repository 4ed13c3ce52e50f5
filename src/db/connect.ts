import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';
import pg from 'pg';
import type { DatabaseConfig, DatabaseTimeouts } from '../config.js';
import type { Database } from './database.js';
import { isStalePreparedPlan, isStorageFull } from './errors.js';
import type { StorageHealth } from './storage-health.js';
import { ROLLBACK_TO, SAVEPOINT } from './transaction.js';
import { CHANGE_TABLES } from './migrations/0031-change-notifications.js';

export type Dialect = DatabaseConfig['dialect'];

export interface DbHandle {
  db: Kysely<Database>;
  dialect: Dialect;
  /** PostgreSQL: the pool's connections right now (for metrics); SQLite has no pool. */
  poolStats: (() => PoolStats) | null;
  /** Closes the pool or file handle; safe to call once. */
  destroy(): Promise<void>;
}

export interface PoolStats {
  /** Open connections, idle or checked out. */
  total: number;
  idle: number;
  /** Requests waiting for a connection. */
  waiting: number;
  max: number;
}

/** The defaults `loadConfig` applies; the CLI and tests that build no config get the same. */
export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = { connectMs: 5_000, statementMs: 15_000, lockMs: 15_000, idleInTransactionMs: 15_000, idleMs: 30_000, busyMs: 5_000 };

/**
 * The client gives a statement this much longer than the server's statement_timeout: a live
 * server cancels it first (a clean error, the connection kept); a server that stopped
 * answering is caught by the client's own timer.
 */
const QUERY_TIMEOUT_GRACE_MS = 2_000;

/**
 * Opens the configured database: `createDb({ dialect: 'sqlite', filename: 'data/termin.db' })`.
 * `onConnectionError` hears about every PostgreSQL connection that dies, idle or checked out;
 * `storage` (SQLite) hears which writes found room on the disk and which did not.
 */
export function createDb(
  config: DatabaseConfig,
  onConnectionError: (error: Error) => void = () => undefined,
  timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS,
  storage: StorageHealth | null = null,
): DbHandle {
  if (config.dialect === 'postgres') {
    let pool: pg.Pool | undefined;
    const db = openPostgres(config.url, config.poolSize, timeouts, onConnectionError, (created) => (pool = created), config.preparedStatements ?? true);
    const poolStats = () => ({ total: pool?.totalCount ?? 0, idle: pool?.idleCount ?? 0, waiting: pool?.waitingCount ?? 0, max: config.poolSize });
    return { db, dialect: config.dialect, poolStats, destroy: () => db.destroy() };
  }
  const db = openSqlite(config.filename, timeouts.busyMs, config.synchronous ?? 'full', storage);
  return { db, dialect: config.dialect, poolStats: null, destroy: () => db.destroy() };
}

function openPostgres(
  url: string,
  poolSize: number,
  timeouts: DatabaseTimeouts,
  onConnectionError: (error: Error) => void,
  onPool: (pool: pg.Pool) => void = () => undefined,
  preparedStatements = true,
): Kysely<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // Also bounds the wait for a free pooled connection: a database that accepts TCP and never
    // answers, or a pool stuck behind such connections, fails the request instead of hanging it.
    connectionTimeoutMillis: timeouts.connectMs,
    idleTimeoutMillis: timeouts.idleMs,
    // No statement_timeout here: pg would send it as a startup parameter, which PgBouncer
    // refuses ("unsupported startup parameter"); applyTimeouts sets it per transaction instead.
    query_timeout: timeouts.statementMs + QUERY_TIMEOUT_GRACE_MS,
    // Dead peers (a failover without a RST) are noticed by TCP instead of never.
    keepAlive: true,
    // int8 columns hold epoch milliseconds and counts: well inside Number's safe range.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === pg.types.builtins.INT8 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // An idle connection can die (server restart, failover); without a listener pg's error
  // event would crash the process. The pool replaces the connection on the next checkout.
  // (Reported through the per-client listener below, which hears the same error.)
  pool.on('error', () => undefined);
  // pg-pool listens for errors only while a client is idle: one that dies while checked out
  // (pg_terminate_backend mid-transaction) emits 'error' with no listener, which kills the
  // process. Every client gets a listener of its own for its whole life; the request using
  // it fails (503), and the pool drops the broken client when it is released.
  pool.on('connect', (client) => {
    client.on('error', onConnectionError);
    applyTimeouts(client, timeouts);
    guardQueryTimeout(client);
    if (preparedStatements) prepareByText(client);
    countWrites(client);
  });
  onPool(pool);
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

const BEGINS_TRANSACTION = /^\s*(begin|start\s+transaction)\b[^;]*;?\s*$/i;

/**
 * The server-side timeouts, in a way that survives a pooler in transaction mode (PgBouncer
 * with its default settings), where a session setting would apply to whichever client gets
 * the server connection next and a startup parameter is refused outright:
 * - a transaction sets them with `SET LOCAL`, sent with its BEGIN as one simple query (one
 *   round trip, as BEGIN alone; the three SETs cost the server microseconds);
 * - a statement outside a transaction is its own transaction, with nowhere to put a SET
 *   LOCAL, so it gets a deadline here: still running after statementMs, it is cancelled with
 *   a cancel request, which PostgreSQL and PgBouncer both honour (the same SQLSTATE 57014 as
 *   statement_timeout). Its cost is a timer per statement; the cancel's own connection is
 *   opened only when one fires.
 * lock_timeout makes a statement waiting for a row lock give up (55P03, answered 503) sooner
 * than statement_timeout; idle_in_transaction_session_timeout ends a transaction left open by
 * a client that stopped (a hung process), so its locks do not outlive it.
 */
function applyTimeouts(client: pg.PoolClient, timeouts: DatabaseTimeouts): void {
  const setLocal =
    `; set local statement_timeout = ${Math.trunc(timeouts.statementMs)}` +
    `; set local lock_timeout = ${Math.trunc(timeouts.lockMs)}` +
    `; set local idle_in_transaction_session_timeout = ${Math.trunc(timeouts.idleInTransactionMs)}`;
  let inTransaction = false;
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: unknown } | null)?.text;
    if (typeof text !== 'string') return query(...args);
    if (BEGINS_TRANSACTION.test(text) && args.length <= 2 && (args[1] === undefined || (Array.isArray(args[1]) && args[1].length === 0))) {
      inTransaction = true;
      const result = query(text.replace(/;?\s*$/, setLocal));
      if (result instanceof Promise) result.catch(() => (inTransaction = false));
      return result;
    }
    if (ENDS_TRANSACTION.test(text)) {
      inTransaction = false;
      return query(...args);
    }
    if (inTransaction) return query(...args);
    const result = query(...args);
    if (!(result instanceof Promise)) return result;
    let cancelling = false;
    const deadline = setTimeout(() => {
      cancelling = true;
      cancelRunningStatement(client);
    }, timeouts.statementMs);
    const settled = (error?: unknown) => {
      clearTimeout(deadline);
      // It ended otherwise than by the cancel while the cancel was on its way, which could then
      // land on this connection's next statement: the connection is not used again.
      if (cancelling && (error as { code?: unknown } | undefined)?.code !== '57014') destroySocket(client);
    };
    result.then(() => settled(), settled);
    return result;
  };
}

/**
 * Asks the server to cancel what `client` is running: PostgreSQL's cancel request, on a
 * connection of its own (the protocol's way; it needs no authentication and the server
 * closes it once done). A failure to send it leaves the client-side query_timeout to end the wait.
 */
function cancelRunningStatement(client: pg.PoolClient): void {
  const { host, port, processID, secretKey } = client as unknown as { host: string; port: number; processID: number | null; secretKey: number | null };
  if (processID === null || secretKey === null) return;
  const request = Buffer.alloc(16);
  request.writeInt32BE(16, 0);
  request.writeInt32BE(80877102, 4);
  request.writeInt32BE(processID, 8);
  request.writeInt32BE(secretKey, 12);
  const socket = host.startsWith('/') ? net.connect(path.join(host, `.s.PGSQL.${port}`)) : net.connect(port, host);
  socket.on('error', () => undefined);
  socket.setTimeout(5_000, () => socket.destroy());
  // Written, then left for the peer to close: PgBouncer drops a cancel whose sender hung up before it passed it on.
  socket.on('connect', () => socket.write(request));
  socket.on('end', () => socket.destroy());
}

/**
 * After pg's client-side query_timeout the statement may still be running (or the server gone),
 * and the connection would carry it back into the pool to delay whoever gets it next. Closing
 * the socket makes the client unqueryable, so the pool discards it on release.
 */
function guardQueryTimeout(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const result = query(...args);
    if (result instanceof Promise) {
      result.catch((error: unknown) => {
        if ((error as Error | null)?.message === 'Query read timeout') destroySocket(client);
      });
    }
    return result;
  };
}

/** Closes a pg client's socket at once, without the goodbye a hung or broken server would never answer. */
export function destroySocket(client: pg.ClientBase): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

/**
 * Counts this process's completed writes that may change what the month view's reads
 * remember on PostgreSQL (fast-reads.ts drops its answers when the count moves, so this
 * process's own commits show at once, before the change notice PostgreSQL sends every
 * instance): a statement that names one of the watched tables (migration 0031's), once it
 * has answered, and the COMMIT or ROLLBACK that ends a transaction which ran one. Writes to
 * other tables leave the answers in place: the outbox worker claims jobs of each kind every
 * second, and counting those would drop them several times a second on an idle instance.
 * A watched table changed only through a cascade (a deleted team's memberships) is heard
 * of through its notice, milliseconds later.
 */
export const postgresWrites = { count: 0 };

const READ_ONLY = /^\s*select\b/i;
const WATCHED = new RegExp(`\\b(${CHANGE_TABLES.join('|')})\\b`);
const ENDS_TRANSACTION = /^\s*(commit|rollback|end)\s*;?\s*$/i;

function countWrites(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const counted = () => {
    postgresWrites.count += 1;
  };
  // This connection's open transaction has written to a watched table.
  let dirty = false;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const result = query(...args);
    if (!(result instanceof Promise)) return result;
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: unknown } | null)?.text;
    // Failed or not, a statement may have changed something (a COMMIT that errs may still have committed).
    if (typeof text !== 'string') result.then(counted, counted);
    else if (READ_ONLY.test(text)) return result;
    else if (ENDS_TRANSACTION.test(text)) {
      if (dirty) result.then(counted, counted);
      dirty = false;
    } else if (WATCHED.test(text)) {
      dirty = true;
      result.then(counted, counted);
    }
    return result;
  };
}

/** Named statements per connection; the rest (rare shapes, long IN lists) stay unnamed. */
const PREPARED_PER_CONNECTION = 200;

/**
 * PostgreSQL plans an unnamed statement on every run, and for a booking's joins planning
 * cost more than running: the hosts query took ~600 µs unnamed and ~200 µs named on this
 * machine. Kysely sends each query as text and parameters, so here each distinct text gets a
 * name on first use and is parsed and planned once per connection (PostgreSQL then settles
 * on a generic plan). Statements without parameters (BEGIN, COMMIT) are left alone.
 *
 * A prepared `select *` fails with "cached plan must not change result type" once a
 * migration changes its table under a running instance. The connection then forgets its
 * names and prepares afresh under new ones (names are never reused, so the stale ones
 * cannot collide), and the error counts as a retryable conflict (isStalePreparedPlan).
 */
function prepareByText(client: pg.PoolClient): void {
  let names = new Map<string, string>();
  let issued = 0;
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const [text, values] = args;
    if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0) return query(...args);
    let name = names.get(text);
    if (name === undefined && names.size < PREPARED_PER_CONNECTION) {
      issued += 1;
      name = `termin_${issued}`;
      names.set(text, name);
    }
    if (name === undefined) return query(...args);
    const result = query({ name, text, values }, ...args.slice(2));
    if (result instanceof Promise) {
      result.catch((error: unknown) => {
        if (isStalePreparedPlan(error)) names = new Map();
      });
    }
    return result;
  };
}

function openSqlite(filename: string, busyTimeoutMs: number, synchronous: 'full' | 'normal', storage: StorageHealth | null): Kysely<Database> {
  if (filename !== ':memory:') fs.mkdirSync(path.dirname(filename), { recursive: true });
  let database: SqliteDatabase.Database | undefined;
  try {
    database = new SqliteDatabase(filename);
    database.pragma('journal_mode = WAL');
    // FULL: a commit is on disk before anyone is told (one sync per group commit, see
    // transaction.ts); NORMAL, the operator's choice, leaves the sync to checkpoints.
    database.pragma(`synchronous = ${synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
    database.pragma('foreign_keys = ON');
    // Another process (the operator CLI) may hold the write lock briefly; wait rather than fail.
    database.pragma(`busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
  } catch (error) {
    database?.close();
    throw explainOpenFailure(filename, error);
  }
  return new Kysely<Database>({ dialect: new ImmediateSqliteDialect(database, storage) });
}

/** Below this much room the disk is the likely reason a database cannot be opened. */
const LOW_DISK_BYTES = 1024 * 1024;

/**
 * SQLite opens a WAL database by sizing its shared-memory file (32 KiB), so on a disk with no
 * room left (after a clean stop removed that file) the open itself fails, as a bare "disk I/O
 * error". Said as what it is, with the room left, the operator knows what to do; an open that
 * fails for another reason keeps its own error.
 */
function explainOpenFailure(filename: string, error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (filename === ':memory:' || typeof code !== 'string' || !/^SQLITE_(IOERR|FULL|CANTOPEN)/.test(code)) return error;
  let free: number;
  try {
    const stats = fs.statfsSync(path.dirname(filename));
    free = stats.bavail * stats.bsize;
  } catch {
    return error;
  }
  if (free >= LOW_DISK_BYTES) return error;
  return new Error(
    `The SQLite database ${filename} cannot be opened: ${(error as Error).message} (${code}), and its disk has ${free} bytes free. Free some space on it, then start again.`,
    { cause: error },
  );
}

/** Statements kept prepared, by SQL text; Kysely's driver would prepare every query anew. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Counts the writing statements (COMMIT among them) this process has run on SQLite. The
 * read connection of fast-reads.ts keeps one snapshot while this count stands still, and
 * takes a new one once it moves: a read never misses a commit this process has made.
 */
export const sqliteWrites = { count: 0 };

/** A statement that needs nothing but a working connection: what readiness asks of the database. */
export async function pingDatabase(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}

/**
 * Kysely's SQLite driver prepares each statement on every run, and preparing cost more than
 * running for most of a booking's statements (a CPU profile of bench/bookings.ts: 18% of the
 * server's time in `prepare`). The same query shape compiles to the same SQL text, so the
 * statements are cached by it, least recently used dropped first. A statement still being
 * iterated (a streamed query) is busy and cannot run again: a fresh one is prepared instead.
 */
function cachingStatements(database: SqliteDatabase.Database): SqliteDialectConfig['database'] {
  const cache = new Map<string, SqliteDatabase.Statement>();
  const preparedFor = (sql: string): SqliteDatabase.Statement => {
    const cached = cache.get(sql);
    if (cached && !cached.busy) {
      // Re-inserted: a Map iterates in insertion order, so the first key is the least recent.
      cache.delete(sql);
      cache.set(sql, cached);
      return cached;
    }
    const statement = database.prepare(sql);
    if (cached) return statement;
    cache.set(sql, statement);
    if (cache.size > STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    return statement;
  };
  return {
    close: () => database.close(),
    prepare(sql: string) {
      const statement = preparedFor(sql);
      // Counted before it runs: Kysely's driver runs it right after, in the same synchronous
      // step, so no read can come between the count and the write (nor its commit).
      if (!statement.reader) sqliteWrites.count += 1;
      return statement;
    },
  };
}

/**
 * Kysely starts SQLite transactions with a deferred BEGIN, which takes the write lock only
 * at the first write: two processes that both read first then fail with SQLITE_BUSY
 * instead of waiting. BEGIN IMMEDIATE takes the lock up front, so every read-check-write
 * use case (seat limit, booking) runs serialised and waits on busy_timeout.
 *
 * A COMMIT that finds no room on the disk (SQLITE_FULL, or an I/O error) makes SQLite roll
 * the whole transaction back itself. Kysely then sends its own ROLLBACK, whose "cannot
 * rollback - no transaction is active" would replace the real error (a 500 and a misleading
 * log line instead of a 503 naming the full disk), so a ROLLBACK is sent only when a
 * transaction is still open. And every write refused for lack of room, or stored after one
 * was, is told to `storage` (see StorageHealth).
 */
class ImmediateSqliteDialect extends SqliteDialect {
  constructor(
    private readonly database: SqliteDatabase.Database,
    private readonly storage: StorageHealth | null,
  ) {
    super({ database: cachingStatements(database) });
  }

  override createDriver(): Driver {
    const driver = super.createDriver();
    const { database, storage } = this;
    const begin = CompiledQuery.raw('begin immediate');
    const commit = CompiledQuery.raw('commit');
    const rollback = CompiledQuery.raw('rollback');
    // Rows changed by this connection so far, read only while writes are being refused: a
    // COMMIT after which it has grown stored something (a no-op commit proves no room).
    const totalChanges = database.prepare<[], number>('select total_changes()').pluck();
    let changesAtBegin: number | null = null;
    // The transactions sharing this one's COMMIT (group commit, transaction.ts), each in a
    // savepoint: a refused COMMIT refuses each of their writes.
    let units = 0;
    const observed = new WeakSet<DatabaseConnection>();
    const observe = (connection: DatabaseConnection): DatabaseConnection => {
      if (storage === null || observed.has(connection)) return connection;
      observed.add(connection);
      const executeQuery = connection.executeQuery.bind(connection);
      connection.executeQuery = async <R>(query: CompiledQuery) => {
        try {
          const result = await executeQuery<R>(query);
          if (query === SAVEPOINT) units += 1;
          else if (query === ROLLBACK_TO) units -= 1;
          return result;
        } catch (error) {
          if (isStorageFull(error)) storage.noteRefused(query === commit ? Math.max(1, units) : 1);
          throw error;
        }
      };
      return connection;
    };
    const overrides: Partial<Driver> = {
      acquireConnection: async () => observe(await driver.acquireConnection()),
      beginTransaction: async (connection) => {
        await connection.executeQuery(begin);
        units = 0;
        changesAtBegin = storage?.outage ? totalChanges.get()! : null;
      },
      commitTransaction: async (connection) => {
        await connection.executeQuery(commit);
        if (changesAtBegin !== null && totalChanges.get()! > changesAtBegin) storage?.noteStored();
      },
      rollbackTransaction: async (connection) => {
        if (database.inTransaction) await connection.executeQuery(rollback);
      },
    };
    return new Proxy(driver, {
      get(target, property, receiver) {
        if (Object.hasOwn(overrides, property)) return overrides[property as keyof Driver];
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }
}
