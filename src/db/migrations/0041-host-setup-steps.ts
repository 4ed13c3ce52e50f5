import { type Kysely, sql } from 'kysely';

/**
 * `host_setup_steps`: the first-run steps a host has done that leave no other trace, one row
 * per host and step (`hours`: saved their weekly hours, even unchanged from the default;
 * `link-shared`: said they shared their booking link, or copied it from the checklist). The
 * web app's checklist on Upcoming reads them beside what it can see (a topic, a connection).
 * Hosts who were already there before this migration are past their first run: both steps
 * count as done for them, so an upgrade shows them no checklist they never needed.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('host_setup_steps')
    .addColumn('user_id', 'varchar(36)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('step', 'varchar(32)', (col) => col.notNull())
    .addColumn('done_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('host_setup_steps_pk', ['user_id', 'step'])
    .execute();
  for (const step of ['hours', 'link-shared']) {
    await db
      .insertInto('host_setup_steps')
      .columns(['user_id', 'step', 'done_at'])
      .expression(db.selectFrom('users').select(['id', sql.lit(step).as('step'), 'created_at']))
      .execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('host_setup_steps').execute();
}
