import type { Kysely } from 'kysely';

/**
 * `calendars.busy_cut_at`: a calendar whose last sync found more busy spans than termin keeps
 * (MAX_SPANS_PER_CALENDAR, src/calendars/remote-calendar.ts) stores its earliest ones and
 * counts the rest of its window busy from this instant; null when every span was kept. Its
 * `status` is then `error` with `lastError` saying so, and /metrics counts such calendars
 * (`termin_calendars_busy_cut`), so an operator hears of it without reading each calendar.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('calendars').addColumn('busy_cut_at', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('calendars').dropColumn('busy_cut_at').execute();
}
