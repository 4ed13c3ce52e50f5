import type { Meeting, MeetingStatus } from './meeting.js';
import type { Connection } from './integrations.js';
import type { RefundReason } from './payment.js';
import type { MeetingLocation } from './place-details.js';
import type { PaymentRecord } from './representations.js';
import type { Member } from './user.js';

/**
 * What happened, as use cases record it in the transaction that made it happen. Events are
 * kept as the history of their subject (a meeting's, a payment's audit trail) and fanned out
 * after commit into e-mails and, for the types subscribers can choose, webhook deliveries.
 */
export const WEBHOOK_EVENT_TYPES = [
  'meeting.scheduled',
  'meeting.confirmed',
  'meeting.rescheduled',
  'meeting.cancelled',
  'meeting.expired',
  /** The meeting's room exists: its location now has the join link (integrations). */
  'meeting.located',
  /** The provider refused the meeting's room for good: its location says `status: "failed"` and why; the host sends a link. */
  'meeting.location_failed',
  'payment.paid',
  'payment.refunded',
  'member.created',
  'member.deleted',
  'connection.error',
  /** Someone did not come: `noShow` set after the start, or cleared (null). */
  'meeting.no_show',
  /** A booking of a topic that requires approval: `pending_approval`, holding the slot. */
  'meeting.requested',
  'meeting.approved',
  /** By the host (with their reason) or by the deadline ("not approved in time"). */
  'meeting.declined',
  /** A reminder went out (e-mail queued, or SMS taken by the provider): `reminder` says which. */
  'meeting.reminder_sent',
  /** A participant's personal data was erased (on request, or by the account's retention): `{ meetings: [uuids] }`, never the e-mail. */
  'participant.erased',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Internal history only (the payment's audit trail), never sent to webhooks. */
export const HISTORY_EVENT_TYPES = [
  'payment.pending',
  'payment.expired',
  'payment.failed',
  'payment.refund_failed',
  /** A reminder not sent: picked up after the start (an outage), or no phone for an SMS. */
  'meeting.reminder_skipped',
  /** The SMS provider refused a reminder to the last retry. */
  'meeting.reminder_failed',
] as const;
/**
 * Signals between use cases and reactions, kept like every event but never offered to webhook
 * subscribers (they are not in WEBHOOK_EVENT_TYPES, so no subscription can name them).
 * `meeting.confirmation_due`: the room's deadline passed, or the host has no working
 * connection: the confirmations go out now without a link (saying it follows).
 */
export const INTERNAL_EVENT_TYPES = ['meeting.confirmation_due'] as const;
export type EventType = WebhookEventType | (typeof HISTORY_EVENT_TYPES)[number] | (typeof INTERNAL_EVENT_TYPES)[number];

export function isWebhookEventType(type: string): type is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(type);
}

/** The data of every `meeting.*` event: the meeting as it is after the change. */
export interface MeetingEventData {
  meeting: Meeting;
  /** The status before the change (a cancellation mails only what had been confirmed). */
  previousStatus?: MeetingStatus;
}

/** `meeting.rescheduled` also records where and when the meeting was before. */
export interface RescheduledEventData extends MeetingEventData {
  previous: { start: number; end: number; hostUuid: string; username: string; location?: MeetingLocation | undefined };
}

/** `meeting.reminder_*`: the meeting as it was, and which reminder, with what became of it. */
export interface ReminderEventData extends MeetingEventData {
  reminder: { minutesBefore: number; channel: 'email' | 'sms'; to: 'participant' | 'host'; status: 'sent' | 'skipped' | 'failed'; detail: string | null };
}

/** What a `member.*` event records: the member as the API shows them, and the team concerned. */
export interface MemberEventData {
  member: Member;
  teamUuid: string;
}

/**
 * `meeting.located`: the meeting's conference room exists (its link is now the location).
 * `confirmationsSent`: the confirmations had gone out already, so this sends an update of the
 * invitation instead of them. (A deadline passed without a room is `meeting.confirmation_due`.)
 */
export interface LocatedEventData extends MeetingEventData {
  confirmationsSent: boolean;
}

/**
 * `meeting.location_failed`: the provider refused the meeting's room for good (its location is
 * `failed`, with the reason). `confirmationsSent`: they had gone out already (saying the link
 * follows); otherwise this sends them, saying the host will send the link.
 */
export interface LocationFailedEventData extends MeetingEventData {
  confirmationsSent: boolean;
}

/** `connection.error`: a host's connection the provider refused, as the API shows it. */
export interface ConnectionEventData {
  connection: Connection;
}

/** `payment.pending`, `payment.expired`, `payment.failed`: the payment as the API shows it, and its booking's meetings. */
export interface PaymentEventData {
  payment: PaymentRecord;
  meetings: string[];
}

/** `payment.paid`; `late`: it came after the booking's hold had lapsed, so its slots were checked again. */
export interface PaidEventData extends PaymentEventData {
  late: boolean;
}

/** The refund that `payment.refunded` and `payment.refund_failed` are about. */
export interface RefundEventData {
  uuid: string;
  amount: number;
  currency: string;
  reason: RefundReason;
  /** The cancelled meeting whose share this is; null for a whole payment. */
  meeting: string | null;
}

/** `payment.refunded`: the payment after the refund, the refund, and the booking it was for. */
export interface RefundedEventData {
  payment: PaymentRecord;
  refund: RefundEventData;
  bookingUuid: string;
}

/** `payment.refund_failed` also says why the gateway refused. */
export interface RefundFailedEventData extends RefundedEventData {
  error: string;
}

/** `participant.erased`: the meetings whose participant's personal data was erased; never who they were. */
export interface ParticipantErasedEventData {
  meetings: string[];
}

/**
 * What each type of event carries in `data`. Every type must be here: `DomainEvent` indexes
 * this by every EventType, so a type without its data does not compile.
 */
export interface EventDataOfType {
  'meeting.scheduled': MeetingEventData;
  'meeting.requested': MeetingEventData;
  'meeting.confirmed': MeetingEventData;
  'meeting.approved': MeetingEventData;
  'meeting.declined': MeetingEventData;
  'meeting.rescheduled': RescheduledEventData;
  'meeting.cancelled': MeetingEventData;
  'meeting.expired': MeetingEventData;
  'meeting.no_show': MeetingEventData;
  'meeting.located': LocatedEventData;
  'meeting.location_failed': LocationFailedEventData;
  'meeting.confirmation_due': MeetingEventData;
  'meeting.reminder_sent': ReminderEventData;
  'meeting.reminder_skipped': ReminderEventData;
  'meeting.reminder_failed': ReminderEventData;
  'payment.pending': PaymentEventData;
  'payment.paid': PaidEventData;
  'payment.expired': PaymentEventData;
  'payment.failed': PaymentEventData;
  'payment.refunded': RefundedEventData;
  'payment.refund_failed': RefundFailedEventData;
  'member.created': MemberEventData;
  'member.deleted': MemberEventData;
  'connection.error': ConnectionEventData;
  'participant.erased': ParticipantErasedEventData;
}

/** An event of one type, with that type's data. */
export interface EventOfType<Type extends EventType> {
  uuid: string;
  accountUuid: string;
  type: Type;
  /** The record the event is about: a meeting, a payment or a user (for `participant.erased`, the erasure's own uuid). */
  subjectUuid: string;
  occurredAt: number;
  data: EventDataOfType[Type];
}

/**
 * What happened, discriminated by `type`: checking `event.type` gives `event.data` its shape.
 *
 * @example
 * if (event.type === 'meeting.rescheduled') moveCopy(event.data.previous); // RescheduledEventData
 */
export type DomainEvent = { [Type in EventType]: EventOfType<Type> }[EventType];

export type MeetingEvent = Extract<DomainEvent, { type: `meeting.${string}` }>;
export type ReminderEvent = Extract<DomainEvent, { type: `meeting.reminder_${string}` }>;
export type PaymentEvent = Extract<DomainEvent, { type: `payment.${string}` }>;

/** A `meeting.*` event: its data holds the meeting as it is after the change. */
export function isMeetingEvent(event: DomainEvent): event is MeetingEvent {
  return event.type.startsWith('meeting.');
}

/**
 * Reminder events say something was sent (or not) about a meeting, not that it changed: the
 * reactions that bring calendars and rooms in line with a meeting ignore them.
 */
export function isReminderEvent(event: DomainEvent): event is ReminderEvent {
  return event.type.startsWith('meeting.reminder_');
}

/** A `payment.*` event: its data holds the payment as the API shows it. */
export function isPaymentEvent(event: DomainEvent): event is PaymentEvent {
  return event.type.startsWith('payment.');
}
