import type { Database, DbOrTrx } from '../database.js';

/**
 * Every column that holds data sealed with the secret key (src/secrets/secret-box.ts), for
 * `cli secrets reseal`. A column is one sealed text or a JSON record of them (the gateways'
 * and apps' secrets). `names` are the non-secret columns that say whose it is.
 * A sealed column added anywhere must be listed here, or a reseal leaves it on the old key.
 */
export const SEALED_TABLES = {
  account_gateways: { key: ['account_id', 'code'], sealed: { secrets: 'record' }, names: [] },
  account_integrations: { key: ['account_id', 'provider'], sealed: { secrets: 'record' }, names: [] },
  // Only an ICS calendar's URL is sealed (a CalDAV one is its collection's address, in clear).
  calendars: { key: ['id'], sealed: { url: 'ics-url', password_sealed: 'text' }, names: ['account_id', 'user_id', 'type'] },
  calendar_feeds: { key: ['user_id'], sealed: { token_sealed: 'text' }, names: [] },
  webhook_subscriptions: { key: ['id'], sealed: { secret_sealed: 'text', previous_secret_sealed: 'text' }, names: ['account_id'] },
  connections: { key: ['id'], sealed: { access_token_sealed: 'text', refresh_token_sealed: 'text' }, names: ['account_id', 'user_id', 'provider'] },
  oauth_states: { key: ['state_hash'], sealed: { code_verifier_sealed: 'text' }, names: ['connection_id'] },
} as const satisfies Record<string, { key: readonly string[]; sealed: Record<string, SealedKind>; names: readonly string[] }>;

/** One sealed text; a JSON record of sealed texts; a calendar's `url`, sealed only when its `type` is `ics`. */
export type SealedKind = 'text' | 'record' | 'ics-url';

export type SealedTable = keyof typeof SEALED_TABLES & keyof Database;

/** One row's sealed columns as stored (a record column as its JSON text), with what names it. */
export interface SealedRow {
  table: SealedTable;
  key: Record<string, string>;
  sealed: Record<string, string | null>;
  names: Record<string, string>;
}

/** Every row of the table, its sealed columns and names only (a few hundred bytes a row, read once by the operator's command). */
export async function selectSealedRows(db: DbOrTrx, table: SealedTable): Promise<SealedRow[]> {
  const spec = SEALED_TABLES[table];
  const columns = [...spec.key, ...Object.keys(spec.sealed), ...spec.names];
  // Dynamic over the tables above: Kysely cannot type a table chosen at run time.
  const rows = (await (db as unknown as DynamicDb).selectFrom(table).select(columns).execute()) as Record<string, string | number | null>[];
  return rows.map((row) => ({
    table,
    key: Object.fromEntries(spec.key.map((column) => [column, String(row[column])])),
    sealed: Object.fromEntries(Object.keys(spec.sealed).map((column) => [column, row[column] === null ? null : String(row[column])])),
    names: Object.fromEntries(spec.names.map((column) => [column, String(row[column])])),
  }));
}

/**
 * Stores the row's sealed columns `after`, only where they still hold `before` (the server
 * may have stored new ones meanwhile, sealed with the current key already): whether it did.
 */
export async function replaceSealedValues(db: DbOrTrx, row: SealedRow, after: Record<string, string>): Promise<boolean> {
  let query = (db as unknown as DynamicDb).updateTable(row.table).set(after);
  for (const [column, value] of Object.entries(row.key)) query = query.where(column, '=', value);
  for (const column of Object.keys(after)) query = query.where(column, '=', row.sealed[column] ?? '');
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The little of Kysely's query builder used above, untyped by table. */
interface DynamicUpdate {
  where(column: string, operator: '=', value: string): DynamicUpdate;
  executeTakeFirst(): Promise<{ numUpdatedRows: bigint }>;
}
interface DynamicDb {
  selectFrom(table: string): { select(columns: string[]): { execute(): Promise<unknown[]> } };
  updateTable(table: string): { set(values: Record<string, string>): DynamicUpdate };
}
