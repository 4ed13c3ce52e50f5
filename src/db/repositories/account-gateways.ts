import type { Gateway } from '../../domain/account.js';
import type { DbOrTrx } from '../database.js';

/** A gateway as stored: secrets only ever in sealed form (see src/secrets/secret-box.ts). */
export interface StoredGateway {
  code: Gateway;
  settings: Record<string, string | number>;
  sealedSecrets: Record<string, string>;
}

export async function selectAccountGateways(db: DbOrTrx, accountUuid: string): Promise<StoredGateway[]> {
  const rows = await db.selectFrom('account_gateways').selectAll().where('account_id', '=', accountUuid).orderBy('position').execute();
  return rows.map((row) => ({
    code: row.code as Gateway,
    settings: JSON.parse(row.settings) as StoredGateway['settings'],
    sealedSecrets: JSON.parse(row.secrets) as StoredGateway['sealedSecrets'],
  }));
}

export async function findAccountGateway(db: DbOrTrx, accountUuid: string, code: Gateway): Promise<StoredGateway | undefined> {
  const row = await db.selectFrom('account_gateways').selectAll().where('account_id', '=', accountUuid).where('code', '=', code).executeTakeFirst();
  return row && { code: row.code as Gateway, settings: JSON.parse(row.settings), sealedSecrets: JSON.parse(row.secrets) };
}

/** Every account's enabled gateways (the start-up check of stored secrets reads them all once). */
export async function selectAllAccountGateways(db: DbOrTrx): Promise<(StoredGateway & { accountUuid: string })[]> {
  const rows = await db.selectFrom('account_gateways').selectAll().orderBy('account_id').orderBy('position').execute();
  return rows.map((row) => ({
    accountUuid: row.account_id,
    code: row.code as Gateway,
    settings: JSON.parse(row.settings) as StoredGateway['settings'],
    sealedSecrets: JSON.parse(row.secrets) as StoredGateway['sealedSecrets'],
  }));
}

/** The enabled set is replaced as a whole, in the caller's transaction. */
export async function replaceAccountGateways(db: DbOrTrx, accountUuid: string, gateways: StoredGateway[], now: number): Promise<void> {
  await db.deleteFrom('account_gateways').where('account_id', '=', accountUuid).execute();
  if (gateways.length === 0) return;
  await db
    .insertInto('account_gateways')
    .values(
      gateways.map((gateway, position) => ({
        account_id: accountUuid,
        code: gateway.code,
        position,
        settings: JSON.stringify(gateway.settings),
        secrets: JSON.stringify(gateway.sealedSecrets),
        updated_at: now,
      })),
    )
    .execute();
}
