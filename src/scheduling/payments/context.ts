import type { Gateway } from '../../domain/account.js';
import type { PaymentGatewayUrls } from '../../config.js';
import type { GatewayAdapter, GatewayCredentials } from '../../payments/gateway.js';
import { createGatewayRegistry } from '../../payments/registry.js';
import { isGatewayConfigured } from '../../domain/gateway-settings.js';
import type { DbOrTrx } from '../../db/database.js';
import { findAccountGateway } from '../../db/repositories/account-gateways.js';
import { openRecord } from '../../secrets/secret-box.js';
import { requireSecretKey, type UseCaseContext } from '../context.js';

/** Where problems worth an operator's attention go (a pino logger fits). */
export interface PaymentLog {
  warn(object: object, message: string): void;
  info(object: object, message: string): void;
}

/** What the payment use cases need beyond the database: the adapters and the service's public address. */
export interface PaymentsContext extends UseCaseContext {
  gateways: Record<Gateway, GatewayAdapter>;
  /** `{PUBLIC_URL}`: the pay page, return and notification URLs hang off it. */
  publicUrl: string;
  log: PaymentLog;
}

interface AppLike extends UseCaseContext {
  config: { publicUrl: string; payments: PaymentGatewayUrls };
  log: PaymentLog;
}

const contexts = new WeakMap<object, PaymentsContext>();

/**
 * One per application context, so the routes and the refund jobs share the adapters (and
 * their OAuth tokens). `gateways` may be given (tests point adapters elsewhere).
 */
export function paymentsContextOf(ctx: AppLike, gateways?: Record<Gateway, GatewayAdapter>): PaymentsContext {
  let payments = contexts.get(ctx);
  if (payments === undefined) {
    payments = { ...ctx, gateways: gateways ?? createGatewayRegistry(ctx.config.payments), publicUrl: ctx.config.publicUrl, log: ctx.log };
    contexts.set(ctx, payments);
  }
  return payments;
}

/** `{PUBLIC_URL}` of a context that has a config (the application's); '' otherwise (the CLI books nothing paid). */
export function publicUrlOf(ctx: UseCaseContext): string {
  return (ctx as { config?: { publicUrl?: string } }).config?.publicUrl ?? (ctx as { publicUrl?: string }).publicUrl ?? '';
}

/**
 * The account's credentials for the gateway, opened just before an adapter uses them; null
 * when the gateway is not enabled or not fully configured. Never logged, never returned.
 */
export async function openGatewayCredentials(ctx: UseCaseContext, db: DbOrTrx, accountUuid: string, gateway: Gateway): Promise<GatewayCredentials | null> {
  const stored = await findAccountGateway(db, accountUuid, gateway);
  if (!stored || !isGatewayConfigured(gateway, [...Object.keys(stored.settings), ...Object.keys(stored.sealedSecrets)])) return null;
  return { settings: stored.settings, secrets: openRecord(requireSecretKey(ctx), stored.sealedSecrets) };
}

/** Why a booking may not use the gateway (400 at `/gateway`), or null when it may. */
export async function gatewayRefusal(db: DbOrTrx, accountUuid: string, gateway: Gateway): Promise<string | null> {
  const stored = await findAccountGateway(db, accountUuid, gateway);
  if (!stored) return 'is not enabled for the account';
  if (!isGatewayConfigured(gateway, [...Object.keys(stored.settings), ...Object.keys(stored.sealedSecrets)])) return 'is enabled but not configured for the account yet';
  return null;
}
