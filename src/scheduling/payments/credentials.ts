import type { Gateway } from '../../domain/account.js';
import type { GatewayCredentials } from '../../payments/gateway.js';
import { isGatewayConfigured } from '../../domain/gateway-settings.js';
import type { DbOrTrx } from '../../db/database.js';
import { findAccountGateway } from '../../db/repositories/account-gateways.js';
import { openRecord } from '../../secrets/secret-box.js';
import type { UseCaseContext } from '../context.js';

/**
 * The account's credentials for the gateway, opened just before an adapter uses them; null
 * when the gateway is not enabled or not fully configured. Never logged, never returned.
 */
export async function openGatewayCredentials(ctx: Pick<UseCaseContext, 'secretKey'>, db: DbOrTrx, accountUuid: string, gateway: Gateway): Promise<GatewayCredentials | null> {
  const stored = await findAccountGateway(db, accountUuid, gateway);
  if (!stored || !isGatewayConfigured(gateway, [...Object.keys(stored.settings), ...Object.keys(stored.sealedSecrets)])) return null;
  return { settings: stored.settings, secrets: openRecord(ctx.secretKey, stored.sealedSecrets) };
}

/** Why a booking may not use the gateway (400 at `/gateway`), or null when it may. */
export async function gatewayRefusal(db: DbOrTrx, accountUuid: string, gateway: Gateway): Promise<string | null> {
  const stored = await findAccountGateway(db, accountUuid, gateway);
  if (!stored) return 'is not enabled for the account';
  if (!isGatewayConfigured(gateway, [...Object.keys(stored.settings), ...Object.keys(stored.sealedSecrets)])) return 'is enabled but not configured for the account yet';
  return null;
}
