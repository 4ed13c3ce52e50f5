import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundJobs, type BackgroundJobs } from '../../src/background.js';
import type { MailTransport } from '../../src/mail/transport.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, type TestApp, type TestClock } from '../helpers.js';
import { startReceiver, type Receiver } from '../net/receivers.js';
import { bookingBody, eventually, firstFreeSlots } from './helpers.js';

/**
 * Stopping the background jobs (the server's shutdown, bounded at 10 s) must not wait out a
 * webhook receiver that never answers, and the delivery it was making must not be lost.
 */
for (const dialect of DIALECTS) {
  describe(`stopping while a webhook receiver hangs (${dialect})`, () => {
    let t: TestApp;
    let clock: TestClock;
    let acme: CreatedAccount;
    let hanging: Receiver;
    // Whether each request the receiver took was given up by the sender (its connection closed).
    const givenUp: boolean[] = [];
    const stopped: BackgroundJobs[] = [];
    const noMail: MailTransport = { async send() {}, close: () => undefined, describe: () => 'none' };

    beforeAll(async () => {
      clock = createClock('2027-01-04T08:00:00.000Z');
      t = await createTestApp(dialect, clock, { ALLOW_PRIVATE_URLS: 'true' });
      acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['zoom'] });
      hanging = await startReceiver((req) => {
        const index = givenUp.push(false) - 1;
        req.socket.on('close', () => (givenUp[index] = true));
        // never answers
      });
    });
    afterAll(async () => {
      await hanging?.close();
      for (const jobs of stopped) await jobs.stop(0);
      await t?.close();
    });

    it('returns within its grace, and the delivery is made again once its lease ends', async () => {
      const topicUuid = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30, places: ['zoom'] })).json().uuid as string;
      const hook = (await call(t.app, acme.apiKey, 'POST', '/api/v1/webhooks', { url: `${hanging.url}/hook`, events: ['meeting.scheduled'] })).json();
      const [slot] = await firstFreeSlots(t.app, acme.owner.username, topicUuid, 1);
      const first = startBackgroundJobs(t.ctx, { jobIntervalMs: 25, transport: noMail });
      stopped.push(first);
      expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', bookingBody(topicUuid, slot!, 1))).statusCode).toBe(201);
      await eventually(async () => hanging.requests.length === 1, 10_000, 'the receiver to be called');

      // Stopping returns while the request is still open: it did not wait for the 10 s deadline.
      await first.stop(100);
      expect(givenUp[0]).toBe(false);
      const deliveries = async () =>
        (await call(t.app, acme.apiKey, 'GET', `/api/v1/webhooks/${hook.uuid}/deliveries`)).json().deliveries as { status: string; attempts: number }[];
      expect(await deliveries()).toMatchObject([{ status: 'pending', attempts: 0 }]);

      // After a restart, once the abandoned claim's lease (60 s) has run out, it is delivered again.
      const restarted = startBackgroundJobs(t.ctx, { jobIntervalMs: 25, transport: noMail });
      stopped.push(restarted);
      clock.advance(61_000);
      await eventually(async () => hanging.requests.length === 2, 10_000, 'the delivery to be made again');
      expect(JSON.parse(hanging.requests[1]!.body)).toEqual(JSON.parse(hanging.requests[0]!.body));
      expect(hanging.requests[1]!.headers['webhook-id']).toBe(hanging.requests[0]!.headers['webhook-id']);
    }, 30_000);
  });
}
