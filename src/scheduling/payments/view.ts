import { NotFoundError } from '../../domain/errors.js';
import { statusAt, type Meeting } from '../../domain/meeting.js';
import { selectEventsOfSubject } from '../../db/repositories/events.js';
import { findMeeting } from '../../db/repositories/meetings.js';
import { findAccountPayment, findMeetingUuidsOfBooking, findPaymentsOfBookings, type StoredPayment } from '../../db/repositories/payments.js';
import type { Principal, UseCaseContext } from '../context.js';
import { paymentStatusAt } from '../../domain/payment.js';

/** One entry of a payment's audit trail: its status after the change, and when. */
export interface PaymentHistoryEntry {
  status: string;
  at: number;
  /** The event recorded (`payment.paid`, `payment.refunded`, …). */
  event: string;
  /** For refunds: the amount that went back. */
  amount: number | null;
}

export interface PaymentDetails {
  payment: StoredPayment;
  meetings: Meeting[];
  history: PaymentHistoryEntry[];
}

const STATUS_OF_EVENT: Record<string, string> = {
  'payment.pending': 'pending',
  'payment.paid': 'paid',
  'payment.expired': 'expired',
  'payment.failed': 'failed',
  'payment.refunded': 'refunded',
  'payment.refund_failed': 'refund_failed',
};

/** `GET /payments/{uuid}`: the payment, its meetings and every change of its state with its time (from the events). */
export async function getPaymentDetails(ctx: Pick<UseCaseContext, 'now' | 'db'>, principal: Principal, paymentUuid: string): Promise<PaymentDetails> {
  const payment = await findAccountPayment(ctx.db, principal.accountUuid, paymentUuid);
  if (!payment) throw new NotFoundError('payment');
  const now = ctx.now();
  const uuids = await findMeetingUuidsOfBooking(ctx.db, payment.bookingUuid);
  const meetings = (await Promise.all(uuids.map((uuid) => findMeeting(ctx.db, principal.accountUuid, uuid))))
    .filter((meeting): meeting is Meeting => meeting !== undefined)
    .map((meeting) => ({ ...meeting, status: statusAt(meeting, now) }));
  const events = await selectEventsOfSubject(ctx.db, payment.uuid);
  const history = events
    .filter((event) => STATUS_OF_EVENT[event.type] !== undefined)
    .map((event) => {
      const refund = event.type === 'payment.refunded' || event.type === 'payment.refund_failed' ? event.data.refund : undefined;
      // A partial refund leaves the payment `paid`: the entry says `refunded` with the amount.
      const status = event.type === 'payment.refunded' ? 'refunded' : (STATUS_OF_EVENT[event.type] ?? event.type);
      return { status, at: event.occurredAt, event: event.type, amount: typeof refund?.amount === 'number' ? refund.amount : null };
    });
  return { payment: { ...payment, status: paymentStatusAt(payment, now) }, meetings, history };
}

/** The payment of each meeting's booking (absent for free meetings), for meeting records. */
export async function paymentsOfMeetings(ctx: Pick<UseCaseContext, 'now' | 'db'>, meetings: readonly Meeting[]): Promise<Map<string, StoredPayment>> {
  const now = ctx.now();
  const byBooking = await findPaymentsOfBookings(
    ctx.db,
    meetings.map((meeting) => meeting.bookingUuid),
  );
  return new Map([...byBooking].map(([booking, payment]) => [booking, { ...payment, status: paymentStatusAt(payment, now) }]));
}
