import { describe, expect, it } from 'vitest';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { generateWebhookSecret, signWebhook } from './signing.js';

describe('generateWebhookSecret', () => {
  it('is whsec_ and the base64 of 32 random bytes', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
  });
});

describe('signWebhook', () => {
  it('matches the Standard Webhooks specification example', () => {
    // The example of the specification's "Signature scheme" section.
    const headers = signWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', {
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      timestamp: new Date(1614265330_000),
      body: '{"test": 2432232314}',
    });
    expect(headers).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('truncates the timestamp to whole seconds, as the signed string does', () => {
    const secret = generateWebhookSecret();
    const a = signWebhook(secret, { id: 'msg_1', timestamp: new Date(1_700_000_000_999), body: '{}' });
    const b = signWebhook(secret, { id: 'msg_1', timestamp: new Date(1_700_000_000_000), body: '{}' });
    expect(a).toEqual(b);
    expect(a['webhook-timestamp']).toBe('1700000000');
  });

  it('verifies with the library, and a change to the id, body or secret does not', () => {
    const secret = generateWebhookSecret();
    const body = JSON.stringify({ type: 'meeting.scheduled', timestamp: '2026-01-01T00:00:00.000Z', data: { uuid: 'x' } });
    const headers = signWebhook(secret, { id: 'msg_2', timestamp: new Date(), body });
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body.replace('x', 'y'), { ...headers })).toThrow(WebhookVerificationError);
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'msg_3' })).toThrow(WebhookVerificationError);
    expect(() => new Webhook(generateWebhookSecret()).verify(body, { ...headers })).toThrow(WebhookVerificationError);
  });
});
