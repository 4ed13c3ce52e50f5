import type { Kysely } from 'kysely';

/**
 * Retention (issue 39): `accounts.participant_data_days`, how long the personal data of a
 * meeting is kept after it ended (null: until erased). The background applies it on one
 * instance at a time: `maintenance_leases` holds, per named task, who runs it and until when
 * (a lease, so an instance that dies lets go).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('participant_data_days', 'integer').execute();
  await db.schema
    .createTable('maintenance_leases')
    .addColumn('name', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('holder', 'varchar(64)')
    .addColumn('lease_until', 'bigint', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('maintenance_leases').execute();
  await db.schema.alterTable('accounts').dropColumn('participant_data_days').execute();
}
