import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks (standardwebhooks.com) signatures. The library's own `Webhook.sign`
 * computes them, so a receiver using any Standard Webhooks library verifies what we send.
 */

export interface WebhookSignatureHeaders {
  'webhook-id': string;
  /** Unix seconds. */
  'webhook-timestamp': string;
  /** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per secret, space-separated. */
  'webhook-signature': string;
}

export interface SignableMessage {
  /** Stable across the retries of one delivery, so receivers can deduplicate. */
  id: string;
  /** The attempt's time: receivers refuse timestamps more than 5 minutes off. */
  timestamp: Date;
  /** The exact bytes that are sent; a re-serialised body would not verify. */
  body: string;
}

const SECRET_PREFIX = 'whsec_';

/** `whsec_` + base64 of 32 random bytes: the format Standard Webhooks libraries accept. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * The three headers of one delivery attempt. With several secrets (the current one first,
 * then one a rotation replaced), `webhook-signature` lists a signature by each, space-
 * separated as Standard Webhooks allows: a receiver accepts the message if any matches.
 *
 * @example
 * signWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', {
 *   id: 'msg_p5jXN8AQM9LWM0D4loKWxJek', timestamp: new Date(1614265330_000), body: '{"test": 2432232314}' })
 * // { 'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek', 'webhook-timestamp': '1614265330',
 * //   'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=' }
 */
export function signWebhook(secrets: string | readonly string[], message: SignableMessage): WebhookSignatureHeaders {
  const seconds = Math.floor(message.timestamp.getTime() / 1000);
  const all = typeof secrets === 'string' ? [secrets] : secrets;
  return {
    'webhook-id': message.id,
    'webhook-timestamp': String(seconds),
    'webhook-signature': all.map((secret) => new Webhook(secret).sign(message.id, message.timestamp, message.body)).join(' '),
  };
}
