import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDueJobs } from '../../src/outbox/worker.js';
import { createEventDispatcher } from '../../src/scheduling/dispatch-event.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { createWebhook } from '../../src/scheduling/webhooks/subscriptions.js';
import { createWebhookDeliverer } from '../../src/scheduling/webhooks/delivery.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';
import { startReceiver, type Receiver } from '../net/receivers.js';
import { bookingBody, firstFreeSlots } from './helpers.js';
import { createOutbound } from '../../src/net/outbound-request.js';

/** Without ALLOW_PRIVATE_URLS (the default): the operator's network is out of reach. */
for (const dialect of DIALECTS) {
  describe(`webhook URLs and private addresses (${dialect})`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let receiver: Receiver;

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T08:00:00.000Z'));
      acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['zoom'] });
      receiver = await startReceiver((_req, res) => res.writeHead(204).end());
    });
    afterAll(async () => {
      await receiver?.close();
      await t?.close();
    });

    it.each([
      ['loopback', () => `${receiver.url}/hook`],
      ['a name resolving to loopback', () => `http://localhost:${receiver.port}/hook`],
      ['the cloud metadata service', () => 'http://169.254.169.254/latest/meta-data/'],
      ['a private network', () => 'https://10.1.2.3/hook'],
      ['IPv6 loopback', () => 'http://[::1]:8080/hook'],
      ['IPv4-mapped loopback', () => 'http://[::ffff:127.0.0.1]/hook'],
      ['another scheme', () => 'file:///etc/passwd'],
      ['credentials in the URL', () => 'https://user:pass@hooks.example.com/'],
    ])('refuses %s with a 400 at /url, and stores nothing', async (_name, url) => {
      // Compared with what was there before: the tests of this file may run in any order.
      const before = (await call(t.app, acme.apiKey, 'GET', '/api/v1/webhooks')).json();
      const problem = expectProblem(await call(t.app, acme.apiKey, 'POST', '/api/v1/webhooks', { url: url(), events: ['meeting.scheduled'] }), 400, 'VALIDATION_FAILED');
      expect(problem.errors?.map((e) => e.path)).toEqual(['/url']);
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/webhooks')).json()).toEqual(before);
    });

    it('refuses a private URL in a PATCH too', async () => {
      const owner = { keyUuid: '', userUuid: acme.owner.uuid, accountUuid: acme.account.uuid, username: acme.owner.username };
      const publicResolver = async (): Promise<LookupAddress[]> => [{ address: '93.184.216.34', family: 4 }];
      const { webhook } = await createWebhook({ ...t.ctx, outbound: createOutbound({ allowPrivate: false, resolver: publicResolver }) }, owner, {
        url: 'https://hooks.example.com/a',
        events: ['member.created'],
      });
      const problem = expectProblem(await call(t.app, acme.apiKey, 'PATCH', `/api/v1/webhooks/${webhook.uuid}`, { url: 'http://127.0.0.1/' }), 400, 'VALIDATION_FAILED');
      expect(problem.errors?.map((e) => e.path)).toEqual(['/url']);
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/webhooks/${webhook.uuid}`)).json().url).toBe('https://hooks.example.com/a');
      await call(t.app, acme.apiKey, 'DELETE', `/api/v1/webhooks/${webhook.uuid}`);
    });

    it('checks the addresses again at delivery: a name that now resolves to loopback is not called (DNS rebinding)', async () => {
      const owner = { keyUuid: '', userUuid: acme.owner.uuid, accountUuid: acme.account.uuid, username: acme.owner.username };
      // Public when registered; the attacker's DNS answers 127.0.0.1 by the time of delivery.
      let answer = '93.184.216.34';
      const lookups: string[] = [];
      const resolver = async (hostname: string): Promise<LookupAddress[]> => {
        lookups.push(hostname);
        return [{ address: answer, family: 4 }];
      };
      const url = `http://rebind.example.test:${receiver.port}/hook`;
      const outbound = createOutbound({ allowPrivate: false, resolver });
      const { webhook } = await createWebhook({ ...t.ctx, outbound }, owner, { url, events: ['meeting.scheduled'] });
      expect(webhook.url).toBe(url);
      answer = '127.0.0.1';

      const topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30, places: ['zoom'] })).json();
      const [slot] = await firstFreeSlots(t.app, acme.owner.username, topic.uuid);
      expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', bookingBody(topic.uuid, slot!))).statusCode).toBe(201);
      const handlers = [createEventDispatcher(t.ctx), createWebhookDeliverer({ ...t.ctx, outbound })];
      for (let round = 0; round < 3; round += 1) await runDueJobs({ db: t.ctx.db, handlers, log: t.ctx.log, now: t.ctx.now });

      expect(lookups).toEqual(['rebind.example.test', 'rebind.example.test']);
      expect(receiver.connections).toBe(0);
      const [delivery] = (await call(t.app, acme.apiKey, 'GET', `/api/v1/webhooks/${webhook.uuid}/deliveries`)).json().deliveries;
      expect(delivery).toMatchObject({ status: 'pending', attempts: 1, responseStatus: null });
      expect(delivery.lastError).toContain('rebind.example.test (127.0.0.1) is a loopback, private, link-local or otherwise reserved address');
      await call(t.app, acme.apiKey, 'DELETE', `/api/v1/webhooks/${webhook.uuid}`);
    });
  });
}
