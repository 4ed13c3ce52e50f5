import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import type { RenderedMessage } from '../../src/mail/message.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, runJobsCapturingMail, type TestApp } from '../helpers.js';
import { startReceiver } from '../net/receivers.js';
import { bookingBody, firstFreeSlots } from '../webhooks/helpers.js';

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const body = match[3] ?? '';
    if (Object.entries(labels).every(([k, v]) => body.includes(`${k}="${v}"`))) return Number(match[4]);
  }
  return undefined;
}

for (const dialect of DIALECTS) {
  describe(`GET /metrics [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'), { METRICS_TOKEN: 'scrape-secret', ALLOW_PRIVATE_URLS: 'true' });
      acme = await createTestAccount(t.ctx);
    });
    afterAll(async () => t.close());

    const scrape = async () => {
      const response = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer scrape-secret' } });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/plain/);
      return response.body;
    };

    it('wants the METRICS_TOKEN when one is set', async () => {
      expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
      expect((await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer wrong-secret!' } })).statusCode).toBe(401);
      expect((await t.app.inject({ method: 'GET', url: '/api/v1/metrics', headers: { authorization: 'Bearer scrape-secret' } })).statusCode).toBe(404);
    });

    it('counts requests by route pattern and status, with latency histograms', async () => {
      const unmatched0 = sample(await scrape(), 'termin_http_requests_total', { route: 'unmatched', status: '404' }) ?? 0;
      await call(t.app, acme.apiKey, 'GET', '/api/v1/teams');
      await call(t.app, acme.apiKey, 'GET', `/api/v1/teams/${acme.team.uuid}/users`);
      await call(t.app, 'bad-key', 'GET', '/api/v1/teams');
      await call(t.app, acme.apiKey, 'GET', '/api/v1/nothing-here/12345');
      // A known path with a method it does not take: counted under its route, not with the 404s.
      expect((await call(t.app, acme.apiKey, 'PUT', `/api/v1/teams/${acme.team.uuid}/users`, {})).statusCode).toBe(405);
      const text = await scrape();
      expect(sample(text, 'termin_http_requests_total', { method: 'PUT', route: '/api/v1/teams/:teamUuid/users', status: '405' })).toBe(1);
      expect(sample(text, 'termin_http_requests_total', { route: 'unmatched', status: '405' })).toBeUndefined();
      expect(sample(text, 'termin_http_requests_total', { method: 'GET', route: '/api/v1/teams', status: '200' })).toBe(1);
      expect(sample(text, 'termin_http_requests_total', { route: '/api/v1/teams', status: '401' })).toBe(1);
      expect(sample(text, 'termin_http_requests_total', { route: '/api/v1/teams/:teamUuid/users', status: '200' })).toBe(1);
      // Unknown URLs share one series instead of one each.
      expect(sample(text, 'termin_http_requests_total', { route: 'unmatched', status: '404' })).toBe(unmatched0 + 1);
      expect(sample(text, 'termin_http_request_duration_seconds_count', { route: '/api/v1/teams' })).toBe(2);
      expect(sample(text, 'termin_http_request_duration_seconds_bucket', { route: '/api/v1/teams', le: '+Inf' })).toBe(2);
    });

    it('counts bookings, schedule cache hits and misses, and shows outbox backlog, event-loop lag and pool use', async () => {
      const topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Metered', durationMinutes: 30, places: ['offline'] })).json();
      const calculate = () =>
        call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic: topic.uuid, timezone: 'Europe/Warsaw', offset: 0 });
      const before = await scrape();
      const hits0 = sample(before, 'termin_schedule_cache_hits_total') ?? 0;
      const misses0 = sample(before, 'termin_schedule_cache_misses_total') ?? 0;
      // Other tests of this file book too (the webhook retry test), in any order: count from here.
      const bookings0 = sample(before, 'termin_bookings_total', { route: '/api/v1/schedule' }) ?? 0;
      const slots = (await calculate()).json().days.flatMap((day: { slots: unknown[] }) => day.slots);
      await calculate();
      const booking = { dates: [slots[0]], email: 'jan@example.com', lang: 'en', name: 'Jan', place: 'offline', meetingTopic: topic.uuid, timezone: 'Europe/Warsaw' };
      expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', booking, { 'idempotency-key': 'metrics-1' })).statusCode).toBe(201);
      // A replay is not a new booking.
      expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', booking, { 'idempotency-key': 'metrics-1' })).headers['idempotent-replayed']).toBe('true');
      const text = await scrape();
      expect(sample(text, 'termin_bookings_total', { route: '/api/v1/schedule' })! - bookings0).toBe(1);
      expect(sample(text, 'termin_schedule_cache_misses_total')! - misses0).toBe(1);
      expect(sample(text, 'termin_schedule_cache_hits_total')! - hits0).toBeGreaterThanOrEqual(1);
      // The booking queued its e-mails: they wait in the outbox (no worker runs in this test).
      expect(sample(text, 'termin_outbox_jobs', { status: 'pending' })).toBeGreaterThan(0);
      expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
      expect(text).toMatch(/^process_resident_memory_bytes \d/m);
      if (dialect === 'postgres') {
        expect(sample(text, 'termin_db_pool_max')).toBe(20);
        expect(sample(text, 'termin_db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(0);
        await expect.poll(async () => sample(await scrape(), 'termin_db_change_notices_up'), { timeout: 5_000 }).toBe(1);
      } else {
        expect(text).not.toContain('termin_db_pool_connections');
        expect(text).not.toContain('termin_db_change_notices_up');
      }
    });

    it('shows webhook deliveries whose receiver fails as retrying jobs, until it answers again', async () => {
      let healthy = false;
      const receiver = await startReceiver((_req, res) => res.writeHead(healthy ? 204 : 500).end());
      const mail: RenderedMessage[] = [];
      try {
        const account = await createTestAccount(t.ctx, { places: ['offline'] });
        const topic = (await call(t.app, account.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Hooked', durationMinutes: 30, places: ['offline'] })).json();
        const hook = await call(t.app, account.apiKey, 'POST', '/api/v1/webhooks', { url: `${receiver.url}/hooks`, events: ['meeting.scheduled'] });
        expect(hook.statusCode).toBe(201);
        const retrying = async () => sample(await scrape(), 'termin_outbox_retrying_jobs', { kind: 'webhook' }) ?? 0;
        await runJobsCapturingMail(t.ctx, mail);
        expect(await retrying()).toBe(0);

        // Two bookings, two deliveries, both refused with 500: the alert's series moves.
        for (const [i, slot] of (await firstFreeSlots(t.app, account.owner.username, topic.uuid, 2)).entries()) {
          const booking = { ...bookingBody(topic.uuid, slot, i), place: 'offline' };
          expect((await call(t.app, account.apiKey, 'POST', '/api/v1/schedule', booking)).statusCode).toBe(201);
        }
        await runJobsCapturingMail(t.ctx, mail);
        expect(receiver.requests).toHaveLength(2);
        expect(await retrying()).toBe(2);

        // Still failing at the next attempts (one at a time to a failing receiver): still 2.
        t.clock.advance(60_000);
        await runJobsCapturingMail(t.ctx, mail);
        expect(receiver.requests.length).toBeGreaterThan(2);
        expect(await retrying()).toBe(2);

        // An attempt in flight elsewhere (another instance holds the deliveries' lease): the due
        // jobs hand over to later ones without an attempt, and those are still retrying.
        await t.ctx.db
          .updateTable('webhook_deliveries')
          .set({ locked_until: t.clock.now() + 7_200_000 })
          .execute();
        const sent = receiver.requests.length;
        t.clock.advance(3_600_000);
        await runJobsCapturingMail(t.ctx, mail);
        expect(receiver.requests).toHaveLength(sent);
        expect(await retrying()).toBe(2);
        await t.ctx.db.updateTable('webhook_deliveries').set({ locked_until: null }).execute();

        // The receiver recovers: the retries deliver and the series goes back to 0.
        healthy = true;
        t.clock.advance(3_600_000);
        await runJobsCapturingMail(t.ctx, mail);
        const page = (await call(t.app, account.apiKey, 'GET', `/api/v1/webhooks/${hook.json().uuid}/deliveries`)).json();
        expect(page.deliveries.map((d: { status: string }) => d.status)).toEqual(['delivered', 'delivered']);
        expect(await retrying()).toBe(0);
      } finally {
        await receiver.close();
      }
    });
  });
}
