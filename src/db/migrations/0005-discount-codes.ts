import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('discount_codes')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('account_id', 'varchar(36)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    // Upper-cased: codes match without regard to case.
    .addColumn('code', 'varchar(40)', (col) => col.notNull())
    .addColumn('percent_off', 'integer')
    .addColumn('amount_off', 'integer')
    .addColumn('amount_currency', 'varchar(3)')
    .addColumn('expires_at', 'bigint')
    .addColumn('usage_limit', 'integer')
    .addColumn('times_used', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('discount_codes_account_code_uq').on('discount_codes').columns(['account_id', 'code']).unique().execute();
  // The discount a paid booking used, so the payment can show it.
  await db.schema.alterTable('payments').addColumn('discount_code_id', 'varchar(36)').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payments').dropColumn('discount_code_id').execute();
  await db.schema.dropTable('discount_codes').execute();
}
