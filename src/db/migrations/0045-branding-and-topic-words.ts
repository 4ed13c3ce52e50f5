import type { Kysely } from 'kysely';

/**
 * The business's own look and the topic's own words (issue 42).
 *
 * `account_brandings`: one row per account that set any branding. Its own table, not columns
 * of `accounts`: the logo (up to 512 kB, stored base64 so the column is text on both
 * dialects) must not ride along on every hot read of the account (`selectAll`).
 * `logo_hash` is the logo's SHA-256: the served URL's version and its ETag.
 *
 * `meeting_topics.confirmation_message` (plain text shown after booking) and
 * `meeting_topics.translations` (JSON `{ "<lang>": { name, description, form, confirmationMessage } }`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('account_brandings')
    .addColumn('account_id', 'varchar(36)', (col) => col.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('business_name', 'varchar(200)')
    .addColumn('accent_color', 'varchar(7)')
    .addColumn('logo_url', 'text')
    .addColumn('logo_type', 'varchar(32)')
    .addColumn('logo_base64', 'text')
    .addColumn('logo_hash', 'varchar(64)')
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .alterTable('meeting_topics')
    .addColumn('confirmation_message', 'text', (col) => col.notNull().defaultTo(''))
    .execute();
  await db.schema
    .alterTable('meeting_topics')
    .addColumn('translations', 'text', (col) => col.notNull().defaultTo('{}'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('meeting_topics').dropColumn('translations').execute();
  await db.schema.alterTable('meeting_topics').dropColumn('confirmation_message').execute();
  await db.schema.dropTable('account_brandings').execute();
}
