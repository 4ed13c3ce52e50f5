import type { Place } from '../domain/account.js';
import type { AnsweredQuestion } from '../domain/form.js';
import type { Invoice, Lang } from '../domain/meeting.js';
import type { MeetingLocation } from '../domain/place-details.js';
import type { MessageBranding } from './message.js';

/** Who reads a message about a meeting, and how: their side of it, language, locale and zone. */
export interface MessageReader {
  /** `guest`: one the participant brought (`guests`), who reads the participant's message without its manage link. */
  recipient: 'participant' | 'host' | 'guest';
  to: { name: string; email: string };
  lang: Lang;
  /** The recipient's own locale (`en-GB`) for dates, times and money; absent: as `lang` reads. */
  locale?: string | undefined;
  /** The recipient's zone: times are shown as they will live them. */
  timezone: string;
}

/**
 * Everything needed to render one booking message, captured when the booking commits, so
 * the outbox can send it later (after a restart, from another instance) exactly as it was.
 */
export interface BookingMessagePayload extends PaidDetails, MessageReader {
  /**
   * `rescheduled`: an updated invitation (same UID, higher SEQUENCE) for a meeting that moved;
   * `located`: an updated invitation carrying the link of the meeting's room, made after the confirmation went out.
   */
  event: 'confirmed' | 'cancelled' | 'rescheduled' | 'located';
  accountName: string;
  meeting: {
    uuid: string;
    topicName: string;
    start: number;
    end: number;
    place: Place;
    sequence: number;
    note: string | null;
    cancelReason: string | null;
    phone: string | null;
    /** Where it happens (address, link or number); absent in messages queued before locations existed. */
    location?: MeetingLocation | null | undefined;
  };
  /** The host's message: the participant's answers to the topic's questions, in question order. */
  answers?: AnsweredQuestion[] | undefined;
  organizer: { name: string; email: string };
  attendee: { name: string; email: string };
  /** The participant's guests' addresses: attendees of the invitation, listed in the message; absent in messages queued before guests existed. */
  guests?: string[] | undefined;
  /** A moved meeting: where it was, shown beside the new time. */
  previous?: { start: number; end: number } | undefined;
  /** The meeting's private manage link `{PUBLIC_URL}/booking/{token}` (in the participant's and the host's messages). */
  manageUrl?: string | undefined;
  /** The meeting's place gets a room whose link is not there yet: the message says it follows. */
  linkFollows?: boolean | undefined;
  /** The provider refused the meeting's room for good: the participant's message says the host will send the link, the host's asks them to. */
  linkFromHost?: boolean | undefined;
  /**
   * The host's message about a seat of a group meeting (a topic with seats): its invitation is
   * the group's one invitation, listing the confirmed participants as they are now, under the
   * group's UID and a SEQUENCE raised on every change; cancelled only when nobody is left.
   */
  group?: { uid: string; sequence: number; attendees: { name: string; email: string }[] } | undefined;
  /** The reader's earliest reminder, as a VALARM in the invitation this long before the start; absent: none. */
  alarmMinutesBefore?: number | undefined;
  /** The participant's confirmation: the topic's `confirmationMessage` in their language (plain text, links made clickable in HTML). */
  confirmationMessage?: string | undefined;
  /** The business's name, logo and colour; absent (messages queued before branding): termin's look. */
  branding?: MessageBranding | undefined;
}

/** A paid booking's confirmation: what was paid, and the invoice details the participant gave. */
export interface PaidDetails {
  paid?: { amount: number; currency: string } | undefined;
  invoice?: Invoice | null | undefined;
}

/**
 * A message about a booking's payment, to the participant, in their language: `pending`
 * (the amount, the pay link and the deadline), `released` (the hold lapsed or the payment
 * failed: the slot was released), `refunded` (the amount that goes back, and why).
 */
export interface PaymentMessagePayload {
  event: 'pending' | 'released' | 'refunded';
  to: { name: string; email: string };
  lang: Lang;
  /** The participant's own locale (`en-GB`) for dates, times and money; absent: as `lang` reads. */
  locale?: string | undefined;
  timezone: string;
  accountName: string;
  topicName: string;
  meetings: { start: number; end: number }[];
  amount: number;
  currency: string;
  /** pending: `{PUBLIC_URL}/pay/{uuid}` and when the hold lapses. */
  payUrl?: string | undefined;
  deadline?: number | undefined;
  /** refunded: a cancelled meeting's share, or a late payment whose slot was taken. */
  refundReason?: 'cancelled' | 'slot_taken' | undefined;
  branding?: MessageBranding | undefined;
}
