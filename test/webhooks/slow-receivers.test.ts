import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundJobs, type BackgroundJobs } from '../../src/background.js';
import type { RenderedMessage } from '../../src/mail/message.js';
import type { MailTransport } from '../../src/mail/transport.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, type TestApp } from '../helpers.js';
import { startReceiver, type Receiver } from '../net/receivers.js';
import { bookingBody, eventually, firstFreeSlots } from './helpers.js';

/**
 * The background jobs as the server runs them (on their timer, not drained by the test): a
 * receiver that never answers holds one slot for its 10 s, while another receiver's
 * deliveries and the booking e-mails go out meanwhile.
 */
for (const dialect of DIALECTS) {
  describe(`a hanging webhook receiver (${dialect})`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let topicUuid: string;
    let jobs: BackgroundJobs;
    let hanging: Receiver;
    let healthy: Receiver;
    const mail: RenderedMessage[] = [];
    const capture: MailTransport = {
      async send(message) {
        mail.push(message);
      },
      close: () => undefined,
      describe: () => 'capture',
    };

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T08:00:00.000Z'), { ALLOW_PRIVATE_URLS: 'true' });
      acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['zoom'] });
      topicUuid = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30, places: ['zoom'] })).json().uuid;
      hanging = await startReceiver(() => {
        // never answers
      });
      healthy = await startReceiver((_req, res) => res.writeHead(204).end());
      jobs = startBackgroundJobs(t.ctx, { jobIntervalMs: 25, transport: capture });
    });
    afterAll(async () => {
      // Closing the receivers first ends the hanging request, so stopping waits for nothing.
      await hanging?.close();
      await healthy?.close();
      await jobs?.stop();
      await t?.close();
    });

    async function deliveryOf(webhookUuid: string, index: number) {
      const list = (await call(t.app, acme.apiKey, 'GET', `/api/v1/webhooks/${webhookUuid}/deliveries`)).json().deliveries as Array<{
        status: string;
        attempts: number;
        responseStatus: number | null;
        lastError: string | null;
      }>;
      return list.at(-1 - index);
    }

    it('does not delay other receivers or the e-mails, and is cut off after 10 s as a failed attempt', async () => {
      const events = ['meeting.scheduled'];
      const slow = (await call(t.app, acme.apiKey, 'POST', '/api/v1/webhooks', { url: `${hanging.url}/slow`, events })).json();
      await call(t.app, acme.apiKey, 'POST', '/api/v1/webhooks', { url: `${healthy.url}/fast`, events });
      const [first, second] = await firstFreeSlots(t.app, acme.owner.username, topicUuid, 2);

      expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', bookingBody(topicUuid, first!, 1))).statusCode).toBe(201);
      await eventually(async () => hanging.requests.length === 1 && healthy.requests.length === 1, 10_000, 'both receivers to be called');
      await eventually(async () => mail.some((m) => m.to.email === 'jan1@example.com'), 10_000, 'the first confirmation');

      // While the first request still hangs, a second booking's delivery and e-mails go out.
      expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', bookingBody(topicUuid, second!, 2))).statusCode).toBe(201);
      await eventually(async () => healthy.requests.length === 2 && mail.some((m) => m.to.email === 'jan2@example.com'), 10_000, 'the second delivery and e-mail');
      expect(await deliveryOf(slow.uuid, 0)).toMatchObject({ status: 'pending', attempts: 0 });

      // The hanging one is cut off by the 10 s deadline: a failed attempt, to be retried.
      const cut = await eventually(
        async () => {
          const delivery = await deliveryOf(slow.uuid, 0);
          return delivery && delivery.attempts === 1 ? delivery : undefined;
        },
        20_000,
        'the hanging attempt to be cut off',
      );
      expect(cut).toMatchObject({ status: 'pending', responseStatus: null });
      expect(cut.lastError).toContain('within 10000 ms');
      expect(healthy.requests.map((r) => JSON.parse(r.body).type)).toEqual(['meeting.scheduled', 'meeting.scheduled']);
    }, 40_000);
  });
}
