import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createContext, type AppContext } from '../../src/context.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { startFakeTpay, type FakeTpay } from '../fakes/tpay-gateway.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

/**
 * The operator starts the service with another TERMIN_SECRET_KEY than the one the gateways'
 * credentials were sealed with. The credentials cannot be opened; the gateway must read as
 * not configured (bookings refused at `/gateway`, `configured: false` with a reason), the pay
 * page must show its gateway-error page instead of a 500, a notification must get 503 with
 * Retry-After so the gateway sends it again once the key is back, and the operator is told
 * once what to do, not on every request.
 */
type Slot = { start: string; username: string };
const PUBLIC_URL = 'http://termin.test';
const OPERATOR_LINE = /cannot be decrypted with this server's secret key/;

for (const dialect of DIALECTS) {
  describe(`a changed secret key [${dialect}]`, () => {
    let t: TestApp;
    let tpay: FakeTpay;
    let account: CreatedAccount;
    let topic: { uuid: string };
    let slots: Slot[];
    let participants = 0;
    /** The same database, started again with another key. */
    let rekeyed: { ctx: AppContext; app: FastifyInstance; lines: Record<string, unknown>[] };

    beforeAll(async () => {
      tpay = await startFakeTpay();
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'), { PUBLIC_URL, TPAY_API_URL: tpay.baseUrl, TPAY_JWS_URL: tpay.jwsUrl });
      account = await createTestAccount(t.ctx, { timezone: 'UTC', places: ['zoom'] });
      const gateways = { tpay: { ...tpay.credentials.settings, ...tpay.credentials.secrets } };
      expect((await call(t.app, account.apiKey, 'PATCH', '/api/v1/account', { gateways })).statusCode).toBe(200);
      topic = (
        await call(t.app, account.apiKey, 'POST', '/api/v1/meeting-topics', {
          name: 'Consultation',
          durationMinutes: 30,
          places: ['zoom'],
          price: { amount: 15000, currency: 'PLN' },
        })
      ).json();
      const body = (
        await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: account.owner.username, meetingTopic: topic.uuid, timezone: 'UTC', offset: 0 })
      ).json();
      slots = (body.days as { slots: Slot[] }[]).flatMap((day) => day.slots);
    }, 60_000);

    afterAll(async () => {
      await rekeyed?.app.close();
      await rekeyed?.ctx.close();
      await t?.close();
      await tpay?.close();
    });

    async function book(app: FastifyInstance) {
      participants += 1;
      return call(app, account.apiKey, 'POST', '/api/v1/schedule', {
        dates: [slots[participants]!],
        email: `payer${participants}@example.com`,
        lang: 'en',
        name: `Payer ${participants}`,
        place: 'zoom',
        meetingTopic: topic.uuid,
        timezone: 'UTC',
        gateway: 'tpay',
      });
    }

    it('treats the gateway as not configured, answers notifications 503, and tells the operator once', async () => {
      // Under the key the credentials were stored with: one payment not yet sent to Tpay, one with its transaction.
      const unvisited = (await book(t.app)).json() as { payment: { uuid: string } };
      const visited = (await book(t.app)).json() as { payment: { uuid: string } };
      expect((await t.app.inject({ method: 'GET', url: `/pay/${visited.payment.uuid}`, headers: { accept: 'text/html' } })).statusCode).toBe(303);
      const row = await t.ctx.db.selectFrom('payments').select('gateway_transaction_id').where('id', '=', visited.payment.uuid).executeTakeFirstOrThrow();

      // The service started again on the same database with another TERMIN_SECRET_KEY.
      const lines: Record<string, unknown>[] = [];
      const sink = new Writable({
        write(chunk, _encoding, done) {
          for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
          done();
        },
      });
      const ctx = await createContext(t.ctx.config, { now: t.clock.now, log: pino({ level: 'info' }, sink), secrets: { secretKey: randomBytes(32) } });
      const app = await buildApp(ctx);
      await app.ready();
      rekeyed = { ctx, app, lines };

      const refused = expectProblem(await book(app), 400, 'VALIDATION_FAILED');
      expect(refused.errors).toEqual([{ path: '/gateway', message: expect.stringMatching(/stored credentials cannot be read/) }]);

      const gateways = (await call(app, account.apiKey, 'GET', '/api/v1/account')).json().gateways;
      expect(gateways).toEqual([{ code: 'tpay', configured: false, reason: expect.stringMatching(/secret key/), settings: tpay.credentials.settings }]);

      const page = await app.inject({ method: 'GET', url: `/pay/${unvisited.payment.uuid}`, headers: { accept: 'text/html' } });
      expect(page.statusCode).toBe(502);
      expect(page.headers['content-type']).toContain('text/html');
      expect(page.body).toContain(`href="${PUBLIC_URL}/pay/${unvisited.payment.uuid}"`);

      for (let i = 0; i < 2; i += 1) {
        const notification = tpay.notificationFor(row.gateway_transaction_id!);
        const answer = await app.inject({
          method: 'POST',
          url: `/api/v1/payments/tpay/notifications/${account.account.uuid}`,
          headers: notification.headers as Record<string, string>,
          payload: notification.rawBody,
        });
        expectProblem(answer, 503, 'SERVICE_UNAVAILABLE');
        expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
      }
      const payment = (await call(app, account.apiKey, 'GET', `/api/v1/payments/${visited.payment.uuid}`)).json();
      expect(payment.payment.status).toBe('pending');

      expect(lines.filter((line) => OPERATOR_LINE.test(String(line.msg)))).toHaveLength(1);

      // The old key still opens them: nothing was lost, only unreadable here.
      const paid = await t.app.inject({
        method: 'POST',
        url: `/api/v1/payments/tpay/notifications/${account.account.uuid}`,
        headers: tpay.notificationFor(row.gateway_transaction_id!).headers as Record<string, string>,
        payload: tpay.notificationFor(row.gateway_transaction_id!).rawBody,
      });
      expect(paid.statusCode, paid.body).toBe(200);
    });
  });
}
