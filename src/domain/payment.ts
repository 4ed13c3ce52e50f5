import type { Gateway } from './account.js';

export const PAYMENT_STATUSES = ['pending', 'paid', 'expired', 'failed', 'refunded', 'cancelled'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** A booking's payment: amounts in the currency's minor units, instants in epoch ms. */
export interface Payment {
  uuid: string;
  accountUuid: string;
  bookingUuid: string;
  gateway: Gateway;
  status: PaymentStatus;
  amount: number;
  currency: string;
  expiresAt: number;
  createdAt: number;
  /** The discount code applied (normalised), if any. */
  discountCode: string | null;
  discountCodeUuid: string | null;
  paidAt: number | null;
  /** Minor units the gateway has confirmed refunding. */
  refundedAmount: number;
  /** The gateway's id of the transaction `/pay` created (for P24, its order id once paid). */
  gatewayTransactionId: string | null;
}

/**
 * One try at creating a payment's transaction at its gateway: the nth (0 first) and when it
 * began (epoch ms). Stored with the payment, so that a try repeated after a lost answer sends
 * the gateway the very same request, and moved on only when the gateway will answer that
 * request the same way for good (Stripe keeps a key's first answer, a 500 included).
 */
export interface CreationAttempt {
  number: number;
  startedAt: number;
}

export type RefundReason = 'cancelled' | 'slot_taken';

export interface Refund {
  uuid: string;
  paymentUuid: string;
  /** The meeting whose share this is, or `whole`. */
  refundKey: string;
  amount: number;
  reason: RefundReason;
  status: 'pending' | 'done' | 'failed';
  gatewayRefundId: string | null;
  createdAt: number;
  doneAt: number | null;
  /** When termin last asked the gateway for it (the answer may have been lost); null: never asked. */
  requestedAt: number | null;
}

/**
 * The status as of `now`: a pending payment whose hold ran out reads `expired` before the
 * sweeper writes it (as meetings do).
 *
 * `{ status: 'pending', expiresAt: 10:30 }` at 10:30 → `expired`; at 10:29 → `pending`.
 */
export function paymentStatusAt(payment: Pick<Payment, 'status' | 'expiresAt'>, now: number): PaymentStatus {
  return payment.status === 'pending' && payment.expiresAt <= now ? 'expired' : payment.status;
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
