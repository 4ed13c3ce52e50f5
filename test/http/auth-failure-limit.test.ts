import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

/** A well-formed key that matches no stored key: each one would cost a database lookup. */
function madeUpKey(): string {
  return `tmn_${randomBytes(12).toString('base64url')}_${randomBytes(32).toString('base64url')}`;
}

for (const dialect of DIALECTS) {
  describe(`failed authentication is limited per address before the key lookup (${dialect})`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    beforeAll(async () => {
      t = await createTestApp(dialect, undefined, { AUTH_FAILURES_PER_MINUTE: '5', MAX_API_KEYS_PER_USER: '3' });
      acme = await createTestAccount(t.ctx);
    });
    afterAll(() => t.close());

    const from = (address: string, apiKey: string) =>
      t.app.inject({ method: 'GET', url: '/api/v1/teams', remoteAddress: address, headers: { accept: 'application/json', 'x-service-api-key': apiKey } });

    it('answers 429 with Retry-After once an address has failed 5 times in a minute, without touching the database', async () => {
      for (let i = 0; i < 5; i += 1) expectProblem(await from('203.0.113.7', madeUpKey()), 401, 'UNAUTHENTICATED');

      const lookups = vi.spyOn(t.ctx.db, 'selectFrom');
      const limited = await from('203.0.113.7', madeUpKey());
      expectProblem(limited, 429, 'RATE_LIMITED');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
      // Even a valid key from that address waits for the window to end.
      expectProblem(await from('203.0.113.7', acme.apiKey), 429, 'RATE_LIMITED');
      expect(lookups).not.toHaveBeenCalled();
      lookups.mockRestore();

      // Other addresses are unaffected; the address may try again a minute later.
      expect((await from('203.0.113.8', acme.apiKey)).statusCode).toBe(200);
      t.clock.advance(60_000);
      expect((await from('203.0.113.7', acme.apiKey)).statusCode).toBe(200);
    });

    it('counts failures on public routes that were sent a key too', async () => {
      const body = { username: 'nobody', meetingTopic: '00000000-0000-4000-8000-000000000000', timezone: 'UTC', offset: 0 };
      const post = () =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/calculate-schedule',
          remoteAddress: '198.51.100.9',
          headers: { 'content-type': 'application/json', 'x-service-api-key': madeUpKey() },
          payload: body,
        });
      for (let i = 0; i < 5; i += 1) expectProblem(await post(), 401, 'UNAUTHENTICATED');
      expectProblem(await post(), 429, 'RATE_LIMITED');
    });

    it('caps live API keys per user (MAX_API_KEYS_PER_USER) with 403 PLAN_LIMIT_REACHED', async () => {
      // The owner already holds the key the account was created with.
      expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/api-keys', { name: 'second' })).statusCode).toBe(201);
      const third = await call(t.app, acme.apiKey, 'POST', '/api/v1/api-keys', { name: 'third' });
      expect(third.statusCode).toBe(201);
      const refused = expectProblem(await call(t.app, acme.apiKey, 'POST', '/api/v1/api-keys', { name: 'fourth' }), 403, 'PLAN_LIMIT_REACHED');
      expect(refused.detail).toContain('at most 3 API keys');
      // Revoking one makes room again.
      const thirdUuid = (third.json() as { uuid: string }).uuid;
      expect((await call(t.app, acme.apiKey, 'DELETE', `/api/v1/api-keys/${thirdUuid}`)).statusCode).toBe(204);
      expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/api-keys', { name: 'fourth' })).statusCode).toBe(201);
    });
  });
}
