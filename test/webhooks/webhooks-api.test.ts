import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RenderedMessage } from '../../src/mail/message.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, runJobsCapturingMail, type TestApp } from '../helpers.js';
import { startReceiver, type Receiver } from '../net/receivers.js';
import { createApiKeyForUser } from '../../src/scheduling/account/api-keys.js';
import { bookingBody, firstFreeSlots, stringHeaders, verifyAt } from './helpers.js';

const ALL_EVENTS = [
  'meeting.scheduled',
  'meeting.confirmed',
  'meeting.rescheduled',
  'meeting.cancelled',
  'meeting.expired',
  'payment.paid',
  'payment.refunded',
  'member.created',
  'member.deleted',
];

const START = '2027-01-04T08:00:00.000Z';

for (const dialect of DIALECTS) {
  describe(`webhooks (${dialect})`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let topicUuid: string;
    const mail: RenderedMessage[] = [];
    let receiver: Receiver | undefined;

    /** Runs every due job (events, deliveries, e-mails) until none is left. */
    async function drain() {
      await runJobsCapturingMail(t.ctx, mail);
    }

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock(START), { ALLOW_PRIVATE_URLS: 'true' });
    });
    afterAll(async () => t.close());
    // Each test has an account and topic of its own, and starts at the same moment: no test
    // sees another's members, meetings or deliveries, nor the time another moved the clock to.
    beforeEach(async () => {
      t.clock.set(START);
      acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['zoom'] });
      const topic = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30, places: ['zoom'] });
      expect(topic.statusCode).toBe(201);
      topicUuid = topic.json().uuid;
    });
    afterEach(async () => {
      await receiver?.close();
      receiver = undefined;
      // Each test's webhooks go with it, so the next one starts with none.
      const list = (await call(t.app, acme.apiKey, 'GET', '/api/v1/webhooks')).json() as { webhooks: { uuid: string }[] };
      for (const webhook of list.webhooks) await call(t.app, acme.apiKey, 'DELETE', `/api/v1/webhooks/${webhook.uuid}`);
      await drain();
      mail.length = 0;
    });

    async function subscribe(url: string, events: string[] = ALL_EVENTS) {
      const created = await call(t.app, acme.apiKey, 'POST', '/api/v1/webhooks', { url, events, description: 'Our CRM' });
      expect(created.statusCode).toBe(201);
      return created.json() as { uuid: string; secret: string; url: string; events: string[]; enabled: boolean };
    }

    async function deliveries(webhookUuid: string) {
      const page = await call(t.app, acme.apiKey, 'GET', `/api/v1/webhooks/${webhookUuid}/deliveries`);
      expect(page.statusCode).toBe(200);
      return (
        page.json() as {
          deliveries: Array<{
            uuid: string;
            event: string;
            status: string;
            attempts: number;
            responseStatus: number | null;
            nextAttemptAt: string | null;
            lastError: string | null;
          }>;
        }
      ).deliveries;
    }

    it('manages subscriptions: the secret shown once, admins only, other accounts see nothing', async () => {
      const created = await call(t.app, acme.apiKey, 'POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/hooks', events: ['meeting.scheduled', 'meeting.cancelled'] });
      expect(created.statusCode).toBe(201);
      const webhook = created.json();
      expect(webhook).toMatchObject({ url: 'http://127.0.0.1:9/hooks', events: ['meeting.scheduled', 'meeting.cancelled'], description: null, enabled: true, createdAt: START });
      expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

      const shown = await call(t.app, acme.apiKey, 'GET', `/api/v1/webhooks/${webhook.uuid}`);
      expect(shown.statusCode).toBe(200);
      expect(shown.json()).not.toHaveProperty('secret');
      const listed = await call(t.app, acme.apiKey, 'GET', '/api/v1/webhooks');
      expect(listed.json().webhooks.map((w: { uuid: string }) => w.uuid)).toEqual([webhook.uuid]);
      expect(listed.body).not.toContain(webhook.secret);

      const patched = await call(t.app, acme.apiKey, 'PATCH', `/api/v1/webhooks/${webhook.uuid}`, { events: ['member.created'], description: 'CRM', enabled: false });
      expect(patched.statusCode).toBe(200);
      expect(patched.json()).toMatchObject({ events: ['member.created'], description: 'CRM', enabled: false });
      expectProblem(await call(t.app, acme.apiKey, 'PATCH', `/api/v1/webhooks/${webhook.uuid}`, { secret: 'x' }), 400, 'VALIDATION_FAILED');
      const badEvent = expectProblem(
        await call(t.app, acme.apiKey, 'POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/', events: ['meeting.booked'] }),
        400,
        'VALIDATION_FAILED',
      );
      expect(badEvent.errors?.[0]?.path).toBe('/events/0');

      // A member who is no admin may not; another account's key finds nothing.
      const member = await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Piotr', lastName: 'Nowak', email: 'piotr@example.com' });
      const memberKey = await createApiKeyForUser(t.ctx, member.json().uuid);
      expectProblem(await call(t.app, memberKey.apiKey, 'GET', '/api/v1/webhooks'), 403, 'FORBIDDEN');
      expectProblem(await call(t.app, memberKey.apiKey, 'POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/', events: ['meeting.scheduled'] }), 403, 'FORBIDDEN');
      const other = await createTestAccount(t.ctx);
      expectProblem(await call(t.app, other.apiKey, 'GET', `/api/v1/webhooks/${webhook.uuid}`), 404, 'NOT_FOUND');
      expectProblem(await call(t.app, other.apiKey, 'DELETE', `/api/v1/webhooks/${webhook.uuid}`), 404, 'NOT_FOUND');
      expect((await call(t.app, other.apiKey, 'GET', '/api/v1/webhooks')).json()).toEqual({ webhooks: [], nextCursor: null });

      expect((await call(t.app, acme.apiKey, 'DELETE', `/api/v1/webhooks/${webhook.uuid}`)).statusCode).toBe(204);
      expectProblem(await call(t.app, acme.apiKey, 'GET', `/api/v1/webhooks/${webhook.uuid}`), 404, 'NOT_FOUND');
      await call(t.app, acme.apiKey, 'DELETE', `/api/v1/teams/${acme.team.uuid}/users/${member.json().uuid}`);
    });

    it('sends every event with its exact body, signed so that standardwebhooks verifies it', async () => {
      receiver = await startReceiver((_req, res) => res.writeHead(204).end());
      const webhook = await subscribe(`${receiver.url}/termin?token=abc`);
      const at = new Date(t.clock.now()).toISOString();

      const [slot] = await firstFreeSlots(t.app, acme.owner.username, topicUuid);
      const booked = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', bookingBody(topicUuid, slot!));
      expect(booked.statusCode).toBe(201);
      const meeting = booked.json().meetings[0];
      const cancelled = await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/cancel`, { reason: 'Ill' });
      expect(cancelled.statusCode).toBe(200);
      // The meeting record as GET /meetings/{uuid} shows it (the cancel answer may add to it).
      const cancelledRecord = (await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${meeting.uuid}`)).json();
      expect(cancelledRecord).toMatchObject({ uuid: meeting.uuid, status: 'cancelled', cancelReason: 'Ill' });
      const created = await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, {
        firstName: 'Anna',
        lastName: 'Nowak',
        email: 'anna@example.com',
        admin: true,
      });
      expect(created.statusCode).toBe(201);
      const listedMember = (await call(t.app, acme.apiKey, 'GET', `/api/v1/teams/${acme.team.uuid}/users`))
        .json()
        .users.find((u: { uuid: string }) => u.uuid === created.json().uuid);
      expect((await call(t.app, acme.apiKey, 'DELETE', `/api/v1/teams/${acme.team.uuid}/users/${created.json().uuid}`)).statusCode).toBe(204);

      await drain();

      const received = receiver.requests.map((request) => {
        const headers = stringHeaders(request.headers);
        // What an integrator does: verify over the raw bytes with the library, then read.
        const verified = verifyAt(t.clock.now(), webhook.secret, request.body, headers) as { type: string };
        expect(request.method).toBe('POST');
        expect(request.url).toBe('/termin?token=abc');
        expect(headers['content-type']).toBe('application/json');
        return { id: headers['webhook-id'], timestamp: headers['webhook-timestamp'], body: verified };
      });
      expect(received.map((r) => r.body).sort((a, b) => a.type.localeCompare(b.type))).toEqual([
        { type: 'meeting.cancelled', timestamp: at, data: cancelledRecord },
        { type: 'meeting.scheduled', timestamp: at, data: meeting },
        { type: 'member.created', timestamp: at, data: created.json() },
        { type: 'member.deleted', timestamp: at, data: listedMember },
      ]);
      expect(received.every((r) => r.timestamp === String(Math.floor(t.clock.now() / 1000)))).toBe(true);

      // The log lists each, newest first, under the id the receiver saw.
      const log = await deliveries(webhook.uuid);
      expect(log).toHaveLength(4);
      expect(new Set(log.map((d) => d.uuid))).toEqual(new Set(received.map((r) => r.id)));
      expect(log.map((d) => d.status)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
      expect(log.map((d) => [d.attempts, d.responseStatus, d.nextAttemptAt])).toEqual(Array(4).fill([1, 204, null]));
      expect(log.map((d) => d.event)).toEqual(['member.deleted', 'member.created', 'meeting.cancelled', 'meeting.scheduled']);
    });

    it('sends meeting.rescheduled, and for a paid booking left unpaid meeting.scheduled and meeting.expired, each with the record the API shows', async () => {
      receiver = await startReceiver((_req, res) => res.writeHead(204).end());
      const webhook = await subscribe(`${receiver.url}/more`);
      // Each checked as of when it was sent (the test clock jumps past the hold's expiry below).
      const received = () =>
        receiver!.requests.map(
          (r) =>
            verifyAt(Number(r.headers['webhook-timestamp']) * 1000, webhook.secret, r.body, stringHeaders(r.headers)) as {
              type: string;
              timestamp: string;
              data: { uuid: string };
            },
        );

      const [slot, later] = await firstFreeSlots(t.app, acme.owner.username, topicUuid, 2);
      const meeting = (await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', bookingBody(topicUuid, slot!, 7))).json().meetings[0];
      const moved = await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/reschedule`, { start: later!.start });
      expect(moved.statusCode).toBe(200);
      await drain();
      const shown = (await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${meeting.uuid}`)).json();
      expect(received().find((body) => body.type === 'meeting.rescheduled')).toEqual({
        type: 'meeting.rescheduled',
        timestamp: new Date(t.clock.now()).toISOString(),
        data: { ...shown, previous: { start: meeting.start, end: meeting.end, host: meeting.username } },
      });
      await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/cancel`, {});

      // A paid topic booked and never paid: the hold lapses and the meeting expires.
      expect((await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { gateways: { stripe: { secretKey: 'sk_test_x', webhookSecret: 'whsec_x' } } })).statusCode).toBe(200);
      const paid = (
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Paid', durationMinutes: 30, places: ['zoom'], price: { amount: 15000, currency: 'PLN' } })
      ).json();
      const [paidSlot] = await firstFreeSlots(t.app, acme.owner.username, paid.uuid);
      const booking = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', { ...bookingBody(paid.uuid, paidSlot!, 8), gateway: 'stripe' });
      expect(booking.statusCode).toBe(201);
      const pending = booking.json().meetings[0];
      expect(pending.status).toBe('pending_payment');
      const bookedAt = new Date(t.clock.now()).toISOString();
      await drain();
      expect(received().find((body) => body.type === 'meeting.scheduled' && body.data.uuid === pending.uuid)).toEqual({
        type: 'meeting.scheduled',
        timestamp: bookedAt,
        data: pending,
      });

      t.clock.set(Date.parse(booking.json().payment.expiresAt) + 1_000);
      await drain();
      const expired = (await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${pending.uuid}`)).json();
      expect(expired.status).toBe('expired');
      const body = received().find((b) => b.type === 'meeting.expired');
      expect(body).toEqual({ type: 'meeting.expired', timestamp: expect.any(String), data: expired });
      expect(expired.payment).toMatchObject({ status: 'expired' });
    });

    it('sends only the events a webhook asked for, and nothing to a disabled one', async () => {
      receiver = await startReceiver((_req, res) => res.writeHead(200).end('ok'));
      const cancelOnly = await subscribe(`${receiver.url}/cancel-only`, ['meeting.cancelled']);
      const off = await subscribe(`${receiver.url}/off`, ['meeting.scheduled']);
      await call(t.app, acme.apiKey, 'PATCH', `/api/v1/webhooks/${off.uuid}`, { enabled: false });
      const [slot] = await firstFreeSlots(t.app, acme.owner.username, topicUuid);
      expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', bookingBody(topicUuid, slot!))).statusCode).toBe(201);
      await drain();
      expect(receiver.requests).toEqual([]);
      expect(await deliveries(cancelOnly.uuid)).toEqual([]);
      expect(await deliveries(off.uuid)).toEqual([]);
    });

    it('retries a receiver that fails 3 times with backoff, under one webhook-id, until it answers 2xx', async () => {
      let failures = 0;
      receiver = await startReceiver((_req, res) => {
        if (failures < 3) {
          failures += 1;
          res.writeHead(503).end('busy');
        } else {
          res.writeHead(202).end();
        }
      });
      const webhook = await subscribe(`${receiver.url}/flaky`, ['meeting.scheduled']);
      const [slot] = await firstFreeSlots(t.app, acme.owner.username, topicUuid);
      expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', bookingBody(topicUuid, slot!))).statusCode).toBe(201);

      const start = t.clock.now();
      await drain();
      let [delivery] = await deliveries(webhook.uuid);
      expect(delivery).toMatchObject({ status: 'pending', attempts: 1, responseStatus: 503 });
      // 5 s less up to 20 % jitter.
      const first = Date.parse(delivery!.nextAttemptAt!) - start;
      expect(first).toBeGreaterThanOrEqual(4_000);
      expect(first).toBeLessThanOrEqual(5_000);

      // Not due yet: nothing is sent.
      await drain();
      expect(receiver.requests).toHaveLength(1);

      for (const [wait, attempts] of [
        [5_000, 2],
        [10_000, 3],
      ] as const) {
        t.clock.advance(wait);
        await drain();
        [delivery] = await deliveries(webhook.uuid);
        expect(delivery).toMatchObject({ status: 'pending', attempts, responseStatus: 503 });
      }
      t.clock.advance(20_000);
      await drain();
      [delivery] = await deliveries(webhook.uuid);
      expect(delivery).toMatchObject({ status: 'delivered', attempts: 4, responseStatus: 202, nextAttemptAt: null, lastError: null });
      expect(receiver.requests).toHaveLength(4);
      const ids = receiver.requests.map((r) => r.headers['webhook-id']);
      expect(new Set(ids)).toEqual(new Set([delivery!.uuid]));
      // Each attempt is signed afresh and verifies; the body is byte for byte the same.
      const sentAt = [start, start + 5_000, start + 15_000, start + 35_000];
      for (const [i, request] of receiver.requests.entries()) verifyAt(sentAt[i]!, webhook.secret, request.body, stringHeaders(request.headers));
      expect(new Set(receiver.requests.map((r) => r.body)).size).toBe(1);
      const timestamps = receiver.requests.map((r) => Number(r.headers['webhook-timestamp']));
      expect(timestamps).toEqual([...timestamps].sort((a, b) => a - b));
      expect(timestamps[3]! - timestamps[0]!).toBe(35);
    });

    /**
     * Books a meeting whose `meeting.scheduled` delivery's first attempt is held open: while it
     * waits, `whileInFlight` runs (given the webhook and the delivery), then that attempt gets a
     * 500; any later request gets a 200. Returns once the jobs have drained, the in-flight
     * steps' own assertions included.
     */
    async function holdFirstAttempt(whileInFlight: (webhookUuid: string, deliveryUuid: string) => Promise<void>): Promise<string> {
      let webhookUuid = '';
      let inFlight: Promise<void> = Promise.resolve();
      receiver = await startReceiver((_req, res) => {
        if (receiver!.requests.length > 1) {
          res.writeHead(200).end();
          return;
        }
        inFlight = (async () => {
          try {
            const delivery = (await deliveries(webhookUuid))[0]!;
            await whileInFlight(webhookUuid, delivery.uuid);
          } finally {
            res.writeHead(500).end();
          }
        })();
      });
      webhookUuid = (await subscribe(`${receiver.url}/slow`, ['meeting.scheduled'])).uuid;
      const [slot] = await firstFreeSlots(t.app, acme.owner.username, topicUuid);
      expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', bookingBody(topicUuid, slot!))).statusCode).toBe(201);
      await drain();
      await inFlight;
      return webhookUuid;
    }

    async function retryByHand(webhookUuid: string, deliveryUuid: string): Promise<void> {
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/webhooks/${webhookUuid}/deliveries/${deliveryUuid}/retry`)).statusCode).toBe(202);
    }

    it('keeps a manual retry asked for while an attempt is in flight: that attempt counts, but its failure queues no retry of its own', async () => {
      // While the first attempt waits for its answer, an admin retries the delivery by hand.
      const webhookUuid = await holdFirstAttempt(retryByHand);
      // The failed attempt was logged (attempts start over at the retry, then count it), the
      // manual retry then delivered it: two requests, no third waiting for its own retry time.
      expect(receiver!.requests).toHaveLength(2);
      expect(receiver!.requests[0]!.headers['webhook-id']).toBeDefined();
      expect((await deliveries(webhookUuid))[0]).toMatchObject({ status: 'delivered', attempts: 2, responseStatus: 200, nextAttemptAt: null });
      t.clock.advance(25 * 3_600_000);
      await drain();
      expect(receiver!.requests).toHaveLength(2);
    });

    it('sends a manual retry that another worker picked up while an attempt was in flight as soon as that attempt fails, never beside it', async () => {
      // While the first attempt waits for its answer, an admin retries the delivery by hand and
      // another worker (another instance) runs the retry's job at once: it must not send beside
      // the attempt in flight, which holds the delivery. Only then does the first attempt fail.
      const webhookUuid = await holdFirstAttempt(async (webhook, delivery) => {
        await retryByHand(webhook, delivery);
        await drain();
        expect(receiver!.requests).toHaveLength(1);
        // Retried again meanwhile: still nothing beside the attempt in flight.
        await retryByHand(webhook, delivery);
        await drain();
        expect(receiver!.requests).toHaveLength(1);
      });
      // The retry, put off until the attempt's lock would end (a minute), went out once the attempt
      // had failed, with the clock standing still: the failure counted, the retry delivered it.
      expect(receiver!.requests).toHaveLength(2);
      expect((await deliveries(webhookUuid))[0]).toMatchObject({ status: 'delivered', attempts: 2, responseStatus: 200, nextAttemptAt: null, lastError: null });
      t.clock.advance(25 * 3_600_000);
      await drain();
      expect(receiver!.requests).toHaveLength(2);
    });

    it('gives a delivery up after 24 hours, disables a webhook failing for 3 days and tells the admins; a manual retry sends it again', async () => {
      let healthy = false;
      receiver = await startReceiver((_req, res) => res.writeHead(healthy ? 200 : 500).end());
      const webhook = await subscribe(`${receiver.url}/down?key=secret-token`, ['meeting.scheduled', 'meeting.cancelled']);
      const [a] = await firstFreeSlots(t.app, acme.owner.username, topicUuid);
      const start = new Date(t.clock.now()).toISOString();
      const first = (await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', bookingBody(topicUuid, a!, 1))).json().meetings[0];
      await drain();
      expect((await deliveries(webhook.uuid))[0]).toMatchObject({ status: 'pending', attempts: 1, responseStatus: 500 });

      // A day and a bit later the retry is due; 24 hours have passed since the first attempt: given up.
      t.clock.advance(25 * 3_600_000);
      await drain();
      expect((await deliveries(webhook.uuid))[0]).toMatchObject({ status: 'failed', attempts: 2, nextAttemptAt: null });
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/webhooks/${webhook.uuid}`)).json()).toMatchObject({ enabled: true, failingSince: start });
      expect(mail.filter((m) => m.subject.includes('disabled'))).toEqual([]);

      // Still failing 3 days after the first failure: disabled, and each admin is told once.
      t.clock.advance(2 * 24 * 3_600_000);
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${first.uuid}/cancel`, {})).statusCode).toBe(200);
      await drain();
      const shown = (await call(t.app, acme.apiKey, 'GET', `/api/v1/webhooks/${webhook.uuid}`)).json();
      expect(shown).toMatchObject({ enabled: false, disabledAt: new Date(t.clock.now()).toISOString() });
      const notices = mail.filter((m) => m.subject.includes('disabled'));
      expect(notices.map((m) => m.to.email)).toEqual([acme.owner.email]);
      expect(notices[0]!.subject).toBe(`Webhook to ${receiver.url} disabled`);
      expect(notices[0]!.text).toContain(webhook.uuid);
      expect(notices[0]!.text).not.toContain('secret-token');

      // Disabled: a new event makes no delivery at all.
      const sentBefore = receiver.requests.length;
      const [b] = await firstFreeSlots(t.app, acme.owner.username, topicUuid);
      expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', bookingBody(topicUuid, b!, 2))).statusCode).toBe(201);
      await drain();
      expect(receiver.requests).toHaveLength(sentBefore);
      expect((await deliveries(webhook.uuid)).map((d) => d.event)).toEqual(['meeting.cancelled', 'meeting.scheduled']);

      // The receiver is fixed: an admin retries the missed delivery by hand (the webhook still disabled).
      healthy = true;
      const missed = (await deliveries(webhook.uuid))[1]!;
      const retried = await call(t.app, acme.apiKey, 'POST', `/api/v1/webhooks/${webhook.uuid}/deliveries/${missed.uuid}/retry`);
      expect(retried.statusCode).toBe(202);
      expect(retried.json()).toMatchObject({ uuid: missed.uuid, status: 'pending', attempts: 0 });
      await drain();
      expect((await deliveries(webhook.uuid))[1]).toMatchObject({ uuid: missed.uuid, status: 'delivered', attempts: 1, responseStatus: 200 });
      expect(receiver.requests.at(-1)!.headers['webhook-id']).toBe(missed.uuid);
      expect(JSON.parse(receiver.requests.at(-1)!.body)).toMatchObject({ type: 'meeting.scheduled', data: { uuid: first.uuid, status: 'confirmed' } });
      expectProblem(await call(t.app, acme.apiKey, 'POST', `/api/v1/webhooks/${webhook.uuid}/deliveries/${webhook.uuid}/retry`), 404, 'NOT_FOUND');

      // Enabled again: new events flow, and the failure streak starts over.
      const enabled = await call(t.app, acme.apiKey, 'PATCH', `/api/v1/webhooks/${webhook.uuid}`, { enabled: true });
      expect(enabled.json()).toMatchObject({ enabled: true, failingSince: null, disabledAt: null });
    });

    it('a webhook marked failing is healthy again after its next successful delivery', async () => {
      let healthy = false;
      receiver = await startReceiver((_req, res) => res.writeHead(healthy ? 200 : 503).end());
      const webhook = await subscribe(`${receiver.url}/flaky`, ['meeting.scheduled']);
      const [a] = await firstFreeSlots(t.app, acme.owner.username, topicUuid);
      expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', bookingBody(topicUuid, a!, 1))).statusCode).toBe(201);
      await drain();
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/webhooks/${webhook.uuid}`)).json().failingSince).not.toBeNull();
      healthy = true;
      t.clock.advance(3_600_000);
      await drain();
      expect((await deliveries(webhook.uuid))[0]).toMatchObject({ status: 'delivered', responseStatus: 200 });
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/webhooks/${webhook.uuid}`)).json()).toMatchObject({ enabled: true, failingSince: null });
    });

    it('pages the delivery log newest first', async () => {
      receiver = await startReceiver((_req, res) => res.writeHead(204).end());
      const webhook = await subscribe(`${receiver.url}/log`, ['member.created']);
      const made: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        made.push(
          (await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Log', lastName: `Member ${i}`, email: `log${i}@example.com` })).json()
            .uuid,
        );
        t.clock.advance(1_000);
      }
      await drain();
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await call(t.app, acme.apiKey, 'GET', `/api/v1/webhooks/${webhook.uuid}/deliveries?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.statusCode).toBe(200);
        const body = page.json() as { deliveries: { uuid: string }[]; nextCursor: string | null };
        seen.push(...body.deliveries.map((d) => d.uuid));
        cursor = body.nextCursor;
        pages += 1;
      } while (cursor !== null);
      expect(pages).toBe(3);
      const idsInOrder = receiver.requests.map((r) => [JSON.parse(r.body).data.uuid as string, r.headers['webhook-id'] as string] as const);
      const byMember = new Map(idsInOrder);
      expect(seen).toEqual([...made].reverse().map((uuid) => byMember.get(uuid)));
      expectProblem(await call(t.app, acme.apiKey, 'GET', `/api/v1/webhooks/${webhook.uuid}/deliveries?cursor=nope`), 400, 'VALIDATION_FAILED');
      for (const uuid of made) await call(t.app, acme.apiKey, 'DELETE', `/api/v1/teams/${acme.team.uuid}/users/${uuid}`);
    });
  });
}
