import { escapeHtml } from '../domain/text.js';
import type { BookingMessagePayload } from './booking-message.js';
import { renderBookingMessage, type RenderedMessage } from './render.js';
import { NO_INVITATION } from './transport.js';

/**
 * A message written in full when it is queued: an operational notice (a webhook switched
 * off, …) to the account's admins, in English, with no invitation attached. Queue it as
 * an `email` job's payload like a booking message.
 */
export interface NoticeMessagePayload {
  notice: true;
  to: { name: string; email: string };
  subject: string;
  text: string;
}

/** What an `email` job carries: the facts of a booking message, or a notice written in full. */
export type QueuedMessagePayload = BookingMessagePayload | NoticeMessagePayload;

/** Whether a job's payload is a message at all (it names a recipient). */
export function isQueuedMessage(payload: unknown): payload is QueuedMessagePayload {
  return typeof payload === 'object' && payload !== null && typeof (payload as { to?: { email?: unknown } }).to?.email === 'string';
}

/** The message as it goes out, rendered from what was captured when it was queued. */
export function renderQueuedMessage(payload: QueuedMessagePayload): RenderedMessage {
  return 'notice' in payload ? renderNotice(payload) : renderBookingMessage(payload);
}

function renderNotice(payload: NoticeMessagePayload): RenderedMessage {
  const body = escapeHtml(payload.text).replaceAll('\n', '<br>\n');
  return {
    to: payload.to,
    subject: payload.subject.replace(/[\u0000-\u001F\u007F]+/g, ' '),
    text: payload.text,
    html: `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(payload.subject)}</title></head><body>\n<p>${body}</p>\n</body></html>\n`,
    ics: NO_INVITATION,
  };
}
