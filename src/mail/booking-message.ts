import type { Place } from '../domain/account.js';
import type { Lang } from '../domain/meeting.js';

/**
 * Everything needed to render one booking message, captured when the booking commits, so
 * the outbox can send it later (after a restart, from another instance) exactly as it was.
 */
export interface BookingMessagePayload {
  event: 'confirmed' | 'cancelled';
  recipient: 'participant' | 'host';
  to: { name: string; email: string };
  lang: Lang;
  /** The recipient's zone: times are shown as they will live them. */
  timezone: string;
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
  };
  organizer: { name: string; email: string };
  attendee: { name: string; email: string };
}

/** The outbox kind of one e-mail to send. */
export const EMAIL_JOB_KIND = 'email';
