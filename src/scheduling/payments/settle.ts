import type { DbOrTrx, Trx } from '../../db/database.js';
import { createKyselyReads } from '../../db/fast-reads.js';
import { bumpCalendarVersions } from '../../db/repositories/busy-time.js';
import { findTopicIncludingDeleted } from '../../db/repositories/meeting-topics.js';
import { findMeeting, lockHost } from '../../db/repositories/meetings.js';
import {
  findAccountPayment,
  findMeetingUuidsOfBooking,
  markMeetingsConfirmed,
  markMeetingsOfBookingExpired,
  markPaymentFailed,
  markPaymentPaid,
  type StoredPayment,
} from '../../db/repositories/payments.js';
import { inTransaction } from '../../db/transaction.js';
import { type NewEvent, recordEvents } from '../record-events.js';
import { meetingHostUuids, meetingHosts, statusAt, type Meeting } from '../../domain/meeting.js';
import { isSeatAvailable } from '../../domain/seats.js';
import type { HostCalendar } from '../../domain/slots.js';
import { bookingCalendarSpan, loadHostCalendar, slotRulesOf } from '../booking/calculate.js';
import type { MeetingEventData } from '../../domain/events.js';
import type { UseCaseContext } from '../context.js';
import { paymentRecord } from '../../domain/representations.js';
import { queueRefund, WHOLE_PAYMENT } from './refunds.js';
import { shareOf } from '../../domain/payment.js';

export type SettleOutcome = 'confirmed' | 'refunding' | 'failed' | 'unchanged';

/**
 * The gateway says the money is in. In one transaction under the hosts' locks (taken in
 * uuid order, before anything else is written, so it cannot deadlock with a booking or a
 * cancel): the payment becomes `paid` conditionally (of two instances receiving the same
 * notification, one confirms, the other changes nothing), its meetings `confirmed`, their
 * hosts' calendar versions bumped, and `payment.paid` plus `meeting.confirmed` recorded
 * (the confirmation e-mails follow from those).
 *
 * A payment arriving after its hold lapsed confirms only if every meeting's slot is still
 * free by the calculation's own rule (`isSlotAvailable`, the meetings themselves not
 * counted); otherwise the whole amount is refunded through the gateway and the
 * participant told. A meeting cancelled while it waited for payment gets its share back.
 */
export async function settlePaid(
  ctx: Pick<UseCaseContext, 'publicUrl' | 'now' | 'db'>,
  accountUuid: string,
  paymentUuid: string,
  gatewayTransactionId: string,
): Promise<SettleOutcome> {
  return inTransaction(ctx.db, async (trx) => {
    const now = ctx.now();
    const payment = await findAccountPayment(trx, accountUuid, paymentUuid);
    if (!payment || payment.status === 'paid' || payment.status === 'refunded') return 'unchanged';
    const meetings = await lockAndReadMeetings(trx, payment);
    if (!(await markPaymentPaid(trx, payment.uuid, now, gatewayTransactionId))) return 'unchanged';
    const paid: StoredPayment = { ...payment, status: 'paid', paidAt: now, gatewayTransactionId };
    const order = meetings.map((meeting) => meeting.uuid);
    const live = meetings.filter((meeting) => meeting.status !== 'cancelled');
    const late = payment.status !== 'pending' || live.some((meeting) => statusAt(meeting, now) !== 'pending_payment');
    const events: NewEvent[] = [{ accountUuid, type: 'payment.paid', subjectUuid: payment.uuid, data: { payment: paymentRecord(paid, ctx.publicUrl), meetings: order, late } }];

    if (live.length === 0 || (late && !(await slotsStillFree(trx, live, now)))) {
      await queueRefund(trx, paid, WHOLE_PAYMENT, paid.amount, 'slot_taken', now);
      await recordEvents(trx, events, now);
      return 'refunding';
    }
    await markMeetingsConfirmed(
      trx,
      live.map((meeting) => meeting.uuid),
      now,
    );
    await bumpCalendarVersions(trx, [...new Set(live.flatMap(meetingHostUuids))]);
    for (const meeting of live) {
      const data: MeetingEventData = { meeting: { ...meeting, status: 'confirmed', holdExpiresAt: null, updatedAt: now }, previousStatus: statusAt(meeting, now) };
      events.push({ accountUuid, type: 'meeting.confirmed', subjectUuid: meeting.uuid, data: { ...data } });
    }
    await recordEvents(trx, events, now);
    for (const meeting of meetings.filter((candidate) => candidate.status === 'cancelled')) {
      await queueRefund(trx, paid, meeting.uuid, shareOf(paid.amount, order, meeting.uuid), 'cancelled', now);
    }
    return 'confirmed';
  });
}

/**
 * The gateway says the payment failed (declined, cancelled by the payer): the payment is
 * `failed` and its held slots are released at once (calendar versions bumped: a live hold
 * was blocking). `payment.failed` tells the participant the slot was released.
 */
export async function settleFailed(ctx: Pick<UseCaseContext, 'publicUrl' | 'now' | 'db'>, accountUuid: string, paymentUuid: string): Promise<SettleOutcome> {
  return inTransaction(ctx.db, async (trx) => {
    const now = ctx.now();
    const payment = await findAccountPayment(trx, accountUuid, paymentUuid);
    if (payment?.status !== 'pending') return 'unchanged';
    const meetings = await lockAndReadMeetings(trx, payment);
    if (!(await markPaymentFailed(trx, payment.uuid))) return 'unchanged';
    await markMeetingsOfBookingExpired(trx, payment.bookingUuid, now);
    const pending = meetings.filter((meeting) => meeting.status === 'pending_payment');
    await bumpCalendarVersions(trx, [...new Set(pending.flatMap(meetingHostUuids))]);
    const events: NewEvent[] = [
      {
        accountUuid,
        type: 'payment.failed',
        subjectUuid: payment.uuid,
        data: { payment: paymentRecord({ ...payment, status: 'failed' }, ctx.publicUrl), meetings: meetings.map((m) => m.uuid) },
      },
      ...pending.map((meeting) => {
        const data: MeetingEventData = { meeting: { ...meeting, status: 'expired', updatedAt: now }, previousStatus: 'pending_payment' };
        return { accountUuid, type: 'meeting.expired' as const, subjectUuid: meeting.uuid, data: { ...data } };
      }),
    ];
    await recordEvents(trx, events, now);
    return 'failed';
  });
}

/** Locks the hosts of the booking's meetings in uuid order, then reads the meetings as they are under the locks. */
async function lockAndReadMeetings(trx: Trx, payment: StoredPayment): Promise<Meeting[]> {
  const read = async () => {
    const uuids = await findMeetingUuidsOfBooking(trx, payment.bookingUuid);
    return (await Promise.all(uuids.map((uuid) => findMeeting(trx, payment.accountUuid, uuid)))).filter((meeting): meeting is Meeting => meeting !== undefined);
  };
  const locked = new Set<string>();
  let meetings = await read();
  // A meeting moved to another host meanwhile (a reschedule) needs that host's lock too.
  for (let round = 0; round < 3; round += 1) {
    // Every host of a collective meeting too: its late confirmation checks each one's calendar.
    const hosts = [...new Set(meetings.flatMap(meetingHostUuids))].filter((host) => !locked.has(host)).sort();
    if (hosts.length === 0) break;
    for (const host of hosts) {
      await lockHost(trx, host);
      locked.add(host);
    }
    meetings = await read();
  }
  return meetings;
}

/** Every meeting's slot is still bookable now, by the rule the calculation and the booking check use. */
async function slotsStillFree(trx: DbOrTrx, meetings: Meeting[], now: number): Promise<boolean> {
  const reads = createKyselyReads(trx);
  const calendars = new Map<string, HostCalendar>();
  for (const meeting of [...meetings].sort((a, b) => a.start - b.start)) {
    const topic = await findTopicIncludingDeleted(trx, meeting.topicUuid);
    if (!topic) return false;
    const rules = slotRulesOf(topic);
    // A collective meeting needs each of its hosts still free.
    for (const host of meetingHosts(meeting)) {
      let calendar = calendars.get(host.uuid);
      if (!calendar) {
        const from = Math.min(...meetings.map((m) => m.start));
        const to = Math.max(...meetings.map((m) => m.end));
        const span = bookingCalendarSpan(rules, from, to);
        calendar = await loadHostCalendar(reads, host, rules, span.from, span.to, now);
        calendars.set(host.uuid, calendar);
      }
      if (!isSeatAvailable(calendar, rules, now, meeting.start)) return false;
      // A later meeting of the same booking must respect this one (buffers, daily limit).
      calendar.busy.push({
        start: meeting.start,
        end: meeting.end,
        bufferBeforeMinutes: topic.bufferBeforeMinutes,
        bufferAfterMinutes: topic.bufferAfterMinutes,
        topicUuid: topic.uuid,
      });
    }
  }
  return true;
}
