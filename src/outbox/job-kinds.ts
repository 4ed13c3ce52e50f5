import { Type, type Static, type TSchema } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';
import { INTEGRATION_PROVIDERS } from '../domain/integrations.js';
import { LANGS } from '../domain/meeting.js';
import { REMINDER_CHANNELS, REMINDER_RECIPIENTS } from '../domain/reminders.js';
import type { DbOrTrx } from '../db/database.js';
import { insertJobs, type JobToInsert } from '../db/repositories/outbox.js';
import { ROOM_NOTICE_KINDS } from '../db/repositories/room-notices.js';
import type { PaymentMessagePayload } from '../mail/booking-message.js';
import type { QueuedMessagePayload } from '../mail/queued-message.js';

/**
 * Every kind of outbox job, with the schema of what its jobs carry. A payload is written as
 * JSON when the job is queued and read back, maybe by a later version of termin, when it runs:
 * the worker checks it against its kind's schema once (src/outbox/worker.ts), and a payload
 * that does not fit is given up at once with `unreadable` as its error. Objects accept
 * properties they do not name, so a job queued with a field since dropped still runs.
 */
const JOB_PAYLOADS = {
  /** Fans one recorded event out into the jobs its reactions imply (src/scheduling/dispatch-event.ts). */
  event: {
    schema: Type.Object({ eventUuid: Type.String() }),
    unreadable: 'an event job without an event',
  },
  /**
   * One e-mail: a booking message's facts or a notice written in full (src/mail). The message
   * is whole when it is queued (its writers are typed by the mail adapter's own types); the
   * sender has only ever needed a recipient, and a message queued before a field existed
   * renders with its default, so the recipient is all that is checked.
   */
  email: {
    schema: Type.Unsafe<QueuedMessagePayload>(Type.Object({ to: Type.Object({ email: Type.String() }) })),
    unreadable: 'an e-mail job without a recipient',
  },
  /** Brings one meeting's copy in one host's calendar in line (src/scheduling/calendars/writes.ts). */
  'calendar-write': {
    schema: Type.Object({ calendarUuid: Type.String(), accountUuid: Type.String(), meetingUuid: Type.String() }),
    unreadable: 'a calendar-write job without its calendar or meeting',
  },
  /** One refund asked of a gateway (src/scheduling/payments/refunds.ts). */
  'payment-refund': {
    schema: Type.Object({ refundUuid: Type.String() }),
    unreadable: 'a refund job without a refund',
  },
  /** One payment e-mail (no invitation attached); checked as far as `email` is, for the same reasons. */
  'payment-email': {
    schema: Type.Unsafe<PaymentMessagePayload>(Type.Object({ to: Type.Object({ email: Type.String() }) })),
    unreadable: 'a payment e-mail job without a recipient',
  },
  /** One attempt of one webhook delivery (src/scheduling/webhooks/delivery.ts). */
  webhook: {
    schema: Type.Object({
      deliveryUuid: Type.String(),
      /** A retry asked for by an admin: attempted even while the subscription is disabled. */
      manual: Type.Optional(Type.Boolean()),
    }),
    unreadable: 'a webhook job without a delivery',
  },
  /** Brings one meeting's conference room in line (src/scheduling/integrations/rooms.ts). */
  'conference-room': {
    schema: Type.Object({
      meetingUuid: Type.String(),
      accountUuid: Type.String(),
      /** The confirmations' deadline: they go out now, without a link, unless the room came first. */
      deadline: Type.Optional(Type.Boolean()),
    }),
    unreadable: 'a conference-room job without its meeting',
  },
  /** One host's digest of meetings at a provider's place still without a link, due an hour after the last notice (src/scheduling/integrations/room-notices.ts). */
  'room-notice-digest': {
    schema: Type.Object({
      accountUuid: Type.String(),
      hostUuid: Type.String(),
      provider: Type.Enum(INTEGRATION_PROVIDERS),
      kind: Type.Enum(ROOM_NOTICE_KINDS),
    }),
    unreadable: 'a room-notice digest without its host, provider or kind',
  },
  /** One reminder of one meeting, due `minutesBefore` before its start (src/scheduling/meetings/reminders.ts). */
  reminder: {
    schema: Type.Object({
      accountUuid: Type.String(),
      meetingUuid: Type.String(),
      /** The start the reminder was planned for: a job for a start the meeting no longer has was superseded by a move. */
      start: Type.Number(),
      minutesBefore: Type.Number(),
      channel: Type.Enum(REMINDER_CHANNELS),
      to: Type.Enum(REMINDER_RECIPIENTS),
    }),
    unreadable: 'a reminder job without its meeting or reminder',
  },
  /**
   * Sign-in links asked for an address, member's or not: the request queues only this, so its
   * answer and its time are the same for anyone (src/scheduling/host-app/sign-in.ts).
   */
  'sign-in-links': {
    schema: Type.Object({ email: Type.String(), lang: Type.Enum(LANGS) }),
    unreadable: 'a sign-in request without an address or language',
  },
} as const satisfies Record<string, { schema: TSchema; unreadable: string }>;

export type JobKind = keyof typeof JOB_PAYLOADS;
/** What a job of kind `K` carries, as its kind's schema types it. */
export type JobPayload<K extends JobKind> = Static<(typeof JOB_PAYLOADS)[K]['schema']>;

export const EVENT_JOB_KIND = 'event' satisfies JobKind;
/** The outbox kind of one e-mail to send. */
export const EMAIL_JOB_KIND = 'email' satisfies JobKind;
export const CALENDAR_WRITE_JOB_KIND = 'calendar-write' satisfies JobKind;
/** The outbox kind of one refund asked of a gateway. */
export const REFUND_JOB_KIND = 'payment-refund' satisfies JobKind;
/** The outbox kind of one payment e-mail (no invitation attached). */
export const PAYMENT_EMAIL_JOB_KIND = 'payment-email' satisfies JobKind;
/** The outbox kind of one delivery attempt. */
export const WEBHOOK_JOB_KIND = 'webhook' satisfies JobKind;
export const CONFERENCE_ROOM_JOB_KIND = 'conference-room' satisfies JobKind;
/** The outbox kind of one host's digest of meetings without a link. */
export const ROOM_NOTICE_DIGEST_JOB_KIND = 'room-notice-digest' satisfies JobKind;
/** The outbox kind of one reminder of one meeting, due `minutesBefore` before its start. */
export const REMINDER_JOB_KIND = 'reminder' satisfies JobKind;
/** The outbox kind of one request for sign-in links (an address, any address). */
export const SIGN_IN_LINKS_JOB_KIND = 'sign-in-links' satisfies JobKind;

export type EventJobPayload = JobPayload<'event'>;
export type CalendarWritePayload = JobPayload<'calendar-write'>;
export type RefundJobPayload = JobPayload<'payment-refund'>;
export type WebhookJobPayload = JobPayload<'webhook'>;
export type ConferenceRoomPayload = JobPayload<'conference-room'>;
export type ReminderJobPayload = JobPayload<'reminder'>;

/** A job to queue, its payload the one its kind carries: a payload that does not fit does not compile. */
export type NewJob = { [K in JobKind]: JobToInsert<K, JobPayload<K>> }[JobKind];

/** Queues jobs in one statement, in the caller's transaction: they exist exactly when it commits. */
export async function enqueueJobs(trx: DbOrTrx, jobs: readonly NewJob[], now: number): Promise<void> {
  await insertJobs(trx, jobs, now);
}

export function isJobKind(kind: string): kind is JobKind {
  return Object.hasOwn(JOB_PAYLOADS, kind);
}

// Each kind's check is compiled once per process, when its first job runs: none at start-up.
const compiled = new Map<JobKind, Validator>();

/**
 * Why a stored payload will never run as a job of `kind` (its kind's `unreadable`), or null
 * when it fits the kind's schema. A kind outside JobKind has no schema (the outbox's own tests
 * run such kinds): its payload is taken as it is.
 *
 * @example
 * payloadProblem('webhook', { deliveryUuid: '0190…' }) // null
 * payloadProblem('webhook', {})                          // 'a webhook job without a delivery'
 */
export function payloadProblem(kind: string, payload: unknown): string | null {
  if (!isJobKind(kind)) return null;
  let validator = compiled.get(kind);
  if (!validator) {
    validator = Compile(JOB_PAYLOADS[kind].schema as TSchema);
    compiled.set(kind, validator);
  }
  return validator.Check(payload) ? null : JOB_PAYLOADS[kind].unreadable;
}
