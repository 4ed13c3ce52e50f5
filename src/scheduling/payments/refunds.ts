import type { DbOrTrx } from '../../db/database.js';
import { enqueueJobs } from '../../db/repositories/outbox.js';
import { completeRefund, failRefund, findMeetingUuidsOfBooking, findPayment, findPaymentsOfBookings, findRefund, insertRefundOnce } from '../../db/repositories/payments.js';
import { inTransaction } from '../../db/transaction.js';
import type { Meeting } from '../../domain/meeting.js';
import { newId } from '../../ids.js';
import { PermanentJobError, type JobHandler } from '../../outbox/job-handler.js';
import { GatewayError } from '../../payments/gateway.js';
import { recordEvents } from '../record-events.js';
import type { UseCaseContext } from '../context.js';
import { openGatewayCredentials } from './credentials.js';
import { paymentRecord } from '../../domain/representations.js';
import { type Payment, type Refund, type RefundReason, shareOf } from '../../domain/payment.js';

/** The outbox kind of one refund asked of a gateway. */
export const REFUND_JOB_KIND = 'payment-refund';

/** The refund key of a whole payment (a late payment whose slot was taken). */
export const WHOLE_PAYMENT = 'whole';

/** What `payment.refunded` and `payment.refund_failed` carry besides the payment. */
export interface RefundEventData {
  uuid: string;
  amount: number;
  currency: string;
  reason: RefundReason;
  /** The cancelled meeting whose share this is; null for a whole payment. */
  meeting: string | null;
}

/**
 * Queues a refund in the caller's transaction, at most once per payment and key (a meeting's
 * uuid, or `whole`): the job calls the gateway after commit, with the refund's uuid as its
 * idempotency key, so a retried job never refunds twice.
 */
export async function queueRefund(trx: DbOrTrx, payment: Payment, refundKey: string, amount: number, reason: RefundReason, now: number): Promise<boolean> {
  if (amount <= 0) return false;
  const uuid = newId(now);
  if (!(await insertRefundOnce(trx, { uuid, paymentUuid: payment.uuid, refundKey, amount, reason, createdAt: now }))) return false;
  await enqueueJobs(trx, [{ uuid: newId(now), kind: REFUND_JOB_KIND, payload: { refundUuid: uuid } }], now);
  return true;
}

/**
 * A paid meeting was cancelled: its share of the payment goes back (see `shareOf`).
 * Nothing for a free meeting, or one whose payment is not (or no longer) held.
 */
export async function refundMeetingShare(trx: DbOrTrx, meeting: Meeting, now: number): Promise<boolean> {
  const payment = (await findPaymentsOfBookings(trx, [meeting.bookingUuid])).get(meeting.bookingUuid);
  if (payment?.status !== 'paid') return false;
  const meetings = await findMeetingUuidsOfBooking(trx, meeting.bookingUuid);
  return queueRefund(trx, payment, meeting.uuid, shareOf(payment.amount, meetings, meeting.uuid), 'cancelled', now);
}

/**
 * The `payment-refund` job: asks the gateway, then records the outcome once. A refusal the
 * gateway will repeat (a non-retryable GatewayError) is recorded as `payment.refund_failed`
 * for the operator; an outage is retried with backoff.
 */
export function createRefundJobHandler(ctx: Pick<UseCaseContext, 'config' | 'now' | 'log' | 'db' | 'secretKey' | 'gateways'>): JobHandler {
  return {
    kind: REFUND_JOB_KIND,
    maxAttempts: 30,
    async handle(job) {
      const { refundUuid } = (job.payload ?? {}) as { refundUuid?: unknown };
      if (typeof refundUuid !== 'string') throw new PermanentJobError('a refund job without a refund');
      const refund = await findRefund(ctx.db, refundUuid);
      if (!refund) throw new PermanentJobError(`refund ${refundUuid} does not exist`);
      if (refund.status !== 'pending') return;
      const payment = await findPayment(ctx.db, refund.paymentUuid);
      if (!payment) throw new PermanentJobError(`payment ${refund.paymentUuid} does not exist`);
      const credentials = await openGatewayCredentials(ctx, ctx.db, payment.accountUuid, payment.gateway);
      if (!credentials || payment.gatewayTransactionId === null) {
        await recordRefundFailure(ctx, refund, payment, credentials ? 'the payment has no gateway transaction' : `${payment.gateway} is no longer configured for the account`);
        return;
      }
      let refundId: string;
      try {
        ({ refundId } = await ctx.gateways[payment.gateway].refund(credentials, {
          paymentUuid: payment.uuid,
          gatewayTransactionId: payment.gatewayTransactionId,
          amount: refund.amount,
          currency: payment.currency,
          reason: refund.reason === 'cancelled' ? 'Meeting cancelled' : 'Slot no longer available',
          idempotencyKey: refund.uuid,
        }));
      } catch (error) {
        if (error instanceof GatewayError && !error.retryable) {
          await recordRefundFailure(ctx, refund, payment, error.message);
          return;
        }
        throw error;
      }
      await inTransaction(ctx.db, async (trx) => {
        const now = ctx.now();
        if (!(await completeRefund(trx, refund, refundId, now))) return;
        const updated = (await findPayment(trx, payment.uuid))!;
        await recordEvents(trx, [{ accountUuid: payment.accountUuid, type: 'payment.refunded', subjectUuid: payment.uuid, data: refundEventData(ctx, updated, refund) }], now);
      });
    },
  };
}

async function recordRefundFailure(ctx: Pick<UseCaseContext, 'config' | 'now' | 'log' | 'db'>, refund: Refund, payment: Payment, reason: string): Promise<void> {
  ctx.log.warn({ paymentUuid: payment.uuid, refundUuid: refund.uuid, reason }, 'a refund was refused; it must be made by hand in the gateway');
  await inTransaction(ctx.db, async (trx) => {
    const now = ctx.now();
    if (!(await failRefund(trx, refund.uuid, now))) return;
    await recordEvents(
      trx,
      [{ accountUuid: payment.accountUuid, type: 'payment.refund_failed', subjectUuid: payment.uuid, data: { ...refundEventData(ctx, payment, refund), error: reason } }],
      now,
    );
  });
}

function refundEventData(ctx: Pick<UseCaseContext, 'config'>, payment: Payment, refund: Refund): Record<string, unknown> {
  const data: RefundEventData = {
    uuid: refund.uuid,
    amount: refund.amount,
    currency: payment.currency,
    reason: refund.reason,
    meeting: refund.refundKey === WHOLE_PAYMENT ? null : refund.refundKey,
  };
  return { payment: paymentRecord(payment, ctx.config.publicUrl), refund: data, bookingUuid: payment.bookingUuid };
}
