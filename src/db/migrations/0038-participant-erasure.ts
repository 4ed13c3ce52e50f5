import { sql, type Kysely } from 'kysely';

/**
 * A participant may ask to be forgotten (issue 39): `meetings.erased_at` says when the
 * meeting's personal data was erased (by `POST /participants/erase` or the retention), so
 * erasing again changes nothing and retention skips what is done. `participant_email` stays
 * NOT NULL (SQLite cannot drop the constraint without rebuilding the table): an erased
 * meeting keeps `''` there, which the API shows as `null`.
 *
 * Export and erasure look a participant up by e-mail without regard to case: the index on
 * `lower(participant_email)` serves that (both dialects index expressions). Retention looks
 * for meetings that ended long ago and are not erased yet: the index on `(ends_at, erased_at)`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('meetings').addColumn('erased_at', 'bigint').execute();
  await sql`create index meetings_participant_email_idx on meetings (account_id, lower(participant_email))`.execute(db);
  await db.schema.createIndex('meetings_retention_idx').on('meetings').columns(['account_id', 'erased_at', 'ends_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('meetings_retention_idx').execute();
  await db.schema.dropIndex('meetings_participant_email_idx').execute();
  await db.schema.alterTable('meetings').dropColumn('erased_at').execute();
}
