import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import type { DatabaseConfig } from '../config.js';
import { migrations } from '../db/migrations/index.js';

/**
 * `cli backup` and `cli restore`. SQLite: the online backup API (a consistent copy while
 * the server keeps writing: copying the file would miss what still sits in the WAL).
 * PostgreSQL: pg_dump when it is on PATH, otherwise the command to run.
 */

export class BackupError extends Error {}

export interface BackupSummary {
  file: string;
  bytes: number;
  accounts: number;
  meetings: number;
  migrations: string[];
}

/** Kysely's bookkeeping table: the applied migrations. */
const MIGRATION_TABLE = 'kysely_migration';

export async function backupSqlite(filename: string, to: string, force: boolean): Promise<BackupSummary> {
  if (!fs.existsSync(filename)) throw new BackupError(`There is no database at ${filename} to back up (check DATA_DIR or DATABASE_URL).`);
  const target = path.resolve(to);
  if (fs.existsSync(target) && !force) throw new BackupError(`--to: ${target} already exists; choose a new file or add --force to replace it.`);
  if (!fs.existsSync(path.dirname(target))) throw new BackupError(`--to: the folder ${path.dirname(target)} does not exist.`);
  // Into a temporary file first, renamed at the end: a backup cut short never looks complete.
  const partial = `${target}.partial-${process.pid}`;
  fs.rmSync(partial, { force: true });
  const source = new SqliteDatabase(filename, { readonly: true, fileMustExist: true });
  try {
    // All pages in one step, under one read transaction: a consistent snapshot even while a
    // server writes (stepping in small batches would restart on every write it sees).
    await source.backup(partial, { progress: () => 0x7fffffff });
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw error;
  } finally {
    source.close();
  }
  // One self-contained file to copy off the machine: no -wal/-shm beside it.
  const copy = new SqliteDatabase(partial, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
  const summary = inspectSqlite(partial);
  if (summary.problem) {
    fs.rmSync(partial, { force: true });
    throw new BackupError(`The copy failed its check (${summary.problem}); nothing was written to ${target}.`);
  }
  fs.renameSync(partial, target);
  return { file: target, bytes: fs.statSync(target).size, accounts: summary.accounts, meetings: summary.meetings, migrations: summary.migrations };
}

interface Inspection {
  problem: string | null;
  accounts: number;
  meetings: number;
  migrations: string[];
}

/** Is this a termin database this code can use? Integrity, tables, and migrations it knows. */
function inspectSqlite(file: string): Inspection {
  let db: SqliteDatabase.Database | undefined;
  try {
    db = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') return { problem: `integrity check: ${String(integrity)}`, accounts: 0, meetings: 0, migrations: [] };
    const tables = new Set((db.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map((row) => row.name));
    for (const table of [MIGRATION_TABLE, 'accounts', 'meetings']) {
      if (!tables.has(table)) return { problem: `no ${table} table: not a termin database`, accounts: 0, meetings: 0, migrations: [] };
    }
    const applied = (db.prepare(`select name from ${MIGRATION_TABLE} order by name`).all() as { name: string }[]).map((row) => row.name);
    const unknown = applied.filter((name) => !(name in migrations));
    if (unknown.length > 0) return { problem: `made by a newer termin (migrations ${unknown.join(', ')} are unknown to this one)`, accounts: 0, meetings: 0, migrations: applied };
    const count = (table: string) => (db!.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
    return { problem: null, accounts: count('accounts'), meetings: count('meetings'), migrations: applied };
  } catch (error) {
    return { problem: (error as Error).message, accounts: 0, meetings: 0, migrations: [] };
  } finally {
    db?.close();
  }
}

/** True when another connection (a running server, another CLI) has the database open. */
function isDatabaseInUse(filename: string): boolean {
  if (!fs.existsSync(filename)) return false;
  const db = new SqliteDatabase(filename, { timeout: 0, fileMustExist: true });
  try {
    // Every open WAL-mode connection holds a shared lock that an exclusive lock must wait for.
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('ROLLBACK');
    return false;
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_BUSY') return true;
    throw error;
  } finally {
    db.close();
  }
}

export interface RestoreSummary extends BackupSummary {
  /** The database as it was before the restore, kept beside it. */
  previous: string | null;
}

export async function restoreSqlite(filename: string, from: string, force: boolean): Promise<RestoreSummary> {
  const source = path.resolve(from);
  if (!fs.existsSync(source)) throw new BackupError(`--from: ${source} does not exist.`);
  const checked = inspectSqlite(source);
  if (checked.problem) throw new BackupError(`--from: ${source} cannot be restored: ${checked.problem}. The database was not changed.`);
  if (!force && isDatabaseInUse(filename)) {
    throw new BackupError(
      `${filename} is in use (a running server, or another command): stop the server first, then restore. ` +
        '--force restores into the open database anyway; restart the server afterwards, so no schedule it cached outlives the restore.',
    );
  }
  let previous: string | null = null;
  if (fs.existsSync(filename)) {
    previous = `${filename}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    const current = new SqliteDatabase(filename, { readonly: true, fileMustExist: true });
    try {
      await current.backup(previous, { progress: () => 0x7fffffff });
    } finally {
      current.close();
    }
  } else {
    fs.mkdirSync(path.dirname(filename), { recursive: true });
  }
  const backup = new SqliteDatabase(source, { readonly: true, fileMustExist: true });
  try {
    // The backup API writes the pages into the live file under SQLite's own locks (WAL included).
    await backup.backup(filename, { progress: () => 0x7fffffff });
  } finally {
    backup.close();
  }
  return { file: filename, bytes: fs.statSync(filename).size, accounts: checked.accounts, meetings: checked.meetings, migrations: checked.migrations, previous };
}

export interface PostgresBackupPlan {
  command: string[];
  /** Null: pg_dump is not on PATH, so the command was only printed. */
  ran: boolean;
  file: string;
  bytes: number | null;
}

/** Shown instead of the URL, so a password in DATABASE_URL never reaches the terminal or a log. */
const URL_PLACEHOLDER = '"$DATABASE_URL"';

export function backupPostgres(database: Extract<DatabaseConfig, { dialect: 'postgres' }>, to: string, force: boolean): PostgresBackupPlan {
  const target = path.resolve(to);
  if (fs.existsSync(target) && !force) throw new BackupError(`--to: ${target} already exists; choose a new file or add --force to replace it.`);
  const args = ['--format=custom', '--no-owner', `--file=${target}`];
  const shown = ['pg_dump', ...args, URL_PLACEHOLDER];
  if (!onPath('pg_dump')) return { command: shown, ran: false, file: target, bytes: null };
  const result = spawnSync('pg_dump', [...args, `--dbname=${database.url}`], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (result.status !== 0) throw new BackupError(`pg_dump failed: ${(result.stderr || String(result.error ?? '')).trim()}`);
  return { command: shown, ran: true, file: target, bytes: fs.statSync(target).size };
}

export function restorePostgresCommand(from: string): string[] {
  return ['pg_restore', '--clean', '--if-exists', '--no-owner', `--dbname=${URL_PLACEHOLDER}`, path.resolve(from)];
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir !== '' && fs.existsSync(path.join(dir, command)));
}
