import type { Gateway } from '../../domain/account.js';
import type { GatewayCredentials } from '../../payments/gateway.js';
import { isGatewayConfigured } from '../../domain/gateway-settings.js';
import type { DbOrTrx } from '../../db/database.js';
import { findAccountGateway, selectAllAccountGateways } from '../../db/repositories/account-gateways.js';
import { canOpenSecret, openRecord, type SecretKeys } from '../../secrets/secret-box.js';
import type { UseCaseContext } from '../context.js';

/**
 * Why a gateway whose settings are all stored still cannot be used: its secrets were sealed
 * with another secret key (TERMIN_SECRET_KEY changed, or data/secret.key replaced). Shown at
 * `/gateway` when a booking names it and as `reason` in `GET /account`.
 */
export const UNREADABLE_CREDENTIALS =
  "cannot be used: its stored credentials cannot be read with this server's secret key; the operator must restore the key they were stored with, or they must be entered again";

/**
 * The account's credentials for the gateway, opened just before an adapter uses them; null
 * when the gateway is not enabled or not fully configured. Never logged, never returned.
 * Throws SecretUnreadableError when they were sealed with another secret key: each caller
 * answers that its own way (the pay page's gateway error, 503 to a notification, a refund
 * retried later), since the key may yet be restored.
 */
export async function openGatewayCredentials(ctx: Pick<UseCaseContext, 'secretKey'>, db: DbOrTrx, accountUuid: string, gateway: Gateway): Promise<GatewayCredentials | null> {
  const stored = await findAccountGateway(db, accountUuid, gateway);
  if (!stored || !isGatewayConfigured(gateway, [...Object.keys(stored.settings), ...Object.keys(stored.sealedSecrets)])) return null;
  return { settings: stored.settings, secrets: openRecord(ctx.secretKey, stored.sealedSecrets) };
}

/** Whether this server's keys open every sealed secret (an empty record opens trivially). */
export function canOpenSecrets(secretKey: SecretKeys, sealedSecrets: Record<string, string>): boolean {
  return Object.values(sealedSecrets).every((sealed) => canOpenSecret(secretKey, sealed));
}

/** Why a booking may not use the gateway (400 at `/gateway`), or null when it may. */
export async function gatewayRefusal(db: DbOrTrx, accountUuid: string, gateway: Gateway, secretKey: SecretKeys): Promise<string | null> {
  const stored = await findAccountGateway(db, accountUuid, gateway);
  if (!stored) return 'is not enabled for the account';
  if (!isGatewayConfigured(gateway, [...Object.keys(stored.settings), ...Object.keys(stored.sealedSecrets)])) return 'is enabled but not configured for the account yet';
  if (!canOpenSecrets(secretKey, stored.sealedSecrets)) return UNREADABLE_CREDENTIALS;
  return null;
}

/**
 * At start-up: tells the operator once, in one line, when stored gateway credentials cannot be
 * opened with this server's key, and what to do. Requests then treat those gateways as not
 * configured without logging it again. Returns how many gateways are affected.
 */
export async function reportUnreadableGatewaySecrets(ctx: Pick<UseCaseContext, 'db' | 'log' | 'secretKey'>): Promise<number> {
  const unreadable = (await selectAllAccountGateways(ctx.db)).filter((stored) => !canOpenSecrets(ctx.secretKey, stored.sealedSecrets));
  if (unreadable.length === 0) return 0;
  ctx.log.error(
    {
      gateways: unreadable.length,
      accounts: [...new Set(unreadable.map((stored) => stored.accountUuid))].slice(0, 20),
    },
    "Stored payment gateway credentials cannot be decrypted with this server's secret key (TERMIN_SECRET_KEY, or DATA_DIR/secret.key when it is unset): " +
      'those gateways are treated as not configured (paid bookings through them are refused, their notifications answered 503 so the gateways retry, refunds retried later). ' +
      'Restore the key they were stored with and restart, or enter the credentials again with PATCH /api/v1/account.',
  );
  return unreadable.length;
}
