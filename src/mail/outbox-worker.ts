import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import { claimMessage, findDueMessages, markMessageFailed, markMessageSent } from '../db/repositories/outbox.js';
import { BOOKING_MESSAGE_KIND, type BookingMessagePayload } from './booking-message.js';
import { renderBookingMessage } from './render.js';
import type { MailTransport } from './transport.js';

export interface OutboxWorkerOptions {
  db: Db;
  transport: MailTransport;
  log: Logger;
  now: () => number;
  batchSize?: number;
  /** A claimed message is retried by anyone after this long (its sender may have died). */
  leaseMs?: number;
  maxAttempts?: number;
}

const BASE_RETRY_MS = 5_000;
const MAX_RETRY_MS = 3_600_000;

/** Delay before attempt n+1: 5 s, 10 s, 20 s … capped at an hour, with jitter. */
export function retryDelayMs(attempts: number): number {
  const exponential = Math.min(BASE_RETRY_MS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_MS);
  return Math.round(exponential * (0.8 + Math.random() * 0.4));
}

/**
 * Sends every due message once: claim (so only one instance sends it), send, record.
 * A failure schedules a retry with backoff; the booking that queued it is never affected.
 */
export async function sendDueMessages(options: OutboxWorkerOptions): Promise<{ sent: number; failed: number }> {
  const { db, transport, log, now } = options;
  const leaseMs = options.leaseMs ?? 60_000;
  const maxAttempts = options.maxAttempts ?? 20;
  let sent = 0;
  let failed = 0;
  for (const message of await findDueMessages(db, now(), options.batchSize ?? 50)) {
    if (!(await claimMessage(db, message.uuid, now(), leaseMs))) continue;
    try {
      if (message.kind !== BOOKING_MESSAGE_KIND) throw new Error(`unknown message kind ${message.kind}`);
      await transport.send(renderBookingMessage(message.payload as BookingMessagePayload), message.uuid);
      await markMessageSent(db, message.uuid, now());
      sent += 1;
    } catch (error) {
      failed += 1;
      const attempts = message.attempts + 1;
      const reason = error instanceof Error ? error.message : String(error);
      const nextAttemptAt = attempts >= maxAttempts ? null : now() + retryDelayMs(attempts);
      await markMessageFailed(db, message.uuid, reason, nextAttemptAt);
      log.warn({ messageId: message.uuid, attempts, reason, giveUp: nextAttemptAt === null }, 'sending a message failed');
    }
  }
  return { sent, failed };
}
