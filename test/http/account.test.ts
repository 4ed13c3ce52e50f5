import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKeyForUser } from '../../src/scheduling/account/api-keys.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
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

    it("GET /account shows the caller's account and its seat use", async () => {
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

    const stripeSettings = { secretKey: 'sk_live_51Secret', webhookSecret: 'whsec_Secret' };
    const p24Settings = { merchantId: 64195, posId: 64195, apiKey: 'p24-api-key-secret', crc: 'p24-crc-secret' };

    it('PATCH /account sets places and gateways; secrets are never echoed and are encrypted at rest', async () => {
      const own = await createTestAccount(t.ctx, { places: ['offline', 'zoom'] });
      const response = await call(t.app, own.apiKey, 'PATCH', '/api/v1/account', {
        places: ['offline', 'google-meet', 'zoom'],
        gateways: [{ code: 'stripe', settings: stripeSettings }, { code: 'p24', settings: p24Settings }, { code: 'payu' }],
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().places).toEqual(['offline', 'google-meet', 'zoom']);
      const expected = [
        { code: 'stripe', configured: true, settings: {} },
        { code: 'p24', configured: true, settings: { merchantId: 64195, posId: 64195 } },
        { code: 'payu', configured: false, settings: {} },
      ];
      expect(response.json().gateways).toEqual(expected);
      const shown = await call(t.app, own.apiKey, 'GET', '/api/v1/account');
      expect(shown.json().gateways).toEqual(expected);
      for (const secret of [...Object.values(stripeSettings), p24Settings.apiKey, p24Settings.crc]) {
        expect(response.body).not.toContain(secret);
        expect(shown.body).not.toContain(secret);
      }
      // Stored sealed: the table holds no secret in clear, yet the settings are there.
      const rows = await t.ctx.db.selectFrom('account_gateways').selectAll().where('account_id', '=', own.account.uuid).execute();
      expect(rows).toHaveLength(3);
      const stored = JSON.stringify(rows);
      for (const secret of [...Object.values(stripeSettings), p24Settings.apiKey, p24Settings.crc]) expect(stored).not.toContain(secret);
      expect(JSON.parse(rows.find((row) => row.code === 'p24')!.secrets)).toEqual({ apiKey: expect.stringMatching(/^v1\./), crc: expect.stringMatching(/^v1\./) });
    });

    it('PATCH /account takes gateways as codes, objects or a map; a code alone keeps what was stored', async () => {
      const own = await createTestAccount(t.ctx);
      const asMap = await call(t.app, own.apiKey, 'PATCH', '/api/v1/account', { gateways: { stripe: stripeSettings } });
      expect(asMap.json().gateways).toEqual([{ code: 'stripe', configured: true, settings: {} }]);
      const asObjects = await call(t.app, own.apiKey, 'PATCH', '/api/v1/account', { gateways: [{ code: 'stripe' }, { code: 'paypal' }] });
      expect(asObjects.json().gateways).toEqual([
        { code: 'stripe', configured: true, settings: {} },
        { code: 'paypal', configured: false, settings: {} },
      ]);
      const asCodes = await call(t.app, own.apiKey, 'PATCH', '/api/v1/account', { gateways: ['tpay', 'stripe'] });
      expect(asCodes.json().gateways).toEqual([
        { code: 'tpay', configured: false, settings: {} },
        { code: 'stripe', configured: true, settings: {} },
      ]);
      // Leaving a gateway out disables it and forgets its settings.
      const without = await call(t.app, own.apiKey, 'PATCH', '/api/v1/account', { gateways: ['tpay'] });
      expect(without.json().gateways).toEqual([{ code: 'tpay', configured: false, settings: {} }]);
      expect((await call(t.app, own.apiKey, 'PATCH', '/api/v1/account', { gateways: ['stripe'] })).json().gateways).toEqual([{ code: 'stripe', configured: false, settings: {} }]);
      expectProblem(await call(t.app, own.apiKey, 'PATCH', '/api/v1/account', { gateways: ['bitcoin'] }), 400, 'VALIDATION_FAILED');
      expectProblem(await call(t.app, own.apiKey, 'PATCH', '/api/v1/account', { gateways: { bitcoin: {} } }), 400, 'VALIDATION_FAILED');
    });

    it('PATCH /account refuses gateway settings missing a field, of the wrong type or unknown, and changes nothing', async () => {
      const own = await createTestAccount(t.ctx);
      await call(t.app, own.apiKey, 'PATCH', '/api/v1/account', { gateways: { stripe: stripeSettings } });
      const problem = expectProblem(
        await call(t.app, own.apiKey, 'PATCH', '/api/v1/account', {
          gateways: { p24: { merchantId: 'abc', posId: 1, apiKey: 'k' }, stripe: { secretKey: 'sk', webhookSecret: 'w', publishableKey: 'pk' } },
        }),
        400,
        'VALIDATION_FAILED',
      );
      expect(problem.errors!.map((error) => error.path).sort()).toEqual(['/gateways/p24/crc', '/gateways/p24/merchantId', '/gateways/stripe/publishableKey']);
      expect((await call(t.app, own.apiKey, 'GET', '/api/v1/account')).json().gateways).toEqual([{ code: 'stripe', configured: true, settings: {} }]);
    });

    it('PATCH /account refuses an empty or incomplete settings object, naming every missing field, and stores nothing', async () => {
      const own = await createTestAccount(t.ctx);
      await call(t.app, own.apiKey, 'PATCH', '/api/v1/account', { gateways: { stripe: stripeSettings } });
      const paths = async (body: unknown) =>
        expectProblem(await call(t.app, own.apiKey, 'PATCH', '/api/v1/account', body), 400, 'VALIDATION_FAILED')
          .errors!.map((error) => error.path)
          .sort();
      expect(await paths({ gateways: { stripe: {} } })).toEqual(['/gateways/stripe/secretKey', '/gateways/stripe/webhookSecret']);
      expect(await paths({ gateways: { p24: { merchantId: 1 }, tpay: { clientId: 'c', clientSecret: 's' } } })).toEqual([
        '/gateways/p24/apiKey',
        '/gateways/p24/crc',
        '/gateways/p24/posId',
        '/gateways/tpay/merchantId',
        '/gateways/tpay/securityCode',
      ]);
      expect(await paths({ gateways: [{ code: 'payu', settings: { posId: '1' } }] })).toEqual([
        '/gateways/0/settings/clientId',
        '/gateways/0/settings/clientSecret',
        '/gateways/0/settings/secondKey',
      ]);
      expect((await call(t.app, own.apiKey, 'GET', '/api/v1/account')).json().gateways).toEqual([{ code: 'stripe', configured: true, settings: {} }]);
    });

    it("documents each gateway's settings in the OpenAPI document and on /docs, secrets write-only", async () => {
      const document = (await call(t.app, null, 'GET', '/api/v1/openapi.json')).json();
      const body = document.paths['/api/v1/account'].patch.requestBody.content['application/json'].schema;
      const byMap = body.properties.gateways.anyOf.find((branch: { type: string }) => branch.type === 'object');
      const expected = {
        stripe: ['secretKey', 'webhookSecret'],
        p24: ['merchantId', 'posId', 'apiKey', 'crc'],
        payu: ['posId', 'clientId', 'clientSecret', 'secondKey'],
        paypal: ['clientId', 'clientSecret', 'webhookId'],
        tpay: ['clientId', 'clientSecret', 'merchantId', 'securityCode'],
      };
      const secrets = {
        stripe: ['secretKey', 'webhookSecret'],
        p24: ['apiKey', 'crc'],
        payu: ['clientSecret', 'secondKey'],
        paypal: ['clientSecret'],
        tpay: ['clientSecret', 'securityCode'],
      };
      for (const [code, fields] of Object.entries(expected)) {
        const schema = byMap.properties[code];
        expect(schema.required, code).toEqual(fields);
        expect(Object.keys(schema.properties), code).toEqual(fields);
        expect(schema.additionalProperties, code).toBe(false);
        const writeOnly = fields.filter((field) => schema.properties[field].writeOnly === true);
        expect(writeOnly, code).toEqual(secrets[code as keyof typeof secrets]);
      }
      const docs = (await call(t.app, null, 'GET', '/docs')).body;
      expect(docs).toContain('<code>gateways.p24.merchantId</code> <span class="req">required</span>');
      expect(docs).toMatch(/<code>gateways\.stripe\.secretKey<\/code> <span class="req">required<\/span><\/td><td>[^<]*<\/td><td>[^<]*[Ww]rite-only/);
    });

    it('PATCH /account rejects unknown places, maxUsers and an empty body, and changes nothing', async () => {
      // An account of its own: the seat-use test reads the shared one's places.
      const acme = await createTestAccount(t.ctx, { maxUsers: 7, timezone: 'America/New_York', places: ['offline', 'zoom'] });
      await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { places: ['offline', 'google-meet', 'zoom'] });
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
      // An account of its own: the seat-use test counts the shared one's users.
      const acme = await createTestAccount(t.ctx);
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
      expect(rows.length).toBeGreaterThan(0);
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
