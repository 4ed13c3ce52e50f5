import { isEmailAddress, type Gateway, type Place } from './account.js';
import type { FieldError } from './errors.js';
import { validateFormAnswers } from './form.js';
import type { Lang } from './lang.js';
import type { MeetingTopic, Money } from './meeting-topic.js';
import type { MeetingLocation } from './place-details.js';

export const MEETING_STATUSES = ['confirmed', 'pending_payment', 'expired', 'cancelled', 'pending_approval', 'declined'] as const;
export type MeetingStatus = (typeof MEETING_STATUSES)[number];

/** Who did not come to a meeting that took place (marked after its start). */
export const NO_SHOW_PARTIES = ['participant', 'host'] as const;
export type NoShow = (typeof NO_SHOW_PARTIES)[number];

export { LANGS, type Lang } from './lang.js';

export interface Participant {
  name: string;
  email: string;
  phone: string | null;
  timezone: string;
  lang: Lang;
  /** How their browser reads dates and times (`en-GB`), for their messages; null: as `lang` reads. */
  locale?: string | null | undefined;
}

/** The invoice fields of a paid booking, echoed under their request names. */
export interface Invoice {
  invoiceName: string | null;
  invoiceAddress: string | null;
  invoicePostalCode: string | null;
  invoiceCity: string | null;
  invoiceTaxNumber: string | null;
}

export interface Meeting {
  uuid: string;
  accountUuid: string;
  topicUuid: string;
  teamUuid: string | null;
  hostUuid: string;
  hostUsername: string;
  bookingUuid: string;
  start: number;
  end: number;
  status: MeetingStatus;
  holdExpiresAt: number | null;
  place: Place;
  /** Where it happens, resolved when booked (host's details, else the topic's, else the participant's phone). */
  location: MeetingLocation;
  participant: Participant;
  note: string | null;
  priceVariantUuid: string | null;
  form: Record<string, unknown>;
  metadata: Record<string, unknown>;
  invoice: Invoice | null;
  /** iCalendar SEQUENCE: bumped on every change the invitation must announce. */
  sequence: number;
  createdAt: number;
  updatedAt: number;
  cancelledAt: number | null;
  cancelReason: string | null;
  /** The API key that booked it (it may cancel it); null when booked without a key. */
  bookedByKeyUuid: string | null;
  /** Who did not come, once the host or an admin says so after the start; null otherwise. */
  noShow: NoShow | null;
  /** Why the request was declined (the host's reason, or "not approved in time"); null otherwise. */
  declineReason: string | null;
  /**
   * A collective meeting's other hosts (every host of its topic but `hostUuid`), in the
   * topic's order; absent or empty: the meeting has one host (events recorded before 0030 carry none).
   */
  coHosts?: MeetingHost[] | undefined;
  /** When the participant's personal data was erased (by request or retention); absent or null: kept. */
  erasedAt?: number | null | undefined;
  /** The participant's guests' e-mail addresses (0043): attendees of the invitation; absent: none. */
  guests?: string[] | undefined;
}

export interface MeetingHost {
  uuid: string;
  username: string;
}

/**
 * Everyone the meeting holds, its named host first:
 * `meetingHosts({ hostUuid: 'a', hostUsername: 'anna', coHosts: [{ uuid: 'b', username: 'bob' }] })`
 * → `[{ uuid: 'a', username: 'anna' }, { uuid: 'b', username: 'bob' }]`.
 */
export function meetingHosts(meeting: Pick<Meeting, 'hostUuid' | 'hostUsername' | 'coHosts'>): MeetingHost[] {
  return [{ uuid: meeting.hostUuid, username: meeting.hostUsername }, ...(meeting.coHosts ?? [])];
}

/** The uuids of everyone the meeting holds: whose calendars a change of it changes. */
export function meetingHostUuids(meeting: Pick<Meeting, 'hostUuid' | 'hostUsername' | 'coHosts'>): string[] {
  return meetingHosts(meeting).map((host) => host.uuid);
}

/** How long a paid booking holds its slot while the participant pays. */
export const PAYMENT_HOLD_MS = 30 * 60_000;

/** The reason a request the host left undecided is declined with. */
export const NOT_APPROVED_IN_TIME = 'not approved in time';

/**
 * The status as of `now`: a payment hold that ran out is `expired`, and a request whose
 * approval deadline passed is `declined`, even before the sweeper has written it, so readers
 * never see a stale `pending_payment` or `pending_approval`.
 */
export function statusAt(meeting: Pick<Meeting, 'status' | 'holdExpiresAt'>, now: number): MeetingStatus {
  if (meeting.status === 'pending_payment' && meeting.holdExpiresAt !== null && meeting.holdExpiresAt <= now) return 'expired';
  if (meeting.status === 'pending_approval' && meeting.holdExpiresAt !== null && meeting.holdExpiresAt <= now) return 'declined';
  return meeting.status;
}

/**
 * The meeting as readers see it at `now` (statusAt): a request past its deadline also shows
 * the reason the sweeper is about to write, so GET never shows a declined request without one.
 */
export function meetingAt(meeting: Meeting, now: number): Meeting {
  const status = statusAt(meeting, now);
  const lapsed = status === 'declined' && meeting.status === 'pending_approval';
  return { ...meeting, status, ...(lapsed ? { declineReason: NOT_APPROVED_IN_TIME } : {}) };
}

/**
 * When an undecided request is declined: `approvalDeadlineHours` after booking, or at the
 * start if that comes first. Booked Monday 08:00 with 24 hours for a Monday 15:00 meeting →
 * Monday 15:00; for a Friday meeting → Tuesday 08:00.
 */
export function approvalDeadline(bookedAt: number, start: number, approvalDeadlineHours: number): number {
  return Math.min(bookedAt + approvalDeadlineHours * 3_600_000, start);
}

/** Collects the invoice fields; null when none was given. */
export function collectInvoice(input: Partial<Record<keyof Invoice, string | undefined>>): Invoice | null {
  const invoice: Invoice = {
    invoiceName: input.invoiceName ?? null,
    invoiceAddress: input.invoiceAddress ?? null,
    invoicePostalCode: input.invoicePostalCode ?? null,
    invoiceCity: input.invoiceCity ?? null,
    invoiceTaxNumber: input.invoiceTaxNumber ?? null,
  };
  return Object.values(invoice).some((value) => value !== null) ? invoice : null;
}

export interface BookingRequestFacts {
  place: Place;
  phone?: string | undefined;
  gateway?: Gateway | undefined;
  form?: Record<string, unknown> | undefined;
  email?: string | undefined;
  guests?: string[] | undefined;
}

/** Most guests one booking may bring. */
export const MAX_GUESTS = 10;

/**
 * A booking's guests against the topic: only a topic that allows guests takes them, at most
 * 10 addresses, each once and none the participant's own (compared without case, as mail
 * servers deliver). `checkGuests(['a@x.pl', 'A@x.pl'], true, 'jan@x.pl')` → an error at `/guests/1`.
 */
export function checkGuests(guests: readonly string[] | undefined, allowGuests: boolean, participantEmail: string | undefined): FieldError[] {
  if (guests === undefined || guests.length === 0) return [];
  if (!allowGuests) return [{ path: '/guests', message: 'the meeting topic does not allow guests' }];
  if (guests.length > MAX_GUESTS) return [{ path: '/guests', message: `must list at most ${MAX_GUESTS} guests` }];
  const errors: FieldError[] = [];
  const seen = new Set<string>(participantEmail === undefined ? [] : [participantEmail.trim().toLowerCase()]);
  guests.forEach((guest, index) => {
    const key = guest.trim().toLowerCase();
    if (!isEmailAddress(guest)) errors.push({ path: `/guests/${index}`, message: 'must be an e-mail address' });
    else if (seen.has(key)) errors.push({ path: `/guests/${index}`, message: 'is listed already (or is the participant)' });
    seen.add(key);
  });
  return errors;
}

/**
 * The topic-dependent rules of a booking request that the schema cannot check, each
 * reported at its field: `place` must be enabled for the account and offered by the topic,
 * `phone` when the topic requires it, `gateway` when the topic is paid, the answers to the
 * topic's questions (see validateFormAnswers in form.ts: no unknown keys, typed, required ones).
 */
export function validateBookingAgainstTopic(
  request: BookingRequestFacts,
  topic: Pick<MeetingTopic, 'places' | 'phoneRequired' | 'form' | 'allowGuests'> & { paid: boolean },
  accountPlaces: readonly Place[],
): FieldError[] {
  const errors: FieldError[] = [];
  if (!accountPlaces.includes(request.place)) {
    errors.push({ path: '/place', message: `is not enabled for the account (enabled: ${accountPlaces.join(', ')})` });
  } else if (!topic.places.includes(request.place)) {
    errors.push({ path: '/place', message: `is not offered by the meeting topic (offered: ${topic.places.join(', ')})` });
  }
  if (topic.phoneRequired && (request.phone === undefined || request.phone.trim() === '')) {
    errors.push({ path: '/phone', message: 'is required by the meeting topic' });
  }
  if (topic.paid && request.gateway === undefined) errors.push({ path: '/gateway', message: 'is required: the meeting topic is paid' });
  errors.push(...validateFormAnswers(request.form ?? {}, topic.form));
  errors.push(...checkGuests(request.guests, topic.allowGuests, request.email));
  return errors;
}

/**
 * Entries of one request that overlap for the same host: `[{09:00–09:30 anna}, {09:15–09:45 anna}]`
 * → an error at `/dates/1`. Half-open: back-to-back meetings do not overlap.
 */
export function findOverlappingDates(dates: readonly { start: number; end: number; host: string }[]): FieldError[] {
  const errors: FieldError[] = [];
  dates.forEach((date, index) => {
    const earlier = dates.findIndex((other, j) => j < index && other.host === date.host && other.start < date.end && date.start < other.end);
    if (earlier !== -1) errors.push({ path: `/dates/${index}`, message: `overlaps /dates/${earlier} for the same host` });
  });
  return errors;
}

/** The price to pay: the variant's if one is chosen, else the topic's. */
export function basePrice(topic: Pick<MeetingTopic, 'price' | 'priceVariants'>, priceVariantUuid: string | null): Money | null {
  if (priceVariantUuid !== null) return topic.priceVariants.find((variant) => variant.uuid === priceVariantUuid)?.price ?? null;
  return topic.price ?? topic.priceVariants[0]?.price ?? null;
}

/** The participant's own locale for their messages, when their browser gave one: `{}` leaves them to their `lang`. */
export function participantLocaleOf(meeting: Pick<Meeting, 'participant'>): { locale?: string } {
  return meeting.participant.locale ? { locale: meeting.participant.locale } : {};
}
