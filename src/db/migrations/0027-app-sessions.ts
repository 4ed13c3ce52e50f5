import type { Kysely } from 'kysely';

/**
 * The host's web app (/app) signs people in by e-mail:
 * - `app_sign_in_links`: each e-mailed link, by the SHA-256 of its token (the token itself is
 *   only in the e-mail), single use (`used_at`), valid until `expires_at` (15 minutes). The
 *   rows also count how many links an address was sent lately (the per-address limit holds
 *   across instances).
 * - `app_sessions`: each signed-in browser, by the SHA-256 of its cookie, so a stolen
 *   database holds no usable session; in the database, so sessions survive a restart and
 *   any instance accepts them. `expires_at` slides forward with use; `revoked_at` is sign-out.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('app_sign_in_links')
    .addColumn('token_hash', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('user_id', 'varchar(36)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('app_sign_in_links_user_idx').on('app_sign_in_links').columns(['user_id', 'created_at']).execute();

  await db.schema
    .createTable('app_sessions')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('token_hash', 'varchar(64)', (col) => col.notNull().unique())
    .addColumn('user_id', 'varchar(36)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('last_seen_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('app_sessions_user_idx').on('app_sessions').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('app_sessions').execute();
  await db.schema.dropTable('app_sign_in_links').execute();
}
