import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import type { RenderedMessage } from './message.js';

export interface MailTransport {
  /** Delivers one message or throws; the outbox decides about retries. */
  send(message: RenderedMessage, id: string): Promise<void>;
  close(): void;
  describe(): string;
  /**
   * Deletes what this transport kept of the messages (by the ids they were sent with), when a
   * participant is erased: the `.eml` files written without SMTP; the number deleted. SMTP
   * keeps nothing (what was sent is in the recipients' mailboxes), so it has none.
   */
  forget?(ids: readonly string[]): Promise<number>;
}

export interface MailSettings {
  smtpUrl: string | null;
  from: string;
  outboxDir: string;
  /** SMTP connections open at once (default 10), each reused for up to `maxMessagesPerConnection` messages (default 100). */
  maxConnections?: number;
  maxMessagesPerConnection?: number;
}

/**
 * SMTP when `SMTP_URL` is set; otherwise every message is written as an `.eml` file, so a
 * bare installation loses nothing and an operator can read what would have been sent.
 */
export function createMailTransport(settings: MailSettings): MailTransport {
  if (settings.smtpUrl !== null) {
    // Bounded well inside an e-mail job's 60 s lease (nodemailer waits up to 2 min to connect
    // and 10 min on a silent socket by default): a send still running when the lease ends
    // would be made a second time by whoever claims the job next.
    // Pooled: a connection and its (STARTTLS) handshake serve many messages, several
    // connections side by side. One connection per message kept up with ~4.5 messages/s
    // against a TLS server, so a booking peak left confirmations minutes late. A message
    // waits in the pool's queue only while every connection is busy; the outbox runs a
    // bounded number of e-mail jobs at once, so that wait stays far below the lease.
    const transporter = nodemailer.createTransport(
      {
        url: settings.smtpUrl,
        pool: true,
        maxConnections: settings.maxConnections ?? 10,
        maxMessages: settings.maxMessagesPerConnection ?? 100,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 20_000,
      },
      { from: settings.from },
    );
    const host = new URL(settings.smtpUrl).host;
    return {
      async send(message, id) {
        await transporter.sendMail(toMailOptions(message, settings.from, id));
      },
      close: () => transporter.close(),
      describe: () => `SMTP ${host}`,
    };
  }
  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(message, id) {
      const info = await transporter.sendMail(toMailOptions(message, settings.from, id));
      await fs.mkdir(settings.outboxDir, { recursive: true });
      const file = path.join(settings.outboxDir, `${id}.eml`);
      // Write then rename: a reader never sees half a message.
      await fs.writeFile(`${file}.tmp`, info.message as Buffer);
      await fs.rename(`${file}.tmp`, file);
    },
    close: () => transporter.close(),
    describe: () => `files in ${settings.outboxDir}`,
    async forget(ids) {
      let deleted = 0;
      for (const id of ids) {
        // Ids are job uuids; anything else is not a file of ours.
        if (!/^[0-9a-f-]{36}$/.test(id)) continue;
        try {
          await fs.unlink(path.join(settings.outboxDir, `${id}.eml`));
          deleted += 1;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
      }
      return deleted;
    },
  };
}

function toMailOptions(message: RenderedMessage, from: string, id: string): SendMailOptions {
  return {
    from,
    to: { name: message.to.name, address: message.to.email },
    subject: message.subject,
    text: message.text,
    html: message.html,
    messageId: `<${id}@termin>`,
    // As an alternative part and an attachment: what Outlook, Gmail and Apple Mail look for.
    // A notice (NO_INVITATION) carries no calendar part at all.
    ...(message.ics.content === '' ? {} : { icalEvent: { method: message.ics.method, filename: 'invite.ics', content: message.ics.content } }),
  };
}
