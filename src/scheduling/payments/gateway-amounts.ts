import type { Gateway } from '../../domain/account.js';
import type { Money } from '../../domain/meeting-topic.js';
import { formatMinorUnits } from '../../domain/money.js';
import type { DbOrTrx } from '../../db/database.js';
import { listUsableGateways } from '../account/account.js';
import type { UseCaseContext } from '../context.js';

/**
 * What each gateway can take, as its adapter knows it (`amountRefusal`), applied to the
 * account's gateways: the booking refuses a gateway that could never be paid (400 at
 * `/gateway`), and the booking page offers only the ones that can take the topic's prices.
 */

/**
 * The account's usable gateways (enabled, configured and readable with this secret key, in its order) that can take every
 * one of `prices`: `[{ amount: 15000, currency: 'EUR' }]` with Tpay and Stripe set up → `['stripe']`.
 */
export async function gatewaysTaking(ctx: Pick<UseCaseContext, 'gateways' | 'secretKey'>, db: DbOrTrx, accountUuid: string, prices: readonly Money[]): Promise<Gateway[]> {
  const enabled = await listUsableGateways({ db, secretKey: ctx.secretKey }, accountUuid);
  return enabled
    .filter((gateway) => gateway.configured && prices.every((price) => ctx.gateways[gateway.code].amountRefusal(price.amount, price.currency) === null))
    .map((gateway) => gateway.code);
}

/**
 * Why the booking may not pay `due` through `gateway`, naming the account's gateways that
 * can, or null when it may: "cannot take 150.00 EUR: Tpay takes PLN only, not EUR; use one of: stripe, paypal".
 */
export async function amountRefusalAt(ctx: Pick<UseCaseContext, 'secretKey' | 'gateways'>, db: DbOrTrx, accountUuid: string, gateway: Gateway, due: Money): Promise<string | null> {
  const reason = ctx.gateways[gateway].amountRefusal(due.amount, due.currency);
  if (reason === null) return null;
  const able = await gatewaysTaking(ctx, db, accountUuid, [due]);
  const amount = `${formatMinorUnits(due.amount, due.currency)} ${due.currency}`;
  return `cannot take ${amount}: ${reason}; ${able.length > 0 ? `use one of: ${able.join(', ')}` : "none of the account's gateways can take it"}`;
}
