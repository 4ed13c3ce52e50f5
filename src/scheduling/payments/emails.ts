import type { DomainEvent } from '../../domain/events.js';
import { isErased } from '../../domain/erasure.js';
import { participantLocaleOf, type Meeting } from '../../domain/meeting.js';
import type { DbOrTrx } from '../../db/database.js';
import { findAccount } from '../../db/repositories/accounts.js';
import { findTopicIncludingDeleted } from '../../db/repositories/meeting-topics.js';
import { findMeeting } from '../../db/repositories/meetings.js';
import { findMeetingUuidsOfBooking, findPaymentsOfBookings } from '../../db/repositories/payments.js';
import { newId } from '../../ids.js';
import type { UseCaseContext } from '../context.js';
import { messageBrandingOf } from '../account/branding.js';
import { translateTopic } from '../../domain/topic-translations.js';
import type { PaidDetails, PaymentMessagePayload } from '../../mail/booking-message.js';
import { renderPaymentMessage } from '../../mail/render.js';
import type { MailTransport } from '../../mail/transport.js';
import type { JobHandler } from '../../outbox/job-handler.js';
import { PAYMENT_EMAIL_JOB_KIND, type NewJob } from '../../outbox/job-kinds.js';

/**
 * The participant's e-mail about a payment event, in their language: `payment.pending` (the
 * amount, the pay link, the deadline), `payment.expired` / `payment.failed` (the slot was
 * released), `payment.refunded` (the amount going back).
 */
export async function paymentEmailJobsForEvent(trx: DbOrTrx, event: DomainEvent, now: number, ctx: Pick<UseCaseContext, 'publicUrl'>): Promise<NewJob[]> {
  if (event.type !== 'payment.pending' && event.type !== 'payment.expired' && event.type !== 'payment.failed' && event.type !== 'payment.refunded') return [];
  const kind = ({ 'payment.pending': 'pending', 'payment.expired': 'released', 'payment.failed': 'released', 'payment.refunded': 'refunded' } as const)[event.type];
  const { data } = event;
  let uuids: string[];
  if (event.type === 'payment.refunded') {
    const { refund, bookingUuid } = event.data;
    uuids = refund?.meeting ? [refund.meeting] : bookingUuid ? await findMeetingUuidsOfBooking(trx, bookingUuid) : [];
  } else uuids = event.data.meetings ?? [];
  const meetings = (await Promise.all(uuids.map((uuid) => findMeeting(trx, event.accountUuid, uuid)))).filter((meeting): meeting is Meeting => meeting !== undefined);
  const first = meetings[0];
  // An erased participant has no address left, and asked to hear nothing more.
  if (!first || isErased(first)) return [];
  const [account, topic] = await Promise.all([findAccount(trx, event.accountUuid), findTopicIncludingDeleted(trx, first.topicUuid)]);
  const branding = await messageBrandingOf(trx, ctx.publicUrl, event.accountUuid, account?.name ?? '');
  const payload: PaymentMessagePayload = {
    event: kind,
    to: { name: first.participant.name, email: first.participant.email },
    lang: first.participant.lang,
    ...participantLocaleOf(first),
    timezone: first.participant.timezone,
    accountName: branding?.name ?? account?.name ?? '',
    topicName: topic ? translateTopic(topic, first.participant.lang).name : '',
    ...(branding ? { branding } : {}),
    meetings: meetings.map((meeting) => ({ start: meeting.start, end: meeting.end })),
    amount: event.type === 'payment.refunded' ? (event.data.refund?.amount ?? 0) : data.payment.amount,
    currency: data.payment.currency,
    ...(kind === 'pending' ? { payUrl: data.payment.redirectUrl, deadline: Date.parse(data.payment.expiresAt) } : {}),
    ...(event.type === 'payment.refunded' ? { refundReason: event.data.refund?.reason } : {}),
  };
  return [{ uuid: newId(now), kind: PAYMENT_EMAIL_JOB_KIND, payload }];
}

/** What a paid meeting's confirmation shows: the amount paid and the invoice details given. */
export async function paidDetailsOf(trx: DbOrTrx, meeting: Meeting): Promise<PaidDetails> {
  const payment = (await findPaymentsOfBookings(trx, [meeting.bookingUuid])).get(meeting.bookingUuid);
  return {
    paid: payment && payment.paidAt !== null ? { amount: payment.amount, currency: payment.currency } : undefined,
    invoice: meeting.invoice,
  };
}

/** The `payment-email` job: renders the message captured when it was queued; no invitation is attached. */
export function createPaymentEmailSender(transport: MailTransport): JobHandler<'payment-email'> {
  return {
    kind: PAYMENT_EMAIL_JOB_KIND,
    async handle(job) {
      await transport.send(renderPaymentMessage(job.payload), job.uuid);
    },
  };
}
