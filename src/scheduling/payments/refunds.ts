import type { DbOrTrx } from '../../db/database.js';
import {
  completeRefund,
  failRefund,
  findMeetingUuidsOfBooking,
  findPayment,
  findPaymentsOfBookings,
  findRefund,
  findRefundsOfPayment,
  insertRefundOnce,
  markRefundRequested,
} from '../../db/repositories/payments.js';
import { inTransaction } from '../../db/transaction.js';
import type { Meeting } from '../../domain/meeting.js';
import { newId } from '../../ids.js';
import { PermanentJobError, type JobHandler } from '../../outbox/job-handler.js';
import { REFUND_JOB_KIND, enqueueJobs } from '../../outbox/job-kinds.js';
import { DEFAULT_GATEWAY_TIMEOUT_MS } from '../../payments/http.js';
import { GatewayError, type GatewayRefund } from '../../payments/gateway.js';
import { recordEvents } from '../record-events.js';
import type { UseCaseContext } from '../context.js';
import { openGatewayCredentials } from './credentials.js';
import { paymentRecord } from '../../domain/representations.js';
import { type Payment, type Refund, type RefundReason, shareOf } from '../../domain/payment.js';
import type { RefundedEventData, RefundEventData } from '../../domain/events.js';

/** The refund key of a whole payment (a late payment whose slot was taken). */
export const WHOLE_PAYMENT = 'whole';

/**
 * Another refund of the same payment asked this recently may still be waiting for its answer
 * (gateway calls time out after 10 s): its refund could be taken for a lost one, so the check
 * waits for it (the job is retried with backoff).
 */
const IN_FLIGHT_MS = 6 * DEFAULT_GATEWAY_TIMEOUT_MS;

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
export function createRefundJobHandler(ctx: Pick<UseCaseContext, 'publicUrl' | 'now' | 'log' | 'db' | 'secretKey' | 'gateways'>): JobHandler<'payment-refund'> {
  return {
    kind: REFUND_JOB_KIND,
    maxAttempts: 30,
    async handle(job) {
      const { refundUuid } = job.payload;
      const refund = await findRefund(ctx.db, refundUuid);
      if (!refund) throw new PermanentJobError(`refund ${refundUuid} does not exist`);
      if (refund.status !== 'pending') return;
      const payment = await findPayment(ctx.db, refund.paymentUuid);
      if (!payment) throw new PermanentJobError(`payment ${refund.paymentUuid} does not exist`);
      // Credentials sealed with another secret key throw SecretUnreadableError: the job is retried
      // with backoff, so the refund is made once the operator restores the key.
      const credentials = await openGatewayCredentials(ctx, ctx.db, payment.accountUuid, payment.gateway);
      if (!credentials || payment.gatewayTransactionId === null) {
        await recordRefundFailure(ctx, refund, payment, credentials ? 'the payment has no gateway transaction' : `${payment.gateway} is no longer configured for the account`);
        return;
      }
      const adapter = ctx.gateways[payment.gateway];
      const gatewayTransactionId = payment.gatewayTransactionId;
      let refundId: string;
      try {
        // Asked before and the answer lost? Where the gateway takes no idempotency key, a refund
        // it already made is found in its list instead of being made twice.
        const listRefunds = adapter.listRefunds?.bind(adapter);
        const made =
          refund.requestedAt !== null && listRefunds
            ? await findRefundAlreadyMade(ctx, () => listRefunds(credentials, { gatewayTransactionId, currency: payment.currency }), payment.uuid, refund)
            : null;
        if (made !== null) {
          ctx.log.info({ paymentUuid: payment.uuid, refundUuid: refund.uuid }, 'a refund whose answer was lost had been made; not asked again');
          refundId = made.refundId;
        } else {
          await markRefundRequested(ctx.db, refund.uuid, ctx.now());
          ({ refundId } = await adapter.refund(credentials, {
            paymentUuid: payment.uuid,
            gatewayTransactionId,
            amount: refund.amount,
            currency: payment.currency,
            reason: refund.reason === 'cancelled' ? 'Meeting cancelled' : 'Slot no longer available',
            idempotencyKey: refund.uuid,
          }));
        }
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

/**
 * The gateway's refund that is this one's, when a previous request for it was answered by
 * nothing (a dropped connection, a 5xx after the work was done). The gateway's list, less the
 * refunds termin already recorded (by the gateway's id, then by amount), leaves the refunds
 * termin has not accounted for; those of this amount go to this payment's refunds of the same
 * amount that were asked and are still open, oldest first. Which of two equal refunds of one
 * payment got which gateway refund does not matter; that each is made once does. A refund made
 * by hand in the gateway's panel for the same amount meanwhile is taken for this one.
 */
async function findRefundAlreadyMade(
  ctx: Pick<UseCaseContext, 'now' | 'db'>,
  listGatewayRefunds: () => Promise<GatewayRefund[]>,
  paymentUuid: string,
  refund: Refund,
): Promise<GatewayRefund | null> {
  // The gateway first, termin's records after: a refund another worker asks meanwhile is marked
  // as asked before its call, so whatever the list shows of it, the records show it too.
  const unaccounted = [...(await listGatewayRefunds())];
  const refunds = await findRefundsOfPayment(ctx.db, paymentUuid);
  const now = ctx.now();
  if (refunds.some((other) => other.uuid !== refund.uuid && other.status === 'pending' && other.requestedAt !== null && now - other.requestedAt < IN_FLIGHT_MS)) {
    throw new GatewayError('another refund of this payment is being asked of the gateway right now; looked at again later', true);
  }
  const recorded = refunds.filter((other) => other.status === 'done');
  for (const done of recorded) {
    const index = unaccounted.findIndex((listed) => listed.refundId === done.gatewayRefundId);
    if (index >= 0) unaccounted.splice(index, 1);
    else {
      const sameAmount = unaccounted.findIndex((listed) => listed.amount === done.amount && !recorded.some((other) => other.gatewayRefundId === listed.refundId));
      if (sameAmount >= 0) unaccounted.splice(sameAmount, 1);
    }
  }
  const candidates = unaccounted.filter((listed) => listed.amount === refund.amount);
  const asked = refunds.filter((other) => other.status === 'pending' && other.requestedAt !== null && other.amount === refund.amount);
  const position = asked.findIndex((other) => other.uuid === refund.uuid);
  return position >= 0 && position < candidates.length ? candidates[position]! : null;
}

async function recordRefundFailure(ctx: Pick<UseCaseContext, 'publicUrl' | 'now' | 'log' | 'db'>, refund: Refund, payment: Payment, reason: string): Promise<void> {
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

function refundEventData(ctx: Pick<UseCaseContext, 'publicUrl'>, payment: Payment, refund: Refund): RefundedEventData {
  const data: RefundEventData = {
    uuid: refund.uuid,
    amount: refund.amount,
    currency: payment.currency,
    reason: refund.reason,
    meeting: refund.refundKey === WHOLE_PAYMENT ? null : refund.refundKey,
  };
  return { payment: paymentRecord(payment, ctx.publicUrl), refund: data, bookingUuid: payment.bookingUuid };
}
