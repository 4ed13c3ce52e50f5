import type { Gateway, Place } from '../domain/account.js';
import { DiscountInvalidError, IdempotencyKeyReusedError, NotFoundError, SlotUnavailableError, ValidationError, type FieldError } from '../domain/errors.js';
import { applyDiscount, discountRefusal, normalizeDiscountCode, type DiscountCode } from '../domain/discount.js';
import { checkTopicTeam, findTopicHost, isPaidTopic, type MeetingTopic, type Money, type TopicHost } from '../domain/meeting-topic.js';
import {
  PAYMENT_HOLD_MS,
  basePrice,
  collectInvoice,
  findOverlappingDates,
  validateBookingAgainstTopic,
  type Lang,
  type Meeting,
} from '../domain/meeting.js';
import { hashRequest } from '../domain/request-hash.js';
import { isSlotAvailable, type BusyMeeting, type HostCalendar } from '../domain/slots.js';
import { isValidTimeZone } from '../domain/time-zones.js';
import type { DbOrTrx } from '../db/database.js';
import { findAccount } from '../db/repositories/accounts.js';
import { claimIdempotencyKey, completeIdempotencyKey, deleteIdempotentResponse, findIdempotentResponse } from '../db/repositories/idempotency.js';
import { insertMeetings, lockHost } from '../db/repositories/meetings.js';
import { insertPayment, type Payment } from '../db/repositories/payments.js';
import { findTopic } from '../db/repositories/meeting-topics.js';
import { findDiscountByCode, useDiscountCode } from '../db/repositories/discount-codes.js';
import { inTransaction } from '../db/transaction.js';
import { newId } from '../ids.js';
import { loadHostCalendar, slotRulesOf } from './calculate-schedule.js';
import type { Principal, UseCaseContext } from './context.js';
import { enqueueBookingMessages } from './messages.js';

/** The seed's request body of `POST /schedule`. */
export interface ScheduleInput {
  dates: { start: string; username: string }[];
  email: string;
  lang: Lang;
  name: string;
  phone?: string | undefined;
  place: Place;
  meetingTopic: string;
  team?: string | undefined;
  timezone: string;
  gateway?: Gateway | undefined;
  note?: string | undefined;
  invoiceName?: string | undefined;
  invoiceAddress?: string | undefined;
  invoicePostalCode?: string | undefined;
  invoiceCity?: string | undefined;
  invoiceTaxNumber?: string | undefined;
  discount?: string | undefined;
  priceVariant?: string | undefined;
  form?: Record<string, unknown> | undefined;
  metadata?: Record<string, unknown> | undefined;
}

export interface Booking {
  meetings: Meeting[];
  payment: Payment | null;
  /** True when an Idempotency-Key replayed an earlier booking instead of making one. */
  replayed: boolean;
}

const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
const UTC_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z$/;

/**
 * Seed endpoint 5. All dates are booked in one transaction or none is. Each host's row
 * lock is taken before its calendar is read, so two requests for one host — on any
 * number of instances sharing the database — check and insert one after the other: the
 * second sees the first's meeting and is refused. The check is the calculation's own
 * rule (`isSlotAvailable`), so a date is bookable exactly when it would be offered.
 */
export async function scheduleMeetings(
  ctx: UseCaseContext,
  principal: Principal,
  input: ScheduleInput,
  idempotencyKey?: string | undefined,
): Promise<Booking> {
  const starts = parseStarts(input);
  const requestHash = hashRequest(input);

  return inTransaction(ctx.db, async (trx) => {
    const now = ctx.now();
    if (idempotencyKey !== undefined) {
      const previous = await findIdempotentResponse(trx, principal.accountUuid, idempotencyKey);
      if (previous && previous.createdAt > now - IDEMPOTENCY_TTL_MS) {
        if (previous.requestHash !== requestHash) throw new IdempotencyKeyReusedError();
        return { ...(JSON.parse(previous.body) as Omit<Booking, 'replayed'>), replayed: true };
      }
      if (previous) await deleteIdempotentResponse(trx, principal.accountUuid, idempotencyKey);
      await claimIdempotencyKey(trx, principal.accountUuid, idempotencyKey, requestHash, now);
    }

    const account = await findAccount(trx, principal.accountUuid);
    if (!account) throw new NotFoundError('account');
    const topic = await findTopic(trx, account.uuid, input.meetingTopic);
    if (!topic) throw new NotFoundError('meeting topic');
    checkTopicTeam(topic, input.team);
    const hosts = input.dates.map((date, index) => findTopicHost(topic, date.username, `/dates/${index}/username`));
    const paid = isPaidTopic(topic);

    const errors: FieldError[] = validateBookingAgainstTopic(input, { ...topic, paid }, account.places);
    const end = (start: number) => start + topic.durationMinutes * 60_000;
    errors.push(...findOverlappingDates(starts.map((start, i) => ({ start, end: end(start), host: hosts[i]!.uuid }))));
    if (errors.length > 0) throw new ValidationError(errors);
    const priceVariantUuid = input.priceVariant ?? null;
    if (priceVariantUuid !== null && !topic.priceVariants.some((variant) => variant.uuid === priceVariantUuid)) {
      throw new NotFoundError('price variant of this meeting topic');
    }
    const discount = input.discount === undefined ? null : await findUsableDiscount(trx, account.uuid, input.discount, now, paid ? basePrice(topic, priceVariantUuid) : null);

    const calendars = await lockAndLoadCalendars(trx, topic, hosts, starts, now);
    const rules = slotRulesOf(topic);
    const unavailable: FieldError[] = [];
    starts.forEach((start, index) => {
      const calendar = calendars.get(hosts[index]!.uuid)!;
      if (!isSlotAvailable(calendar, rules, now, start)) {
        unavailable.push({ path: `/dates/${index}`, message: 'is not an available slot' });
        return;
      }
      // Later dates of this request must respect this one (buffers, daily limit).
      calendar.busy.push(asBusy(topic, start, end(start)));
    });
    if (unavailable.length > 0) throw new SlotUnavailableError(unavailable);

    // The price of the whole booking, after the discount; nothing to pay confirms at once.
    let amountDue: Money | null = null;
    if (paid) {
      const price = basePrice(topic, priceVariantUuid)!;
      amountDue = { amount: price.amount * starts.length, currency: price.currency };
      if (discount) amountDue = applyDiscount(amountDue, discount);
    }
    const needsPayment = amountDue !== null && amountDue.amount > 0;
    const bookingUuid = newId(now);
    const holdExpiresAt = needsPayment ? now + PAYMENT_HOLD_MS : null;
    const meetings: Meeting[] = starts.map((start, index) => ({
      uuid: newId(now),
      accountUuid: account.uuid,
      topicUuid: topic.uuid,
      teamUuid: topic.teamUuid,
      hostUuid: hosts[index]!.uuid,
      hostUsername: hosts[index]!.username,
      bookingUuid,
      start,
      end: end(start),
      status: needsPayment ? 'pending_payment' : 'confirmed',
      holdExpiresAt,
      place: input.place,
      participant: { name: input.name.trim(), email: input.email.trim(), phone: input.phone?.trim() || null, timezone: input.timezone, lang: input.lang },
      note: input.note ?? null,
      priceVariantUuid,
      form: input.form ?? {},
      metadata: input.metadata ?? {},
      invoice: collectInvoice(input),
      sequence: 0,
      createdAt: now,
      updatedAt: now,
      cancelledAt: null,
      cancelReason: null,
    }));
    await insertMeetings(trx, meetings);

    // A use counts only for a paid booking; the conditional update keeps the limit under concurrency.
    if (discount && paid && !(await useDiscountCode(trx, discount.uuid))) throw new DiscountInvalidError('has been used up');

    let payment: Payment | null = null;
    if (needsPayment) {
      payment = {
        uuid: newId(now),
        accountUuid: account.uuid,
        bookingUuid,
        gateway: input.gateway!,
        status: 'pending',
        amount: amountDue!.amount,
        currency: amountDue!.currency,
        expiresAt: holdExpiresAt!,
        createdAt: now,
        discountCode: discount?.code ?? null,
        discountCodeUuid: discount?.uuid ?? null,
      };
      await insertPayment(trx, payment);
    } else {
      await enqueueBookingMessages(trx, { account, topic, meetings, kind: 'confirmed' }, now);
    }

    const booking = { meetings, payment };
    if (idempotencyKey !== undefined) {
      await completeIdempotencyKey(trx, account.uuid, idempotencyKey, 201, JSON.stringify(booking));
    }
    return { ...booking, replayed: false };
  });
}

/** Shape checks that need no database: valid zone, UTC instants. */
function parseStarts(input: ScheduleInput): number[] {
  const errors: FieldError[] = [];
  if (!isValidTimeZone(input.timezone)) errors.push({ path: '/timezone', message: 'must be a valid IANA time zone' });
  const starts = input.dates.map((date, index) => {
    const ms = UTC_INSTANT.test(date.start) ? Date.parse(date.start) : Number.NaN;
    if (Number.isNaN(ms)) errors.push({ path: `/dates/${index}/start`, message: 'must be a UTC date-time in ISO 8601 format, e.g. 2027-03-29T07:00:00.000Z' });
    return ms;
  });
  if (errors.length > 0) throw new ValidationError(errors);
  return starts;
}

/** Locks hosts in a fixed order (no deadlocks between multi-host bookings), then reads their calendars. */
async function lockAndLoadCalendars(trx: DbOrTrx, topic: MeetingTopic, hosts: TopicHost[], starts: number[], now: number): Promise<Map<string, HostCalendar>> {
  const unique = [...new Map(hosts.map((host) => [host.uuid, host])).values()].sort((a, b) => (a.uuid < b.uuid ? -1 : 1));
  const rules = slotRulesOf(topic);
  const from = Math.min(...starts);
  const to = Math.max(...starts) + topic.durationMinutes * 60_000;
  const calendars = new Map<string, HostCalendar>();
  for (const host of unique) {
    await lockHost(trx, host.uuid);
    calendars.set(host.uuid, await loadHostCalendar(trx, host, rules, from, to, now));
  }
  return calendars;
}

/** The code named in the request, if it exists and can be used now (422 otherwise). */
async function findUsableDiscount(trx: DbOrTrx, accountUuid: string, code: string, now: number, price: Money | null): Promise<DiscountCode> {
  const discount = await findDiscountByCode(trx, accountUuid, normalizeDiscountCode(code));
  if (!discount) throw new DiscountInvalidError('is not a known discount code');
  const refusal = discountRefusal(discount, now, price ?? { amount: 0, currency: discount.amountOff?.currency ?? 'XXX' });
  if (refusal) throw new DiscountInvalidError(refusal);
  return discount;
}

function asBusy(topic: MeetingTopic, start: number, end: number): BusyMeeting {
  return { start, end, bufferBeforeMinutes: topic.bufferBeforeMinutes, bufferAfterMinutes: topic.bufferAfterMinutes, topicUuid: topic.uuid };
}
