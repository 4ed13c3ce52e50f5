import type { Gateway } from '../../domain/account.js';
import { GatewayUnavailableError, NotificationRejectedError, ServiceUnavailableError } from '../../domain/errors.js';
import { SecretUnreadableError } from '../../secrets/secret-box.js';
import { findAccountPayment } from '../../db/repositories/payments.js';
import { GatewayError, NotificationRejectedError as AdapterRejectedError, type IncomingNotification, type VerifiedNotification } from '../../payments/gateway.js';
import type { UseCaseContext } from '../context.js';
import { openGatewayCredentials } from './credentials.js';
import { settleFailed, settlePaid } from './settle.js';

/** What a gateway is told while the account's credentials cannot be read here (no internals). */
const UNREADABLE_NOTIFICATION = "The account's gateway credentials cannot be read by this server right now; send the notification again later";
/** Gateways retry on their own schedules; this is the hint for those that read Retry-After. */
const NOTIFICATION_RETRY_AFTER_SECONDS = 600;

/**
 * `POST /api/v1/payments/{gateway}/notifications/{accountUuid}`: the account's credentials
 * for that gateway are opened, the adapter authenticates the notification by the gateway's
 * own scheme and checks amount and currency against the payment; a refusal is a 400 that
 * changes nothing. A verified completion settles the payment (once, however often it is
 * repeated or on however many instances it lands); the reply is what the gateway expects.
 * A gateway that cannot be reached for a confirming call (P24 verify, PayPal's signature
 * check) gives 502, so the gateway sends the notification again later; credentials this
 * server cannot decrypt (another secret key) give 503 with Retry-After, for the same reason.
 */
export async function receiveNotification(
  ctx: Pick<UseCaseContext, 'publicUrl' | 'now' | 'log' | 'db' | 'secretKey' | 'gateways'>,
  gateway: Gateway,
  accountUuid: string,
  notification: IncomingNotification,
): Promise<VerifiedNotification['reply']> {
  let credentials: Awaited<ReturnType<typeof openGatewayCredentials>>;
  try {
    credentials = await openGatewayCredentials(ctx, ctx.db, accountUuid, gateway);
  } catch (error) {
    // Sealed with another secret key: nothing can be checked now, but the notification may be
    // genuine and the key may be restored, so the gateway is asked to send it again (503).
    if (error instanceof SecretUnreadableError) throw new ServiceUnavailableError(UNREADABLE_NOTIFICATION, NOTIFICATION_RETRY_AFTER_SECONDS);
    throw error;
  }
  if (!credentials) throw new NotificationRejectedError(`${gateway} is not configured for this account`);
  let verified: VerifiedNotification;
  try {
    verified = await ctx.gateways[gateway].verifyNotification(credentials, notification, async (paymentUuid) => {
      const payment = await findAccountPayment(ctx.db, accountUuid, paymentUuid);
      if (!payment || payment.gateway !== gateway) return null;
      return { amount: payment.amount, currency: payment.currency, gatewayTransactionId: payment.gatewayTransactionId };
    });
  } catch (error) {
    if (error instanceof AdapterRejectedError) {
      ctx.log.warn({ gateway, accountUuid, reason: error.message }, 'a payment notification was refused');
      throw new NotificationRejectedError(error.message);
    }
    if (error instanceof GatewayError) {
      ctx.log.warn({ gateway, accountUuid, reason: error.message }, 'a payment notification could not be confirmed with the gateway');
      throw new GatewayUnavailableError();
    }
    throw error;
  }
  const { outcome } = verified;
  if (outcome.kind === 'paid') {
    const result = await settlePaid(ctx, accountUuid, outcome.paymentUuid, outcome.gatewayTransactionId);
    if (result !== 'unchanged') ctx.log.info({ gateway, paymentUuid: outcome.paymentUuid, result }, 'payment received');
  } else if (outcome.kind === 'failed') {
    await settleFailed(ctx, accountUuid, outcome.paymentUuid);
  }
  return verified.reply;
}
