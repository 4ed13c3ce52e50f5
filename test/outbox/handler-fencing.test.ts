import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimJobs, type ClaimedJob } from '../../src/db/repositories/outbox.js';
import { LostClaimError } from '../../src/outbox/job-handler.js';
import { EVENT_JOB_KIND, WEBHOOK_JOB_KIND } from '../../src/outbox/job-kinds.js';
import { readJob, runDueJobs } from '../../src/outbox/worker.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { createEventDispatcher } from '../../src/scheduling/dispatch-event.js';
import { createWebhookDeliverer } from '../../src/scheduling/webhooks/delivery.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, runJobsCapturingMail, type TestApp } from '../helpers.js';
import { startReceiver, type Receiver } from '../net/receivers.js';
import { bookingBody, firstFreeSlots } from '../webhooks/helpers.js';

/**
 * The handlers that complete their own job in the transaction that writes its effects (an
 * event's fan-out, a webhook attempt's record) must commit none of them once the job was
 * claimed again: the new holder does the job itself, so committing both would do it twice.
 * Here the first holder runs only after its lease ran out and another claim took the job.
 */
const LEASE_MS = 60_000;

for (const dialect of DIALECTS) {
  describe(`a handler that completes its own job, run after its claim was lost (${dialect})`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let topicUuid: string;
    let webhookUuid: string;
    let receiver: Receiver;
    let booked = 0;

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock(), { ALLOW_PRIVATE_URLS: 'true' });
      acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['zoom'] });
      receiver = await startReceiver((_req, res) => res.writeHead(204).end());
      topicUuid = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30, places: ['zoom'] })).json().uuid;
      webhookUuid = (await call(t.app, acme.apiKey, 'POST', '/api/v1/webhooks', { url: `${receiver.url}/hook`, events: ['meeting.scheduled'] })).json().uuid;
    });
    afterAll(async () => {
      await receiver?.close();
      await t?.close();
    });

    /** Books a meeting: its `meeting.scheduled` event job is then the one job due. */
    async function book(): Promise<void> {
      await runJobsCapturingMail(t.ctx, []);
      booked += 1;
      const slots = await firstFreeSlots(t.app, acme.owner.username, topicUuid, booked);
      expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', bookingBody(topicUuid, slots[booked - 1]!, booked))).statusCode).toBe(201);
    }

    /** The one due job of `kind`, claimed by `first`, then (its lease over) by `second`. */
    async function claimTwice(kind: string): Promise<{ first: ClaimedJob; second: ClaimedJob }> {
      const [first, ...more] = await claimJobs(t.ctx.db, kind, 'first', t.clock.now(), LEASE_MS, 10);
      expect(more).toEqual([]);
      t.clock.advance(LEASE_MS);
      const [second] = await claimJobs(t.ctx.db, kind, 'second', t.clock.now(), LEASE_MS, 10);
      expect(second?.uuid).toBe(first!.uuid);
      return { first: first!, second: second! };
    }

    const jobRows = () => t.ctx.db.selectFrom('outbox').select(['id', 'status', 'attempts', 'claim']).orderBy('id').execute();
    const jobRow = (uuid: string) => t.ctx.db.selectFrom('outbox').select(['status', 'attempts', 'claim']).where('id', '=', uuid).executeTakeFirstOrThrow();

    it("the event dispatcher queues nothing, and the new holder's run fans the event out once", async () => {
      await book();
      const { first, second } = await claimTwice(EVENT_JOB_KIND);
      const dispatcher = createEventDispatcher(t.ctx);
      const before = await jobRows();

      await expect(dispatcher.handle(readJob(EVENT_JOB_KIND, first))).rejects.toBeInstanceOf(LostClaimError);
      expect(await jobRows()).toEqual(before);

      expect(await dispatcher.handle(readJob(EVENT_JOB_KIND, second))).toBe('completed');
      expect(await jobRow(second.uuid)).toMatchObject({ status: 'done', attempts: 1, claim: null });
      const queued = (await jobRows()).filter((row) => !before.some((old) => old.id === row.id));
      expect(queued.length).toBeGreaterThan(0);
      expect(queued.filter((row) => row.id !== second.uuid).every((row) => row.status === 'pending')).toBe(true);
    });

    it('a webhook attempt records nothing on the delivery (the receiver had it: at least once)', async () => {
      await book();
      // Fan the event out: its delivery's job is then the one due webhook job.
      await runDueJobs({ db: t.ctx.db, handlers: [createEventDispatcher(t.ctx)], log: t.ctx.log, now: t.ctx.now });
      const { first, second } = await claimTwice(WEBHOOK_JOB_KIND);
      const deliveries = async () =>
        (await call(t.app, acme.apiKey, 'GET', `/api/v1/webhooks/${webhookUuid}/deliveries`)).json().deliveries as { status: string; attempts: number }[];
      const deliveriesBefore = await deliveries();
      expect(deliveriesBefore).toContainEqual(expect.objectContaining({ status: 'pending', attempts: 0 }));
      const calls = receiver.requests.length;

      const deliverer = createWebhookDeliverer(t.ctx);
      const rowsBefore = await jobRows();
      await expect(deliverer.handle(readJob(WEBHOOK_JOB_KIND, first))).rejects.toBeInstanceOf(LostClaimError);
      expect(receiver.requests.length).toBe(calls + 1);
      expect(await deliveries()).toEqual(deliveriesBefore);
      expect(await jobRows()).toEqual(rowsBefore);

      // Run again under the lost claim, it finds the delivery held by that attempt and would
      // hand it to a later job: refused too.
      await expect(deliverer.handle(readJob(WEBHOOK_JOB_KIND, first))).rejects.toBeInstanceOf(LostClaimError);
      expect(await jobRows()).toEqual(rowsBefore);
      expect(receiver.requests.length).toBe(calls + 1);

      // The holder's run hands it on (the attempt's hold on the delivery has not ended yet), once.
      expect(await deliverer.handle(readJob(WEBHOOK_JOB_KIND, second))).toBe('completed');
      expect(await jobRow(second.uuid)).toMatchObject({ status: 'done', attempts: 1, claim: null });
      const handedOn = (await jobRows()).filter((row) => !rowsBefore.some((old) => old.id === row.id));
      expect(handedOn).toMatchObject([{ status: 'pending', attempts: 0, claim: null }]);
    });
  });
}
