import type { Kysely } from 'kysely';

/**
 * Busy time read by where it ends (bench/year.ts, issue 44). A view asks for a host's spans
 * with `starts_at < to and ends_at > from`; the index on (host, starts_at, ends_at) could only
 * bound the start from above, so every read walked the host's whole past of synced busy time,
 * which grows by the day. Spans ending after `from` are the ones that overlap and the ones
 * ahead, which a calendar's booking window bounds: the read no longer grows with the past.
 * Nothing reads external_busy by (host, start) alone, so the new index replaces the old.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('external_busy_host_end_idx').on('external_busy').columns(['host_user_id', 'ends_at', 'starts_at']).execute();
  await db.schema.dropIndex('external_busy_host_idx').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('external_busy_host_idx').on('external_busy').columns(['host_user_id', 'starts_at', 'ends_at']).execute();
  await db.schema.dropIndex('external_busy_host_end_idx').execute();
}
