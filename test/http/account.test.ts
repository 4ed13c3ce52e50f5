import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKeyForUser } from '../../src/scheduling/api-keys.js';
import type { CreatedAccount } from '../../src/scheduling/create-account.js';
import { DIALECTS, call, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

for (const dialect of DIALECTS) {
  describe(`account and API keys [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let other: CreatedAccount;

    beforeAll(async () => {
      t = await createTestApp(dialect);
      acme = await createTestAccount(t.ctx, { name: 'Acme', maxUsers: 7, timezone: 'America/New_York', places: ['offline', 'zoom'] });
      other = await createTestAccount(t.ctx, { name: 'Other' });
    });
    afterAll(async () => t.close());

    it('GET /account shows the caller\'s account and its seat use', async () => {
      const response = await call(t.app, acme.apiKey, 'GET', '/api/v1/account');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        uuid: acme.account.uuid,
        name: 'Acme',
        timezone: 'America/New_York',
        maxUsers: 7,
        activeUsers: 1,
        places: ['offline', 'zoom'],
        gateways: [],
      });
    });

    it('PATCH /account lets a team admin set places and gateways, never echoing gateway secrets', async () => {
      const response = await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', {
        places: ['offline', 'google-meet', 'zoom'],
        gateways: [{ code: 'stripe', settings: { secretKey: 'sk_live_secret' } }, { code: 'p24' }],
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().places).toEqual(['offline', 'google-meet', 'zoom']);
      expect(response.json().gateways).toEqual([{ code: 'stripe', configured: true }, { code: 'p24', configured: false }]);
      expect(response.body).not.toContain('sk_live_secret');
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/account')).json().places).toEqual(['offline', 'google-meet', 'zoom']);
    });

    it('PATCH /account takes gateways as codes, as objects with settings, or as a map', async () => {
      const asCodes = await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { gateways: ['payu', 'tpay'] });
      expect(asCodes.json().gateways).toEqual([{ code: 'payu', configured: false }, { code: 'tpay', configured: false }]);
      const asMap = await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { gateways: { stripe: { secretKey: 'sk_test' }, paypal: {} } });
      expect(asMap.json().gateways).toEqual([{ code: 'stripe', configured: true }, { code: 'paypal', configured: false }]);
      expectProblem(await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { gateways: ['bitcoin'] }), 400, 'VALIDATION_FAILED');
      expectProblem(await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { gateways: { bitcoin: {} } }), 400, 'VALIDATION_FAILED');
      // Back to what the next test expects.
      await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { gateways: [{ code: 'stripe', settings: { secretKey: 'sk_live_secret' } }, { code: 'p24' }] });
    });

    it('PATCH /account rejects unknown places, maxUsers and an empty body, and changes nothing', async () => {
      const bad = expectProblem(await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { places: ['carrier-pigeon'] }), 400, 'VALIDATION_FAILED');
      expect(bad.errors![0]!.path).toBe('/places/0');
      const plan = expectProblem(await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { maxUsers: 1000 }), 400, 'VALIDATION_FAILED');
      expect(plan.errors![0]).toEqual({ path: '/maxUsers', message: 'is not an allowed field' });
      expectProblem(await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', {}), 400, 'VALIDATION_FAILED');
      expectProblem(await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { timezone: 'Mars/Olympus' }), 400, 'VALIDATION_FAILED');
      const account = (await call(t.app, acme.apiKey, 'GET', '/api/v1/account')).json();
      expect(account).toMatchObject({ maxUsers: 7, timezone: 'America/New_York', places: ['offline', 'google-meet', 'zoom'] });
    });

    it('PATCH /account is refused to a user who administers no team', async () => {
      const member = (await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Mia', lastName: 'Member', email: 'mia@acme.test' })).json();
      const memberKey = (await createApiKeyForUser(t.ctx, member.uuid)).apiKey;
      expectProblem(await call(t.app, memberKey, 'PATCH', '/api/v1/account', { places: ['offline'] }), 403, 'FORBIDDEN');
      expect((await call(t.app, memberKey, 'GET', '/api/v1/account')).statusCode).toBe(200);
    });

    it('API keys: created once with the secret, listed without it, revoked per user', async () => {
      const created = await call(t.app, acme.apiKey, 'POST', '/api/v1/api-keys', { name: 'Booking page' });
      expect(created.statusCode).toBe(201);
      const key = created.json();
      expect(Object.keys(key).sort()).toEqual(['apiKey', 'createdAt', 'name', 'uuid']);
      expect(key.apiKey).toMatch(/^tmn_/);

      const list = (await call(t.app, acme.apiKey, 'GET', '/api/v1/api-keys')).json().apiKeys;
      expect(list.map((k: { name: string }) => k.name)).toEqual(['Owner key', 'Booking page']);
      expect(JSON.stringify(list)).not.toContain(key.apiKey.slice(-20));

      // Stored only as a hash: the secret appears nowhere in the table.
      const rows = await t.ctx.db.selectFrom('api_keys').select(['secret_hash', 'lookup']).execute();
      expect(rows.every((row) => !key.apiKey.includes(row.secret_hash))).toBe(true);

      // Another account cannot revoke it (404), the owner can.
      expectProblem(await call(t.app, other.apiKey, 'DELETE', `/api/v1/api-keys/${key.uuid}`), 404, 'NOT_FOUND');
      expect((await call(t.app, key.apiKey, 'GET', '/api/v1/account')).statusCode).toBe(200);
      expect((await call(t.app, acme.apiKey, 'DELETE', `/api/v1/api-keys/${key.uuid}`)).statusCode).toBe(204);
      expectProblem(await call(t.app, key.apiKey, 'GET', '/api/v1/account'), 401, 'UNAUTHENTICATED');
      expectProblem(await call(t.app, acme.apiKey, 'DELETE', `/api/v1/api-keys/${key.uuid}`), 404, 'NOT_FOUND');
    });

    it('records when a key was last used', async () => {
      t.clock.advance(5 * 60_000);
      await call(t.app, other.apiKey, 'GET', '/api/v1/account');
      const keys = (await call(t.app, other.apiKey, 'GET', '/api/v1/api-keys')).json().apiKeys;
      expect(keys[0].lastUsedAt).toBe(new Date(t.clock.now()).toISOString());
    });
  });
}
