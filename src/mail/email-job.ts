import { PermanentJobError, type JobHandler } from '../outbox/job-handler.js';
import { EMAIL_JOB_KIND, type BookingMessagePayload } from './booking-message.js';
import { renderBookingMessage } from './render.js';
import { escapeHtml } from '../domain/text.js';
import { NO_INVITATION, type MailTransport } from './transport.js';
import type { RenderedMessage } from './render.js';

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

/**
 * The `email` job: renders the message captured when it was queued and hands it to the
 * transport. At least once: a crash between the SMTP server's acceptance and the job's
 * completion sends it again (the job's uuid is the Message-ID, so clients can tell).
 */
export function createEmailSender(transport: MailTransport): JobHandler {
  return {
    kind: EMAIL_JOB_KIND,
    async handle(job) {
      const payload = job.payload as BookingMessagePayload | NoticeMessagePayload;
      if (typeof payload !== 'object' || payload === null || typeof payload.to?.email !== 'string') throw new PermanentJobError('an e-mail job without a recipient');
      await transport.send('notice' in payload ? renderNotice(payload) : renderBookingMessage(payload), job.uuid);
    },
  };
}
