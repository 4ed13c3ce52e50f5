import type { Payment, PaymentStatus } from '../../db/repositories/payments.js';
export { PAYMENT_STATUSES } from '../../db/repositories/payments.js';

/**
 * A payment as the API shows it (and as webhooks carry it): the contract's
 * `{ uuid, gateway, status, amount, currency, redirectUrl, expiresAt, paidAt, refundedAmount }`
 * plus the discount code applied.
 */
export interface PaymentRecord {
  uuid: string;
  gateway: Payment['gateway'];
  status: PaymentStatus;
  amount: number;
  currency: string;
  redirectUrl: string;
  expiresAt: string;
  paidAt: string | null;
  refundedAmount: number;
  discountCode: string | null;
}

/**
 * The status as of `now`: a pending payment whose hold ran out reads `expired` before the
 * sweeper writes it (as meetings do).
 */
export function paymentStatusAt(payment: Pick<Payment, 'status' | 'expiresAt'>, now: number): PaymentStatus {
  return payment.status === 'pending' && payment.expiresAt <= now ? 'expired' : payment.status;
}

export function payUrl(publicUrl: string, paymentUuid: string): string {
  return `${publicUrl}/pay/${paymentUuid}`;
}

export function paymentRecord(payment: Payment, publicUrl: string, now?: number): PaymentRecord {
  return {
    uuid: payment.uuid,
    gateway: payment.gateway,
    status: now === undefined ? payment.status : paymentStatusAt(payment, now),
    amount: payment.amount,
    currency: payment.currency,
    redirectUrl: payUrl(publicUrl, payment.uuid),
    expiresAt: new Date(payment.expiresAt).toISOString(),
    // `?? `: a booking replayed from an idempotency record stored before payments had these.
    paidAt: payment.paidAt === null || payment.paidAt === undefined ? null : new Date(payment.paidAt).toISOString(),
    refundedAmount: payment.refundedAmount ?? 0,
    discountCode: payment.discountCode,
  };
}

/**
 * A meeting's share of its booking's payment: the amount split evenly over the booking's
 * meetings (in the order given), the first ones taking a minor unit more when it does not
 * divide: 10000 over 3 → 3334, 3333, 3333.
 */
export function shareOf(amount: number, meetingUuids: readonly string[], meetingUuid: string): number {
  const count = meetingUuids.length;
  const index = meetingUuids.indexOf(meetingUuid);
  if (count === 0 || index < 0) return 0;
  return Math.floor(amount / count) + (index < amount % count ? 1 : 0);
}
