import type http from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startBackgroundJobs, type BackgroundJobs } from '../../src/background.js';
import { runDueJobs } from '../../src/outbox/worker.js';
import { createEventDispatcher } from '../../src/scheduling/dispatch-event.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, type TestApp } from '../helpers.js';
import { startReceiver, type Receiver } from '../net/receivers.js';
import { bookingBody, eventually, firstFreeSlots } from './helpers.js';

interface Delivery {
  uuid: string;
  status: string;
  attempts: number;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
}

/**
 * How hard one webhook endpoint is hit: never more than WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT
 * attempts at once (even when many deliveries are due together), and a failing delivery's
 * retries come base, 2×base, 4×base … after each failed attempt, shortened by at most 20 %.
 */
for (const dialect of DIALECTS) {
  describe(`a webhook endpoint's load and retry schedule [${dialect}]`, () => {
    const closing: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const close of closing.splice(0).reverse()) await close();
    });
    afterAll(async () => {
      for (const close of closing.splice(0).reverse()) await close();
    });

    async function setup(env: Record<string, string>, answer: (res: http.ServerResponse) => void) {
      const t: TestApp = await createTestApp(dialect, createClock('2027-01-04T08:00:00.000Z'), { ALLOW_PRIVATE_URLS: 'true', ...env });
      closing.push(() => t.close());
      const acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['zoom'] });
      const topicUuid = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30, places: ['zoom'] })).json().uuid as string;
      const receiver: Receiver = await startReceiver((_req, res) => answer(res));
      closing.push(() => receiver.close());
      const webhook = (await call(t.app, acme.apiKey, 'POST', '/api/v1/webhooks', { url: `${receiver.url}/hook`, events: ['meeting.scheduled'] })).json() as { uuid: string };
      const deliveries = async () => (await call(t.app, acme.apiKey, 'GET', `/api/v1/webhooks/${webhook.uuid}/deliveries`)).json().deliveries as Delivery[];
      /** Books `count` meetings and turns their events into deliveries, so all of them are due at once before any is attempted. */
      const book = async (count: number) => {
        const slots = await firstFreeSlots(t.app, acme.owner.username, topicUuid, count);
        for (const [i, slot] of slots.entries()) expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', bookingBody(topicUuid, slot, i))).statusCode).toBe(201);
        await runDueJobs({ db: t.ctx.db, handlers: [createEventDispatcher(t.ctx)], log: t.ctx.log, now: t.ctx.now });
        expect(await deliveries()).toHaveLength(count);
      };
      return { t, receiver, deliveries, book };
    }

    it('sends at most 4 attempts at once to one endpoint, even when 10 deliveries are due together', async () => {
      const held: http.ServerResponse[] = [];
      let open = 0;
      let most = 0;
      const { t, receiver, deliveries, book } = await setup({}, (res) => {
        open += 1;
        most = Math.max(most, open);
        res.on('close', () => (open -= 1));
        held.push(res);
      });
      await book(10);
      const jobs: BackgroundJobs = startBackgroundJobs(t.ctx, { jobIntervalMs: 25 });
      closing.push(() => jobs.stop(100));

      await eventually(async () => receiver.requests.length >= 4, 15_000, 'four attempts to reach the receiver');
      // The other deliveries, due as well, are handed on without an attempt instead of piling
      // onto the endpoint. (Held for at most 8 s: the service gives up on an attempt after 10.)
      const waiting = async () => (await deliveries()).filter((d) => d.status === 'pending' && d.attempts === 0).length;
      const heldSince = Date.now();
      while ((await waiting()) < 6 && Date.now() - heldSince < 8_000) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await waiting()).toBeGreaterThan(0);
      expect(receiver.requests).toHaveLength(4);

      // From now on every attempt is answered. The waiting deliveries are due when the oldest
      // attempt's deadline has passed (10 s on the service's clock), and go four at a time again.
      const answerAll = setInterval(() => {
        for (const res of held.splice(0)) res.writeHead(204).end();
      }, 10);
      closing.push(async () => clearInterval(answerAll));
      // The service's clock moves on in steps of one deadline until everything is delivered.
      // It moves only while no job is running, so no claim's lease runs out under a job.
      const claimed = async () => (await t.ctx.db.selectFrom('outbox').select('id').where('status', '=', 'pending').where('claim', 'is not', null).execute()).length;
      for (let step = 0; step < 20 && !(await deliveries()).every((d) => d.status === 'delivered'); step += 1) {
        await eventually(async () => open === 0 && (await claimed()) === 0, 15_000, 'the running jobs to end');
        t.clock.advance(10_000);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      await eventually(async () => (await deliveries()).every((d) => d.status === 'delivered'), 20_000, 'every delivery');
      expect((await deliveries()).map((d) => d.attempts)).toEqual(Array(10).fill(1));
      expect(receiver.requests).toHaveLength(10);
      expect(most).toBe(4);
    }, 60_000);

    it('retries each failing delivery base, 2×, 4×, 8× … after each failed attempt, at most 20 % sooner, also when several fail at once', async () => {
      const { t, receiver, deliveries, book } = await setup({ WEBHOOK_RETRY_BASE_SECONDS: '2' }, (res) => res.writeHead(500).end());
      await book(3);
      const jobs: BackgroundJobs = startBackgroundJobs(t.ctx, { jobIntervalMs: 3_600_000, wakeOnBooking: false, maintenanceIntervalMs: 3_600_000 });
      closing.push(() => jobs.stop(100));

      // Each attempt as the deliveries list shows it: when it was made, and when the next is due.
      const attempts = new Map<string, { at: number; nextAt: number }[]>();
      const record = async () => {
        for (const delivery of await deliveries()) {
          const seen = attempts.get(delivery.uuid) ?? [];
          if (delivery.attempts > seen.length) seen.push({ at: Date.parse(delivery.lastAttemptAt!), nextAt: Date.parse(delivery.nextAttemptAt!) });
          expect(delivery.attempts, 'one attempt per due time').toBe(seen.length);
          attempts.set(delivery.uuid, seen);
        }
      };
      await jobs.runOnce();
      await record();
      // Not a millisecond early; and when all three are due together, none is held back behind another.
      while ([...attempts.values()].some((list) => list.length < 7)) {
        const due = [...attempts.values()].map((list) => list.at(-1)!.nextAt);
        t.clock.set(Math.min(...due) - 1);
        await jobs.runOnce();
        await record();
        t.clock.set(Math.max(...due));
        await jobs.runOnce();
        await record();
        for (const list of attempts.values()) expect(list.at(-1)!.at, 'every due delivery attempted now').toBe(Math.max(...due));
      }
      expect(attempts.size).toBe(3);
      expect(receiver.requests.length).toBeGreaterThanOrEqual(21);
      for (const list of attempts.values()) {
        for (const [i, attempt] of list.slice(0, 6).entries()) {
          // Due between 80 % and 100 % of the planned wait after the failed attempt.
          const planned = 2_000 * 2 ** i;
          expect(attempt.nextAt - attempt.at, `gap after attempt ${i + 1}`).toBeGreaterThanOrEqual(planned * 0.8);
          expect(attempt.nextAt - attempt.at, `gap after attempt ${i + 1}`).toBeLessThanOrEqual(planned);
        }
      }
    }, 90_000);
  });
}
