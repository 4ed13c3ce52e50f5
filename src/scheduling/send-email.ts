import { renderQueuedMessage } from '../mail/queued-message.js';
import type { MailTransport } from '../mail/transport.js';
import type { JobHandler } from '../outbox/job-handler.js';
import { EMAIL_JOB_KIND } from '../outbox/job-kinds.js';

/**
 * The `email` job: renders the message captured when it was queued and hands it to the
 * transport. At least once: a crash between the SMTP server's acceptance and the job's
 * completion sends it again (the job's uuid is the Message-ID, so clients can tell).
 */
export function createEmailSender(transport: MailTransport): JobHandler<'email'> {
  return {
    kind: EMAIL_JOB_KIND,
    async handle(job) {
      await transport.send(renderQueuedMessage(job.payload), job.uuid);
    },
  };
}
