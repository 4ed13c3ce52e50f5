import type { Account, Gateway, Place } from '../../domain/account.js';
import { DiscountInvalidError, IdempotencyKeyReusedError, LinkGoneError, NotFoundError, SlotUnavailableError, ValidationError, type FieldError } from '../../domain/errors.js';
import { discountRefusal, normalizeDiscountCode, type DiscountCode } from '../../domain/discount.js';
import { cleanFormAnswers } from '../../domain/form.js';
import { resolveLocation, type MeetingLocation, type PlaceDetails } from '../../domain/place-details.js';
import { checkTopicTeam, findTopicHost, isCollective, isPaidTopic, topicForDuration, type MeetingTopic, type Money, type TopicHost } from '../../domain/meeting-topic.js';
import { PAYMENT_HOLD_MS, approvalDeadline, basePrice, collectInvoice, findOverlappingDates, validateBookingAgainstTopic, type Lang, type Meeting } from '../../domain/meeting.js';
import { priceBooking, priceVariantForLength } from '../../domain/pricing.js';
import { participantLocale } from '../../domain/formats.js';
import { hashRequest } from '../../domain/request-hash.js';
import { isSeatAvailable } from '../../domain/seats.js';
import type { BusyMeeting, HostCalendar } from '../../domain/slots.js';
import { isValidTimeZone } from '../../domain/time-zones.js';
import type { DbOrTrx, Trx } from '../../db/database.js';
import { createKyselyReads, type FastReads } from '../../db/fast-reads.js';
import { findDiscountByCode, useDiscountCode } from '../../db/repositories/discount-codes.js';
import { claimIdempotencyKey, completeIdempotencyKey, deleteIdempotentResponse, findIdempotentResponse } from '../../db/repositories/idempotency.js';
import { findAccountAndTopic, findTopic } from '../../db/repositories/meeting-topics.js';
import { insertMeetings, lockStandInHosts, lockTopicHosts, type LockedHost } from '../../db/repositories/meetings.js';
import { insertPayment } from '../../db/repositories/payments.js';
import { inTransaction } from '../../db/transaction.js';
import { setSingleUseLinkMeeting, useSingleUseLink } from '../../db/repositories/single-use-links.js';
import { findDelegatedSpans } from '../../db/repositories/time-off.js';
import { newId } from '../../ids.js';
import { bookingCalendarSpan, loadHostCalendar, slotRulesOf } from './calculate.js';
import type { Principal, UseCaseContext } from '../context.js';
import { recordEvents } from '../record-events.js';
import { gatewayRefusal } from '../payments/credentials.js';
import { amountRefusalAt } from '../payments/gateway-amounts.js';
import { paymentRecord } from '../../domain/representations.js';
import type { Payment } from '../../domain/payment.js';

/** The request body of `POST /schedule`. */
export interface ScheduleInput {
  dates: { start: string; username: string }[];
  email: string;
  lang: Lang;
  /** The participant's browser locale, for their messages' date and time formats. */
  locale?: string | undefined;
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
  /** One of the topic's `durations`; default its `durationMinutes`. */
  duration?: number | undefined;
  /** E-mail addresses of people the participant brings (a topic with `allowGuests`). */
  guests?: string[] | undefined;
  form?: Record<string, unknown> | undefined;
  metadata?: Record<string, unknown> | undefined;
}

/** The public booking page (no key): only public topics, and the booking has no key (`bookedByKeyUuid: null`). */
export interface PublicBooker {
  accountUuid: string;
  publicPage: true;
  /** Booked through a single-use link: the topic need not be public, and the link is used up in the booking's transaction. */
  singleUseLink?: { tokenHash: string; topicUuid: string } | undefined;
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
 * `POST /schedule`. All dates are booked in one transaction or none is, in these steps:
 * replay or claim the idempotency key; plan the booking (topic, the named hosts — found as
 * their row locks are taken —, request rules, discount); check every date with the
 * calculation's own rule (`isSlotAvailable`), so a date is bookable exactly when it would be
 * offered; price it; store the meetings, the payment and the events that send the messages.
 *
 * Each host's row lock is taken before its calendar is read, so two requests for one host —
 * on any number of instances sharing the database — check and insert one after the other:
 * the second sees the first's meeting and is refused.
 */
export async function scheduleMeetings(
  ctx: Pick<UseCaseContext, 'publicUrl' | 'now' | 'db' | 'secretKey' | 'gateways' | 'outboxPace'>,
  principal: Principal | PublicBooker,
  input: ScheduleInput,
  idempotencyKey?: string | undefined,
): Promise<Booking> {
  const starts = parseStarts(input);
  // Refused before anything is locked; the meetings keep what it normalises to.
  if (input.locale !== undefined) participantLocale(input.locale, input.lang);
  // The whole body: a repeat with any field changed is a different request.
  const requestHash = idempotencyKey === undefined ? '' : hashRequest(input);
  // Under a peak the outbox's confirmations set the pace: a booking waits (a few seconds at
  // most) while they are late, before it locks anything.
  await ctx.outboxPace.admit();

  const booking = await inTransaction(ctx.db, async (trx) => {
    const now = ctx.now();
    if (idempotencyKey !== undefined) {
      const replay = await replayOrClaimIdempotencyKey(trx, principal.accountUuid, idempotencyKey, requestHash, now);
      if (replay) return replay;
    }
    // First, before any host is locked: of two bookings through one link the second waits
    // here for the first to commit (or roll back, which frees the link) and then finds it used.
    const singleUse = 'publicPage' in principal ? principal.singleUseLink : undefined;
    if (singleUse !== undefined && !(await useSingleUseLink(trx, singleUse.tokenHash, singleUse.topicUuid, now))) throw new LinkGoneError();
    const plan = { ...(await planBooking(trx, principal.accountUuid, input, starts, now, ctx.secretKey)), bookedByKeyUuid: 'keyUuid' in principal ? principal.keyUuid : null };
    // Checked again inside the transaction: a topic made private meanwhile takes no more bookings.
    if ('publicPage' in principal && !plan.topic.public && singleUse === undefined) throw new NotFoundError('meeting topic');
    const amountDue = priceBooking(plan.topic, plan.priceVariantUuid, starts.length, plan.discount);
    // Only a gateway that can take this currency and amount: a payment e-mail nobody can pay would only hold the slot.
    const amountRefusal =
      amountDue !== null && amountDue.amount > 0 && input.gateway !== undefined ? await amountRefusalAt(ctx, trx, plan.account.uuid, input.gateway, amountDue) : null;
    if (amountRefusal !== null) throw new ValidationError([{ path: '/gateway', message: amountRefusal }]);
    const placeDetails = await checkDatesUnderLock(trx, plan, starts, now);
    // Resolved now and stored: a later change of the host's or topic's details leaves this booking as sent.
    const phone = input.phone?.trim() || null;
    const locations = plan.hosts.map((host) => resolveLocation(input.place, placeDetails.get(host.uuid) ?? {}, plan.topic.placeDetails, phone));
    const booking = buildBooking(plan, input, starts, amountDue, locations, now);
    await storeBooking(trx, plan, booking, now, ctx.publicUrl);
    if (singleUse !== undefined && booking.meetings[0] !== undefined) await setSingleUseLinkMeeting(trx, singleUse.tokenHash, booking.meetings[0].uuid);
    if (idempotencyKey !== undefined) {
      await completeIdempotencyKey(trx, principal.accountUuid, idempotencyKey, 201, JSON.stringify(booking));
    }
    return { ...booking, replayed: false };
  });
  // Committed: its event is queued (a replay queued nothing new).
  if (!booking.replayed) ctx.outboxPace.queued(ctx.now());
  return booking;
}

/** The first response to this key within 24 hours, or null after claiming the key for this request. */
async function replayOrClaimIdempotencyKey(trx: DbOrTrx, accountUuid: string, key: string, requestHash: string, now: number): Promise<Booking | null> {
  const previous = await findIdempotentResponse(trx, accountUuid, key);
  if (previous && previous.createdAt > now - IDEMPOTENCY_TTL_MS) {
    if (previous.requestHash !== requestHash) throw new IdempotencyKeyReusedError();
    return { ...(JSON.parse(previous.body) as Omit<Booking, 'replayed'>), replayed: true };
  }
  if (previous) await deleteIdempotentResponse(trx, accountUuid, key);
  await claimIdempotencyKey(trx, accountUuid, key, requestHash, now);
  return null;
}

interface BookingPlan {
  account: Account;
  topic: MeetingTopic;
  /** The host of each date, in the order of `dates`. */
  hosts: TopicHost[];
  /** The hosts' rows as locked, by uuid (a collective topic's: every host, in the topic's order). */
  locked: Map<string, LockedHost>;
  /** Each meeting holds every host of the topic (see isCollective). */
  collective: boolean;
  paid: boolean;
  priceVariantUuid: string | null;
  discount: DiscountCode | null;
  bookedByKeyUuid: string | null;
}

/** Everything the request names, found and checked against the topic; every problem reported at once. */
async function planBooking(
  trx: Trx,
  accountUuid: string,
  input: ScheduleInput,
  starts: number[],
  now: number,
  secretKey: UseCaseContext['secretKey'],
): Promise<Omit<BookingPlan, 'bookedByKeyUuid'>> {
  const found = await findAccountAndTopic(trx, accountUuid, input.meetingTopic);
  if (!found) throw new NotFoundError('account');
  const { account } = found;
  if (!found.topic) throw new NotFoundError('meeting topic');
  checkTopicTeam(found.topic, input.team);
  // The named hosts are found as they are locked: whoever is a host under the lock books.
  // A collective topic's meetings hold every host: all are locked, whichever the dates name.
  const collective = isCollective(found.topic);
  const named = [...new Set(input.dates.map((date) => date.username))];
  const locked = collective ? await lockEveryTopicHost(trx, found.topic) : await lockTopicHosts(trx, found.topic.uuid, named);
  // A name that is no host may be the stand-in of a host away then (time off with a delegate): locked the same way.
  const missing = collective ? [] : named.filter((username) => !locked.some((host) => host.username === username));
  const standIns = missing.length === 0 ? [] : await lockStandInHosts(trx, found.topic.uuid, missing, Math.min(...starts), Math.max(...starts) + 1);
  if (standIns.length > 0) await checkStandInDates(trx, found.topic, locked, standIns, input, starts);
  locked.push(...standIns);
  // The chosen length is the topic's length for every rule of this booking: its slots, buffers, limits, seats and end.
  const topic = topicForDuration({ ...found.topic, hosts: locked.map(({ uuid, username }) => ({ uuid, username })) }, input.duration);
  const hosts = input.dates.map((date, index) => findTopicHost(topic, date.username, `/dates/${index}/username`));
  const paid = isPaidTopic(topic);

  const errors: FieldError[] = validateBookingAgainstTopic(input, { ...topic, paid }, account.places);
  // Only a gateway the account enabled and configured can take the money.
  const refusal = paid && input.gateway !== undefined ? await gatewayRefusal(trx, account.uuid, input.gateway, secretKey) : null;
  if (refusal !== null) errors.push({ path: '/gateway', message: refusal });
  // A collective booking's dates all hold the same hosts, whichever one each names.
  errors.push(...findOverlappingDates(starts.map((start, i) => ({ start, end: meetingEnd(topic, start), host: collective ? topic.uuid : hosts[i]!.uuid }))));
  if (errors.length > 0) throw new ValidationError(errors);
  // Without a named variant, the price of the chosen length (a variant for it), else the topic's own.
  if (input.priceVariant !== undefined && !topic.priceVariants.some((candidate) => candidate.uuid === input.priceVariant)) {
    throw new NotFoundError('price variant of this meeting topic');
  }
  const priceVariantUuid = priceVariantForLength(topic, input.priceVariant);
  const discount = input.discount === undefined ? null : await findUsableDiscount(trx, account.uuid, input.discount, now, paid ? basePrice(topic, priceVariantUuid) : null);
  return { account, topic, hosts, locked: new Map(locked.map((host) => [host.uuid, host])), collective, paid, priceVariantUuid, discount };
}

/**
 * A stand-in books only starts inside a time off of one of the topic's hosts that names them
 * (the calculation offers them nowhere else); any other date naming them is not a host's.
 */
async function checkStandInDates(
  trx: Trx,
  topic: MeetingTopic,
  hosts: readonly LockedHost[],
  standIns: readonly LockedHost[],
  input: ScheduleInput,
  starts: number[],
): Promise<void> {
  const topicHosts = (await findTopic(trx, topic.accountUuid, topic.uuid))?.hosts ?? [];
  const spans = await findDelegatedSpans(trx, [...new Set([...topicHosts, ...hosts].map((host) => host.uuid))], Math.min(...starts), Math.max(...starts) + 1);
  const errors: FieldError[] = [];
  input.dates.forEach((date, index) => {
    const standIn = standIns.find((candidate) => candidate.username === date.username);
    if (!standIn) return;
    const start = starts[index]!;
    if (!spans.some((span) => span.delegateUuid === standIn.uuid && span.start <= start && start < span.end)) {
      errors.push({ path: `/dates/${index}/username`, message: 'is not a host of this meeting topic at that time' });
    }
  });
  if (errors.length > 0) throw new ValidationError(errors);
}

/**
 * A collective booking's locks: every active host of the topic, one at a time in uuid order,
 * the order every locker of several hosts keeps (a reschedule, a payment's settlement), so
 * two collective bookings, or one and a booking of any single one of its hosts, never wait
 * on each other in a cycle. Returned in the topic's order (the meeting lists its hosts so).
 */
async function lockEveryTopicHost(trx: Trx, topic: MeetingTopic): Promise<LockedHost[]> {
  const hosts = (await findTopic(trx, topic.accountUuid, topic.uuid))?.hosts ?? [];
  const byUuid = new Map<string, LockedHost>();
  for (const host of [...hosts].sort((a, b) => (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0))) {
    // Locked by username as any booking locks a host: one deactivated meanwhile is no longer found.
    const [locked] = await lockTopicHosts(trx, topic.uuid, [host.username]);
    if (locked) byUuid.set(locked.uuid, locked);
  }
  return hosts.map((host) => byUuid.get(host.uuid)).filter((host): host is LockedHost => host !== undefined);
}

/**
 * Reads the locked hosts' calendars and checks each date; later dates of the request must
 * respect earlier ones (buffers, daily, weekly and monthly limits), as if those were already booked. Returns the
 * hosts' own place details, read with the lock.
 */
async function checkDatesUnderLock(trx: DbOrTrx, plan: BookingPlan, starts: number[], now: number): Promise<Map<string, PlaceDetails>> {
  const rules = slotRulesOf(plan.topic);
  // Whole weeks and months around the dates when a weekly or monthly limit counts them (the topic's or a host's).
  const { from, to } = bookingCalendarSpan(
    rules,
    Math.min(...starts),
    Math.max(...starts) + plan.topic.durationMinutes * 60_000,
    [...plan.locked.values()].map((locked) => locked.limits),
  );
  const calendars = new Map<string, HostCalendar>();
  const placeDetails = new Map<string, PlaceDetails>();
  for (const locked of plan.locked.values()) {
    // Under the lock, the calendar is read as the calculation reads it, with the hours and limits the lock returned.
    placeDetails.set(locked.uuid, JSON.parse(locked.placeDetailsJson) as PlaceDetails);
    const reads: FastReads = { ...createKyselyReads(trx), findAvailabilityJson: async () => locked.availabilityJson, findHostLimits: async () => locked.limits };
    calendars.set(locked.uuid, await loadHostCalendar(reads, locked, rules, from, to, now));
  }
  const unavailable: FieldError[] = [];
  starts.forEach((start, index) => {
    // A collective date needs every host free; any other, the host it names.
    const holders = plan.collective ? [...calendars.values()] : [calendars.get(plan.hosts[index]!.uuid)!];
    // With seats, a start some participants already hold is bookable until it is full.
    if (!holders.every((calendar) => isSeatAvailable(calendar, rules, now, start))) {
      unavailable.push({ path: `/dates/${index}`, message: 'is not an available slot' });
      return;
    }
    for (const calendar of holders) calendar.busy.push(asBusy(plan.topic, start));
  });
  if (unavailable.length > 0) throw new SlotUnavailableError(unavailable);
  return placeDetails;
}

/** The meetings and the payment to store; nothing to pay (free, or fully discounted) confirms at once. */
function buildBooking(plan: BookingPlan, input: ScheduleInput, starts: number[], amountDue: Money | null, locations: MeetingLocation[], now: number): Omit<Booking, 'replayed'> {
  const { account, topic, hosts } = plan;
  const needsPayment = amountDue !== null && amountDue.amount > 0;
  const bookingUuid = newId(now);
  const holdExpiresAt = needsPayment ? now + PAYMENT_HOLD_MS : null;
  // A request holds its slot until the host decides, at most until its deadline; payment is asked for after approval.
  const holdOf = (start: number) => (topic.requiresApproval ? approvalDeadline(now, start, topic.approvalDeadlineHours) : holdExpiresAt);
  const meetings: Meeting[] = starts.map((start, index) => ({
    uuid: newId(now),
    accountUuid: account.uuid,
    topicUuid: topic.uuid,
    teamUuid: topic.teamUuid,
    hostUuid: hosts[index]!.uuid,
    hostUsername: hosts[index]!.username,
    // A collective meeting holds every other host too, in the topic's order.
    ...(plan.collective ? { coHosts: topic.hosts.filter((host) => host.uuid !== hosts[index]!.uuid).map(({ uuid, username }) => ({ uuid, username })) } : {}),
    bookingUuid,
    start,
    end: meetingEnd(topic, start),
    status: topic.requiresApproval ? 'pending_approval' : needsPayment ? 'pending_payment' : 'confirmed',
    holdExpiresAt: holdOf(start),
    place: input.place,
    location: locations[index]!,
    participant: {
      name: input.name.trim(),
      email: input.email.trim(),
      phone: input.phone?.trim() || null,
      timezone: input.timezone,
      lang: input.lang,
      locale: input.locale === undefined ? null : participantLocale(input.locale, input.lang),
    },
    note: input.note ?? null,
    guests: (input.guests ?? []).map((guest) => guest.trim()),
    priceVariantUuid: plan.priceVariantUuid,
    form: cleanFormAnswers(input.form ?? {}, topic.form),
    metadata: input.metadata ?? {},
    invoice: collectInvoice(input),
    sequence: 0,
    createdAt: now,
    updatedAt: now,
    cancelledAt: null,
    cancelReason: null,
    bookedByKeyUuid: plan.bookedByKeyUuid,
    noShow: null,
    declineReason: null,
  }));
  const payment: Payment | null = needsPayment
    ? {
        uuid: newId(now),
        accountUuid: account.uuid,
        bookingUuid,
        gateway: input.gateway!,
        status: 'pending',
        amount: amountDue.amount,
        currency: amountDue.currency,
        // Reset when the request is approved (approveMeeting): the participant pays only then.
        expiresAt: topic.requiresApproval ? Math.max(...meetings.map((meeting) => meeting.holdExpiresAt!)) + PAYMENT_HOLD_MS : holdExpiresAt!,
        createdAt: now,
        discountCode: plan.discount?.code ?? null,
        discountCodeUuid: plan.discount?.uuid ?? null,
        paidAt: null,
        refundedAmount: 0,
        gatewayTransactionId: null,
      }
    : null;
  return { meetings, payment };
}

/**
 * Writes the booking and records `meeting.scheduled` for each meeting, and `payment.pending`
 * for a payment (the start of its audit trail; it mails the pay link and the deadline).
 */
async function storeBooking(trx: DbOrTrx, plan: BookingPlan, booking: Omit<Booking, 'replayed'>, now: number, publicUrl: string): Promise<void> {
  // The hosts' calendar versions were bumped when they were locked (lockTopicHosts).
  await insertMeetings(trx, booking.meetings);
  // A use counts only for a paid booking; the conditional update keeps the limit under concurrency.
  if (plan.discount && plan.paid && !(await useDiscountCode(trx, plan.discount.uuid))) throw new DiscountInvalidError('has been used up');
  if (booking.payment) await insertPayment(trx, booking.payment);
  // A request is `meeting.requested` (the "request received" e-mail), never `meeting.scheduled`.
  const type = plan.topic.requiresApproval ? ('meeting.requested' as const) : ('meeting.scheduled' as const);
  await recordEvents(
    trx,
    booking.meetings.map((meeting) => ({ accountUuid: meeting.accountUuid, type, subjectUuid: meeting.uuid, data: { meeting } })),
    now,
  );
  // A request's payment is asked for when it is approved.
  if (booking.payment && !plan.topic.requiresApproval) {
    const data = { payment: paymentRecord(booking.payment, publicUrl), meetings: booking.meetings.map((meeting) => meeting.uuid) };
    await recordEvents(trx, [{ accountUuid: booking.payment.accountUuid, type: 'payment.pending', subjectUuid: booking.payment.uuid, data }], now);
  }
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

/** The code named in the request, if it exists and can be used now (422 otherwise). */
export async function findUsableDiscount(trx: DbOrTrx, accountUuid: string, code: string, now: number, price: Money | null): Promise<DiscountCode> {
  const discount = await findDiscountByCode(trx, accountUuid, normalizeDiscountCode(code));
  if (!discount) throw new DiscountInvalidError('is not a known discount code');
  const refusal = discountRefusal(discount, now, price ?? { amount: 0, currency: discount.amountOff?.currency ?? 'XXX' });
  if (refusal) throw new DiscountInvalidError(refusal);
  return discount;
}

function meetingEnd(topic: MeetingTopic, start: number): number {
  return start + topic.durationMinutes * 60_000;
}

function asBusy(topic: MeetingTopic, start: number): BusyMeeting {
  return { start, end: meetingEnd(topic, start), bufferBeforeMinutes: topic.bufferBeforeMinutes, bufferAfterMinutes: topic.bufferAfterMinutes, topicUuid: topic.uuid };
}
