import { NotificationRejectedError, type PaymentLookup } from './gateway.js';

/**
 * The check every adapter makes before it believes (or confirms) a payment: termin knows
 * the payment, and the gateway reports exactly the amount and currency termin asked for.
 * `gatewayTransactionId`, when the notification names one and termin has stored one,
 * must match too, so a notification about some other transaction cannot pay this one.
 */
export async function expectPayment(
  lookup: PaymentLookup,
  paymentUuid: string,
  reported: { amount: number; currency: string; gatewayTransactionId?: string | undefined },
): Promise<{ amount: number; currency: string; gatewayTransactionId: string | null }> {
  const payment = await lookup(paymentUuid);
  if (payment === null) throw new NotificationRejectedError('the notification names a payment termin does not know');
  if (payment.amount !== reported.amount || payment.currency.toUpperCase() !== reported.currency.toUpperCase()) {
    throw new NotificationRejectedError(
      `the notification reports ${reported.amount} ${reported.currency.toUpperCase()}, the payment expects ${payment.amount} ${payment.currency.toUpperCase()}`,
    );
  }
  if (reported.gatewayTransactionId !== undefined && payment.gatewayTransactionId !== null && payment.gatewayTransactionId !== reported.gatewayTransactionId) {
    throw new NotificationRejectedError('the notification is about another gateway transaction than the one created for this payment');
  }
  return payment;
}

export function parseJsonObject(rawBody: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody);
  } catch {
    throw new NotificationRejectedError('the notification body is not JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new NotificationRejectedError('the notification body is not a JSON object');
  }
  return parsed as Record<string, unknown>;
}
