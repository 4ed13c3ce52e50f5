import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, type DatabaseConnection, type Driver } from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import type { Database } from './database.js';

export type Dialect = DatabaseConfig['dialect'];

export interface DbHandle {
  db: Kysely<Database>;
  dialect: Dialect;
  /** Closes the pool or file handle; safe to call once. */
  destroy(): Promise<void>;
}

/** Opens the configured database: `createDb({ dialect: 'sqlite', filename: 'data/termin.db' })`. */
export function createDb(config: DatabaseConfig, onIdleError: (error: Error) => void = () => undefined): DbHandle {
  const db = config.dialect === 'postgres' ? openPostgres(config.url, config.poolSize, onIdleError) : openSqlite(config.filename);
  return { db, dialect: config.dialect, destroy: () => db.destroy() };
}

function openPostgres(url: string, poolSize: number, onIdleError: (error: Error) => void): Kysely<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // int8 columns hold epoch milliseconds and counts: well inside Number's safe range.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === pg.types.builtins.INT8 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // An idle connection can die (server restart, failover); without a listener pg's error
  // event would crash the process. The pool replaces the connection on the next checkout.
  pool.on('error', onIdleError);
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

function openSqlite(filename: string): Kysely<Database> {
  if (filename !== ':memory:') fs.mkdirSync(path.dirname(filename), { recursive: true });
  const database = new SqliteDatabase(filename);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  // Another process (the operator CLI) may hold the write lock briefly; wait rather than fail.
  database.pragma('busy_timeout = 5000');
  return new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database }) });
}

/**
 * Kysely starts SQLite transactions with a deferred BEGIN, which takes the write lock only
 * at the first write: two processes that both read first then fail with SQLITE_BUSY
 * instead of waiting. BEGIN IMMEDIATE takes the lock up front, so every read-check-write
 * use case (seat limit, booking) runs serialised and waits on busy_timeout.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    const begin = CompiledQuery.raw('begin immediate');
    return new Proxy(driver, {
      get(target, property, receiver) {
        if (property === 'beginTransaction') {
          return async (connection: DatabaseConnection) => {
            await connection.executeQuery(begin);
          };
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }
}
