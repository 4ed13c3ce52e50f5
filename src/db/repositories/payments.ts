import type { Gateway } from '../../domain/account.js';
import type { DbOrTrx } from '../database.js';

export interface Payment {
  uuid: string;
  accountUuid: string;
  bookingUuid: string;
  gateway: Gateway;
  status: 'pending' | 'paid' | 'expired' | 'cancelled';
  amount: number;
  currency: string;
  expiresAt: number;
  createdAt: number;
  /** The discount code applied (normalised), if any. */
  discountCode: string | null;
  discountCodeUuid: string | null;
}

export async function insertPayment(db: DbOrTrx, payment: Payment): Promise<void> {
  await db
    .insertInto('payments')
    .values({
      id: payment.uuid,
      account_id: payment.accountUuid,
      booking_id: payment.bookingUuid,
      gateway: payment.gateway,
      status: payment.status,
      amount: payment.amount,
      currency: payment.currency,
      expires_at: payment.expiresAt,
      created_at: payment.createdAt,
      paid_at: null,
      discount_code_id: payment.discountCodeUuid,
    })
    .execute();
}

/** A pending payment whose hold lapsed; a payment that was settled meanwhile is left alone. */
export async function markPaymentExpired(db: DbOrTrx, bookingUuid: string): Promise<void> {
  await db.updateTable('payments').set({ status: 'expired' }).where('booking_id', '=', bookingUuid).where('status', '=', 'pending').execute();
}
