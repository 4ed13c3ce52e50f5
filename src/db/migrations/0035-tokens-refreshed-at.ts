import type { Kysely } from 'kysely';

/**
 * Refresh tokens lapse when unused (Zoom's, Webex's and Microsoft's after 90 days, Google's
 * after six months): a host who books no meeting for three months would find the connection
 * refused. `connections.tokens_refreshed_at` is when the tokens were last stored (connected or
 * refreshed), so the background refreshes those idle for a month; connected ones from before
 * start from their last change (`updated_at`, which only a store of tokens moves while connected).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('connections').addColumn('tokens_refreshed_at', 'bigint').execute();
  await db
    .updateTable('connections')
    .set((eb) => ({ tokens_refreshed_at: eb.ref('updated_at') }))
    .where('connected_at', 'is not', null)
    .execute();
  await db.schema.createIndex('connections_tokens_refreshed_idx').on('connections').columns(['status', 'tokens_refreshed_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('connections_tokens_refreshed_idx').execute();
  await db.schema.alterTable('connections').dropColumn('tokens_refreshed_at').execute();
}
