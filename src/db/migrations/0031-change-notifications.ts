import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * PostgreSQL tells every instance when the data behind the month view's remembered reads
 * changes (src/db/change-feed.ts): a statement-level trigger on each table those reads
 * read calls `pg_notify`, which PostgreSQL delivers to the listeners when the writing
 * transaction commits (and never if it rolls back), one notice per transaction. Writes from
 * anywhere (another instance, the operator CLI, psql) are heard alike.
 *
 * SQLite needs nothing: one file, and its `data_version` already moves with every commit.
 * A remembered read over another table must add that table here (and to CHANGE_TABLES).
 */
export const CHANGE_TABLES = ['users', 'meeting_topics', 'meeting_topic_hosts', 'memberships', 'schedules', 'connections'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`
    create or replace function termin_notify_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('termin_changes', '');
      return null;
    end
    $$`.execute(db);
  for (const table of CHANGE_TABLES) {
    await sql`create trigger termin_changes after insert or update or delete or truncate on ${sql.table(table)} for each statement execute function termin_notify_change()`.execute(
      db,
    );
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const table of CHANGE_TABLES) await sql`drop trigger if exists termin_changes on ${sql.table(table)}`.execute(db);
  await sql`drop function if exists termin_notify_change()`.execute(db);
}
