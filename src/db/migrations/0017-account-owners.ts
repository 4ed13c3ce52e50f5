import { type Kysely, sql } from 'kysely';

/**
 * Each account names its owner (`owner_user_id`): the one user other admins cannot rename,
 * demote or remove, who alone hands ownership over. Existing accounts get the user created
 * first, the one `account create` made (the operator may hand it over with the CLI).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('owner_user_id', 'text').execute();
  await sql`update accounts set owner_user_id = (select users.id from users where users.account_id = accounts.id order by users.created_at, users.id limit 1)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').dropColumn('owner_user_id').execute();
}
