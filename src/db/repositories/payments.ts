import type { Gateway } from '../../domain/account.js';
import type { CreationAttempt, Payment, PaymentStatus, Refund, RefundReason } from '../../domain/payment.js';
import type { DbOrTrx } from '../database.js';

/** A payment with what only the service itself needs: where the gateway's page is. */
export interface StoredPayment extends Payment {
  gatewayRedirectUrl: string | null;
  claimToken: string | null;
  claimExpiresAt: number | null;
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
      gateway_transaction_id: null,
      gateway_redirect_url: null,
      claim_token: null,
      claim_expires_at: null,
    })
    .execute();
}

function selectPayments(db: DbOrTrx) {
  return db
    .selectFrom('payments')
    .leftJoin('discount_codes', 'discount_codes.id', 'payments.discount_code_id')
    .selectAll('payments')
    .select('discount_codes.code as discount_code');
}

type PaymentRow = Awaited<ReturnType<ReturnType<typeof selectPayments>['executeTakeFirstOrThrow']>>;

function rowToPayment(row: PaymentRow): StoredPayment {
  return {
    uuid: row.id,
    accountUuid: row.account_id,
    bookingUuid: row.booking_id,
    gateway: row.gateway as Gateway,
    status: row.status as PaymentStatus,
    amount: Number(row.amount),
    currency: row.currency,
    expiresAt: Number(row.expires_at),
    createdAt: Number(row.created_at),
    discountCode: row.discount_code ?? null,
    discountCodeUuid: row.discount_code_id,
    paidAt: row.paid_at === null ? null : Number(row.paid_at),
    refundedAmount: Number(row.refunded_amount),
    gatewayTransactionId: row.gateway_transaction_id,
    gatewayRedirectUrl: row.gateway_redirect_url,
    claimToken: row.claim_token,
    claimExpiresAt: row.claim_expires_at === null ? null : Number(row.claim_expires_at),
  };
}

/** By uuid alone: the `/pay` page and the refund job know a payment only by its uuid. */
export async function findPayment(db: DbOrTrx, paymentUuid: string): Promise<StoredPayment | undefined> {
  const row = await selectPayments(db).where('payments.id', '=', paymentUuid).executeTakeFirst();
  return row && rowToPayment(row);
}

export async function findAccountPayment(db: DbOrTrx, accountUuid: string, paymentUuid: string): Promise<StoredPayment | undefined> {
  const row = await selectPayments(db).where('payments.account_id', '=', accountUuid).where('payments.id', '=', paymentUuid).executeTakeFirst();
  return row && rowToPayment(row);
}

/** The payments of these bookings, by booking uuid (meeting lists show each meeting's payment). */
export async function findPaymentsOfBookings(db: DbOrTrx, bookingUuids: readonly string[]): Promise<Map<string, StoredPayment>> {
  const unique = [...new Set(bookingUuids)];
  if (unique.length === 0) return new Map();
  const rows = await selectPayments(db).where('payments.booking_id', 'in', unique).execute();
  return new Map(rows.map((row) => [row.booking_id, rowToPayment(row)]));
}

/**
 * Claims the creation of the gateway transaction: true for exactly one caller while the
 * payment is pending, has no transaction yet and nobody holds an unexpired claim. The lease
 * lets another instance take over when the claimer died mid-call.
 */
export async function claimTransactionCreation(db: DbOrTrx, paymentUuid: string, token: string, now: number, leaseMs: number): Promise<boolean> {
  const result = await db
    .updateTable('payments')
    .set({ claim_token: token, claim_expires_at: now + leaseMs })
    .where('id', '=', paymentUuid)
    .where('status', '=', 'pending')
    .where('gateway_transaction_id', 'is', null)
    .where((eb) => eb.or([eb('claim_expires_at', 'is', null), eb('claim_expires_at', '<=', now)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Stores what the gateway created, if this claim is still the one on the row and nothing was stored yet. */
export async function storeGatewayTransaction(db: DbOrTrx, paymentUuid: string, token: string, transaction: { id: string; redirectUrl: string }): Promise<boolean> {
  const result = await db
    .updateTable('payments')
    .set({ gateway_transaction_id: transaction.id, gateway_redirect_url: transaction.redirectUrl, claim_token: null, claim_expires_at: null })
    .where('id', '=', paymentUuid)
    .where('claim_token', '=', token)
    .where('gateway_transaction_id', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * The creation attempt the holder of the claim makes: as stored, with its start set to `now`
 * on the payment's first try. A repeated try so sends the gateway the same request.
 */
export async function beginCreationAttempt(db: DbOrTrx, paymentUuid: string, token: string, now: number): Promise<CreationAttempt> {
  await db
    .updateTable('payments')
    .set({ creation_attempt_at: now })
    .where('id', '=', paymentUuid)
    .where('claim_token', '=', token)
    .where('creation_attempt_at', 'is', null)
    .execute();
  return findCreationAttempt(db, paymentUuid, now);
}

/**
 * The gateway will answer attempt `spent` the same way for good: the next try is attempt
 * `spent + 1`, starting `now`. Conditional on the claim and on `spent` still being current, so
 * a claimer whose lease ran out changes nothing; returns the attempt now stored.
 */
export async function startNextCreationAttempt(db: DbOrTrx, paymentUuid: string, token: string, spent: number, now: number): Promise<CreationAttempt> {
  await db
    .updateTable('payments')
    .set({ creation_attempt: spent + 1, creation_attempt_at: now })
    .where('id', '=', paymentUuid)
    .where('claim_token', '=', token)
    .where('creation_attempt', '=', spent)
    .execute();
  return findCreationAttempt(db, paymentUuid, now);
}

async function findCreationAttempt(db: DbOrTrx, paymentUuid: string, now: number): Promise<CreationAttempt> {
  const row = await db.selectFrom('payments').select(['creation_attempt', 'creation_attempt_at']).where('id', '=', paymentUuid).executeTakeFirstOrThrow();
  return { number: Number(row.creation_attempt), startedAt: row.creation_attempt_at === null ? now : Number(row.creation_attempt_at) };
}

/** Gives the claim up after a failed gateway call, so the next visit may try at once. */
export async function releaseTransactionClaim(db: DbOrTrx, paymentUuid: string, token: string): Promise<void> {
  await db.updateTable('payments').set({ claim_token: null, claim_expires_at: null }).where('id', '=', paymentUuid).where('claim_token', '=', token).execute();
}

/**
 * `paid`, from any state a payment can still be paid out of (a late payment arrives after
 * `expired`; a gateway may report success after a failure). Conditional: of concurrent
 * notifications exactly one gets true.
 */
export async function markPaymentPaid(db: DbOrTrx, paymentUuid: string, paidAt: number, gatewayTransactionId: string): Promise<boolean> {
  const result = await db
    .updateTable('payments')
    .set({ status: 'paid', paid_at: paidAt, gateway_transaction_id: gatewayTransactionId, claim_token: null, claim_expires_at: null })
    .where('id', '=', paymentUuid)
    .where('status', 'in', ['pending', 'expired', 'failed'])
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function markPaymentFailed(db: DbOrTrx, paymentUuid: string): Promise<boolean> {
  const result = await db.updateTable('payments').set({ status: 'failed' }).where('id', '=', paymentUuid).where('status', '=', 'pending').executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** A pending payment whose hold lapsed; a payment that was settled meanwhile is left alone. */
export async function markPaymentExpired(db: DbOrTrx, bookingUuid: string): Promise<boolean> {
  const result = await db.updateTable('payments').set({ status: 'expired' }).where('booking_id', '=', bookingUuid).where('status', '=', 'pending').executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** A pending payment's new deadline (a request approved: the participant's time to pay starts then). */
export async function setPaymentExpiry(db: DbOrTrx, paymentUuid: string, expiresAt: number): Promise<void> {
  await db.updateTable('payments').set({ expires_at: expiresAt }).where('id', '=', paymentUuid).where('status', '=', 'pending').execute();
}

/** Inserts the refund unless one with the same key exists for the payment; true when inserted. */
export async function insertRefundOnce(db: DbOrTrx, refund: Omit<Refund, 'status' | 'gatewayRefundId' | 'doneAt' | 'requestedAt'>): Promise<boolean> {
  const result = await db
    .insertInto('payment_refunds')
    .values({
      id: refund.uuid,
      payment_id: refund.paymentUuid,
      refund_key: refund.refundKey,
      amount: refund.amount,
      reason: refund.reason,
      status: 'pending',
      gateway_refund_id: null,
      created_at: refund.createdAt,
      done_at: null,
      requested_at: null,
    })
    .onConflict((oc) => oc.columns(['payment_id', 'refund_key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

function rowToRefund(row: {
  id: string;
  payment_id: string;
  refund_key: string;
  amount: number;
  reason: string;
  status: string;
  gateway_refund_id: string | null;
  created_at: number;
  done_at: number | null;
  requested_at: number | null;
}): Refund {
  return {
    uuid: row.id,
    paymentUuid: row.payment_id,
    refundKey: row.refund_key,
    amount: Number(row.amount),
    reason: row.reason as RefundReason,
    status: row.status as Refund['status'],
    gatewayRefundId: row.gateway_refund_id,
    createdAt: Number(row.created_at),
    doneAt: row.done_at === null ? null : Number(row.done_at),
    requestedAt: row.requested_at === null ? null : Number(row.requested_at),
  };
}

export async function findRefund(db: DbOrTrx, refundUuid: string): Promise<Refund | undefined> {
  const row = await db.selectFrom('payment_refunds').selectAll().where('id', '=', refundUuid).executeTakeFirst();
  return row && rowToRefund(row);
}

export async function findRefundsOfPayment(db: DbOrTrx, paymentUuid: string): Promise<Refund[]> {
  const rows = await db.selectFrom('payment_refunds').selectAll().where('payment_id', '=', paymentUuid).orderBy('created_at').orderBy('id').execute();
  return rows.map(rowToRefund);
}

/**
 * The gateway confirmed the refund: once only (conditional on `pending`), the payment's
 * refunded amount grows, and it reads `refunded` once all of it is back.
 */
export async function completeRefund(db: DbOrTrx, refund: Refund, gatewayRefundId: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('payment_refunds')
    .set({ status: 'done', gateway_refund_id: gatewayRefundId, done_at: now })
    .where('id', '=', refund.uuid)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) return false;
  await db
    .updateTable('payments')
    .set((eb) => ({ refunded_amount: eb('refunded_amount', '+', refund.amount) }))
    .where('id', '=', refund.paymentUuid)
    .execute();
  await db
    .updateTable('payments')
    .set({ status: 'refunded' })
    .where('id', '=', refund.paymentUuid)
    .where('status', '=', 'paid')
    .where((eb) => eb('refunded_amount', '>=', eb.ref('amount')))
    .execute();
  return true;
}

/** Written just before the gateway is asked, so a retry knows the refund may already be made. */
export async function markRefundRequested(db: DbOrTrx, refundUuid: string, now: number): Promise<void> {
  await db.updateTable('payment_refunds').set({ requested_at: now }).where('id', '=', refundUuid).where('status', '=', 'pending').execute();
}

export async function failRefund(db: DbOrTrx, refundUuid: string, now: number): Promise<boolean> {
  const result = await db.updateTable('payment_refunds').set({ status: 'failed', done_at: now }).where('id', '=', refundUuid).where('status', '=', 'pending').executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The meetings a payment pays for, by start (their uuids; findMeeting reads each). */
export async function findMeetingUuidsOfBooking(db: DbOrTrx, bookingUuid: string): Promise<string[]> {
  const rows = await db.selectFrom('meetings').select('id').where('booking_id', '=', bookingUuid).orderBy('starts_at').orderBy('id').execute();
  return rows.map((row) => row.id);
}

/** Paid: the booking's still-unsettled meetings become confirmed; the number changed. */
export async function markMeetingsConfirmed(db: DbOrTrx, meetingUuids: readonly string[], now: number): Promise<number> {
  if (meetingUuids.length === 0) return 0;
  const result = await db
    .updateTable('meetings')
    .set({ status: 'confirmed', hold_expires_at: null, updated_at: now })
    .where('id', 'in', [...meetingUuids])
    .where('status', 'in', ['pending_payment', 'expired'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The payment failed: its pending meetings stop holding their slots. */
export async function markMeetingsOfBookingExpired(db: DbOrTrx, bookingUuid: string, now: number): Promise<number> {
  const result = await db
    .updateTable('meetings')
    .set({ status: 'expired', updated_at: now })
    .where('booking_id', '=', bookingUuid)
    .where('status', '=', 'pending_payment')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
