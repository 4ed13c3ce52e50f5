import type { Kysely } from 'kysely';

/**
 * Indexes for the maintenance's pruning (issue 44): each rule deletes the oldest rows of a
 * table by one time column, a batch at a time, and without an index on it every batch
 * would read the whole table (a year of events, deliveries or audit entries). Outbox jobs
 * that failed for good are found by `outbox_due_idx` (status first), idempotency keys by
 * `idempotency_keys_created_idx`.
 */
const INDEXES = [
  { name: 'outbox_done_idx', table: 'outbox', columns: ['status', 'done_at'] },
  { name: 'events_occurred_idx', table: 'events', columns: ['occurred_at'] },
  { name: 'webhook_deliveries_created_idx', table: 'webhook_deliveries', columns: ['created_at'] },
  { name: 'audit_events_at_idx', table: 'audit_events', columns: ['at'] },
  { name: 'external_busy_ends_idx', table: 'external_busy', columns: ['ends_at'] },
  { name: 'app_sessions_expires_idx', table: 'app_sessions', columns: ['expires_at'] },
  { name: 'app_sign_in_links_expires_idx', table: 'app_sign_in_links', columns: ['expires_at'] },
  { name: 'oauth_states_expires_idx', table: 'oauth_states', columns: ['expires_at'] },
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const index of INDEXES)
    await db.schema
      .createIndex(index.name)
      .on(index.table)
      .columns([...index.columns])
      .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of INDEXES) await db.schema.dropIndex(index.name).execute();
}
