import type { IntegrationProvider } from '../../domain/integrations.js';
import type { DbOrTrx } from '../database.js';

/** An account's OAuth app for a provider as stored: the secret only ever sealed. */
export interface StoredIntegration {
  provider: IntegrationProvider;
  settings: Record<string, string>;
  sealedSecrets: Record<string, string>;
}

export async function selectAccountIntegrations(db: DbOrTrx, accountUuid: string): Promise<StoredIntegration[]> {
  const rows = await db.selectFrom('account_integrations').selectAll().where('account_id', '=', accountUuid).orderBy('provider').execute();
  return rows.map((row) => ({ provider: row.provider as IntegrationProvider, settings: JSON.parse(row.settings), sealedSecrets: JSON.parse(row.secrets) }));
}

export async function findAccountIntegration(db: DbOrTrx, accountUuid: string, provider: IntegrationProvider): Promise<StoredIntegration | undefined> {
  const row = await db.selectFrom('account_integrations').selectAll().where('account_id', '=', accountUuid).where('provider', '=', provider).executeTakeFirst();
  return row && { provider, settings: JSON.parse(row.settings), sealedSecrets: JSON.parse(row.secrets) };
}

/** Sets (or, with null, removes) one provider's app; the others stay as they are. */
export async function saveAccountIntegration(
  db: DbOrTrx,
  accountUuid: string,
  provider: IntegrationProvider,
  value: Omit<StoredIntegration, 'provider'> | null,
  now: number,
): Promise<void> {
  await db.deleteFrom('account_integrations').where('account_id', '=', accountUuid).where('provider', '=', provider).execute();
  if (value === null) return;
  await db
    .insertInto('account_integrations')
    .values({ account_id: accountUuid, provider, settings: JSON.stringify(value.settings), secrets: JSON.stringify(value.sealedSecrets), updated_at: now })
    .execute();
}
