import type { Kysely } from 'kysely';

// Migrations take Kysely<any>: they must keep working after the Database type moves on.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('name', 'varchar(200)', (col) => col.notNull())
    .addColumn('default_timezone', 'varchar(64)', (col) => col.notNull())
    .addColumn('max_users', 'integer', (col) => col.notNull())
    .addColumn('places', 'text', (col) => col.notNull())
    .addColumn('gateways', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('lock_version', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('account_id', 'varchar(36)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('first_name', 'varchar(200)', (col) => col.notNull())
    .addColumn('last_name', 'varchar(200)', (col) => col.notNull())
    .addColumn('email', 'varchar(320)', (col) => col.notNull())
    .addColumn('email_normalized', 'varchar(320)', (col) => col.notNull())
    .addColumn('username', 'varchar(120)', (col) => col.notNull().unique())
    .addColumn('timezone', 'varchar(64)', (col) => col.notNull())
    .addColumn('availability', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('deactivated_at', 'bigint')
    .addColumn('lock_version', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  // One person per account: e-mails are compared case-insensitively within an account.
  await db.schema.createIndex('users_account_email_uq').on('users').columns(['account_id', 'email_normalized']).unique().execute();

  await db.schema
    .createTable('teams')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('account_id', 'varchar(36)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'varchar(200)', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('teams_account_idx').on('teams').column('account_id').execute();

  await db.schema
    .createTable('memberships')
    .addColumn('team_id', 'varchar(36)', (col) => col.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(36)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('is_admin', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['team_id', 'user_id'])
    .execute();
  await db.schema.createIndex('memberships_user_idx').on('memberships').column('user_id').execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('account_id', 'varchar(36)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(36)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'varchar(200)', (col) => col.notNull())
    .addColumn('lookup', 'varchar(64)', (col) => col.notNull().unique())
    .addColumn('secret_hash', 'varchar(128)', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('last_used_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_user_idx').on('api_keys').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['api_keys', 'memberships', 'teams', 'users', 'accounts']) {
    await db.schema.dropTable(table).execute();
  }
}
