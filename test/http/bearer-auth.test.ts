import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

type Document = {
  paths: Record<string, Record<string, { security?: Record<string, string[]>[]; responses: Record<string, { headers?: Record<string, unknown> }> }>>;
  components: { securitySchemes: Record<string, Record<string, string>> };
};

for (const dialect of DIALECTS) {
  describe(`Authorization: Bearer and WWW-Authenticate (${dialect})`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    beforeAll(async () => {
      t = await createTestApp(dialect, undefined, { AUTH_FAILURES_PER_MINUTE: '5' });
      acme = await createTestAccount(t.ctx);
    });
    afterAll(() => t.close());

    const get = (url: string, headers: Record<string, string>, remoteAddress = '192.0.2.1') =>
      t.app.inject({ method: 'GET', url, remoteAddress, headers: { accept: 'application/json', ...headers } });

    it('takes the API key as a Bearer token, as cal.com and Calendly clients send it', async () => {
      const teams = await get('/api/v1/teams', { authorization: `Bearer ${acme.apiKey}` });
      expect(teams.statusCode).toBe(200);
      expect(teams.json().teams.map((team: { uuid: string }) => team.uuid)).toEqual([acme.team.uuid]);
      // The scheme is case-insensitive (RFC 9110); X-Service-Api-Key wins when both are sent.
      expect((await get('/api/v1/account', { authorization: `bearer ${acme.apiKey}` })).statusCode).toBe(200);
      expectProblem(await get('/api/v1/teams', { 'x-service-api-key': 'tmn_wrong', authorization: `Bearer ${acme.apiKey}` }), 401, 'UNAUTHENTICATED');
    });

    it('answers every 401 with a WWW-Authenticate challenge', async () => {
      const none = expectProblem(await get('/api/v1/teams', {}), 401, 'UNAUTHENTICATED');
      expect(none.detail).toContain('Authorization: Bearer');
      expect((await get('/api/v1/teams', {})).headers['www-authenticate']).toBe('Bearer realm="termin"');
      // Another scheme (a proxy's Basic) is no key at all.
      expect((await get('/api/v1/teams', { authorization: 'Basic dXNlcjpwYXNz' })).headers['www-authenticate']).toBe('Bearer realm="termin"');
      for (const headers of [{ authorization: 'Bearer not-a-termin-key' }, { 'x-service-api-key': 'tmn_nope' }] as Record<string, string>[]) {
        const refused = await get('/api/v1/teams', headers, '192.0.2.2');
        expectProblem(refused, 401, 'UNAUTHENTICATED');
        expect(refused.headers['www-authenticate']).toBe('Bearer realm="termin", error="invalid_token"');
      }
    });

    it('counts a Bearer that is not a termin key toward the per-address failure limit, on public routes too', async () => {
      const madeUp = () => `tmn_${randomBytes(12).toString('base64url')}_${randomBytes(32).toString('base64url')}`;
      const bearers = ['an-oauth-access-token', madeUp(), 'eyJhbGciOiJIUzI1NiJ9.e30.sig', madeUp(), madeUp()];
      for (const token of bearers) expectProblem(await get('/api/v1/teams', { authorization: `Bearer ${token}` }, '203.0.113.20'), 401, 'UNAUTHENTICATED');
      expectProblem(await get('/api/v1/teams', { authorization: `Bearer ${acme.apiKey}` }, '203.0.113.20'), 429, 'RATE_LIMITED');

      const calculate = (authorization: string) =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/calculate-schedule',
          remoteAddress: '203.0.113.21',
          headers: { 'content-type': 'application/json', authorization },
          payload: { username: 'nobody', meetingTopic: '00000000-0000-4000-8000-000000000000', timezone: 'UTC', offset: 0 },
        });
      // A public route ignores another scheme, but a Bearer sent there must be valid.
      expectProblem(await calculate('Basic dXNlcjpwYXNz'), 404, 'NOT_FOUND');
      for (let i = 0; i < 5; i += 1) expectProblem(await calculate(`Bearer ${madeUp()}`), 401, 'UNAUTHENTICATED');
      expectProblem(await calculate(`Bearer ${madeUp()}`), 429, 'RATE_LIMITED');
    });

    it('documents Bearer as a second security scheme and WWW-Authenticate on 401s', async () => {
      const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as Document;
      expect(doc.components.securitySchemes.bearerApiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Service-Api-Key' });
      const listTeams = doc.paths['/api/v1/teams']!.get!;
      expect(listTeams.security).toEqual([{ apiKey: [] }, { bearerApiKey: [] }]);
      expect(listTeams.responses['401']!.headers).toHaveProperty('WWW-Authenticate');
      // Wherever the key is accepted, so is the Bearer.
      const operations = Object.values(doc.paths).flatMap((item) => Object.values(item));
      const keyed = operations.filter((op) => op.security?.some((s) => 'apiKey' in s));
      expect(keyed.length).toBeGreaterThan(20);
      expect(keyed.filter((op) => !op.security!.some((s) => 'bearerApiKey' in s))).toEqual([]);
    });
  });
}
