import { PermanentJobError, type JobHandler } from '../outbox/job-handler.js';
import { EMAIL_JOB_KIND, type BookingMessagePayload } from './booking-message.js';
import { renderBookingMessage } from './render.js';
import type { MailTransport } from './transport.js';

/**
 * The `email` job: renders the message captured when it was queued and hands it to the
 * transport. At least once: a crash between the SMTP server's acceptance and the job's
 * completion sends it again (the job's uuid is the Message-ID, so clients can tell).
 */
export function createEmailSender(transport: MailTransport): JobHandler {
  return {
    kind: EMAIL_JOB_KIND,
    async handle(job) {
      const payload = job.payload as BookingMessagePayload;
      if (typeof payload !== 'object' || payload === null || typeof payload.to?.email !== 'string') throw new PermanentJobError('an e-mail job without a recipient');
      await transport.send(renderBookingMessage(payload), job.uuid);
    },
  };
}
