import type { Kysely } from 'kysely';

/**
 * The booking link as the business's own (issue 40, item 9):
 * - `users.language`: the member's chosen language for the e-mails termin sends them (new
 *   booking, approval request, cancellation, reminders, sign-in link); null: not chosen yet,
 *   which reads as English, as every host e-mail did before.
 * - `previous_usernames`: a username a user gave up by renaming themselves. Booking links
 *   with it keep working (301 to the current one), and nobody else may take it for a while
 *   (PREVIOUS_USERNAME_HOLD_MS), so an old link never lands on a stranger's page.
 * - `meeting_topics.slug`: an optional readable name for the topic's booking link
 *   (`/book/anna/intro-call`), unique among the topics of each of its hosts and its team
 *   (checked by the use case: the scope follows the hosts, which no index can express).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('language', 'varchar(8)').execute();
  await db.schema
    .createTable('previous_usernames')
    .addColumn('username', 'varchar(120)', (col) => col.primaryKey())
    .addColumn('user_id', 'varchar(36)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('retired_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('previous_usernames_user').on('previous_usernames').column('user_id').execute();
  await db.schema.alterTable('meeting_topics').addColumn('slug', 'varchar(60)').execute();
  await db.schema.createIndex('meeting_topics_slug').on('meeting_topics').columns(['account_id', 'slug']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('meeting_topics_slug').execute();
  await db.schema.alterTable('meeting_topics').dropColumn('slug').execute();
  await db.schema.dropTable('previous_usernames').execute();
  await db.schema.alterTable('users').dropColumn('language').execute();
}
