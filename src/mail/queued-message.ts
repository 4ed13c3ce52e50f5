import type { Lang } from '../domain/meeting.js';
import type { BookingMessagePayload } from './booking-message.js';
import type { MessageBranding, RenderedMessage } from './message.js';
import { renderBookingMessage, renderNoticeMessage } from './render.js';

/**
 * A message written in full when it is queued: an operational notice (a webhook switched
 * off, a connection that stopped working, …) in its reader's language (locales/<lang>/notices.json),
 * with no invitation attached. Queue it as
 * an `email` job's payload like a booking message.
 */
export interface NoticeMessagePayload {
  notice: true;
  to: { name: string; email: string };
  /** The language it is written in (the HTML part says so); absent: English. */
  lang?: Lang | undefined;
  subject: string;
  text: string;
  /** The business's look (see MessageBranding); absent: termin's. */
  branding?: MessageBranding | undefined;
}

/** What an `email` job carries: the facts of a booking message, or a notice written in full. */
export type QueuedMessagePayload = BookingMessagePayload | NoticeMessagePayload;

/** The message as it goes out, rendered from what was captured when it was queued. */
export function renderQueuedMessage(payload: QueuedMessagePayload): RenderedMessage {
  return 'notice' in payload ? renderNotice(payload) : renderBookingMessage(payload);
}

function renderNotice(payload: NoticeMessagePayload): RenderedMessage {
  return renderNoticeMessage(payload.lang ?? 'en', payload.to, payload.subject.replace(/[\u0000-\u001F\u007F]+/g, ' '), payload.text, payload.branding);
}
