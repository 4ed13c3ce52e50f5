import { afterEach, describe, expect, it } from 'vitest';
import type { IncomingHttpHeaders } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { sendOutbound } from '../../src/net/outbound-request.js';
import { generateWebhookSecret, signWebhook } from '../../src/webhooks/signing.js';
import { startReceiver, type Receiver } from '../net/receivers.js';

// A receiver on 127.0.0.1 checks our delivery the way an integrator would: with the
// standardwebhooks library's own verify, over the raw bytes it received.

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

function stringHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (typeof value === 'string') out[name] = value;
  return out;
}

describe('a signed delivery over HTTP', () => {
  it('is verified by standardwebhooks on the receiving side; a tampered body is not', async () => {
    receiver = await startReceiver((_req, res) => res.writeHead(204).end());
    const secret = generateWebhookSecret();
    const body = JSON.stringify({
      type: 'meeting.scheduled',
      timestamp: '2026-03-01T09:00:00.000Z',
      data: { uuid: '0b7e2c1a-9d5b-4f3e-8a61-2c4d5e6f7a8b', title: 'Intro call — Zoë' },
    });
    const signed = signWebhook(secret, { id: 'msg_2Xz8', timestamp: new Date(), body });

    const result = await sendOutbound({
      url: `${receiver.url}/termin-hooks`,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signed },
      body,
      allowPrivate: true,
    });

    expect(result.status).toBe(204);
    const received = receiver.requests[0]!;
    const headers = stringHeaders(received.headers);
    expect(headers['webhook-id']).toBe('msg_2Xz8');
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(received.body, headers)).toEqual(JSON.parse(body));
    const tampered = received.body.replace('Intro call', 'Free call');
    expect(() => new Webhook(secret).verify(tampered, headers)).toThrow(WebhookVerificationError);
  });
});
