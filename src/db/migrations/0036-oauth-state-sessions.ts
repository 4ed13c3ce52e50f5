import type { Kysely } from 'kysely';

/**
 * `oauth_states.app_session_id`: the web app's session (`app_sessions.id`) a connection was
 * started from in `/app`, whose browser alone may finish it; null for one started through the
 * API, whose `authorizeUrl` the integrator hands to whichever browser it likes. No foreign
 * key: a session that ends (signed out, expired, deleted) must leave its authorizations
 * unfinishable, never turn them into unbound ones (`on delete set null` would).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('oauth_states').addColumn('app_session_id', 'varchar(36)').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('oauth_states').dropColumn('app_session_id').execute();
}
