import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

for (const dialect of DIALECTS) {
  describe(`HTTP conventions [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;

    beforeAll(async () => {
      t = await createTestApp(dialect);
      acme = await createTestAccount(t.ctx);
    });
    afterAll(async () => t.close());

    it('answers 406 when Accept excludes JSON, and takes */* or no Accept as JSON', async () => {
      expectProblem(await call(t.app, acme.apiKey, 'GET', '/api/v1/teams', undefined, { accept: 'text/html' }), 406, 'NOT_ACCEPTABLE');
      expectProblem(await call(t.app, acme.apiKey, 'GET', '/api/v1/teams', undefined, { accept: 'application/json;q=0, text/csv' }), 406, 'NOT_ACCEPTABLE');
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/teams', undefined, { accept: '*/*' })).statusCode).toBe(200);
      const noAccept = await t.app.inject({ method: 'GET', url: '/api/v1/teams', headers: { 'x-service-api-key': acme.apiKey } });
      expect(noAccept.statusCode).toBe(200);
      expect(noAccept.headers['content-type']).toMatch(/^application\/json/);
    });

    it('answers 415 for a body that is not application/json', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: `/api/v1/teams/${acme.team.uuid}/users`,
        headers: { 'x-service-api-key': acme.apiKey, 'content-type': 'text/plain' },
        payload: 'firstName=Anna',
      });
      expectProblem(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
      const form = await t.app.inject({
        method: 'POST',
        url: `/api/v1/teams/${acme.team.uuid}/users`,
        headers: { 'x-service-api-key': acme.apiKey, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'firstName=Anna',
      });
      expectProblem(form, 415, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('answers 400 for malformed or empty JSON', async () => {
      const malformed = expectProblem(await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, '{"firstName": '), 400, 'VALIDATION_FAILED');
      expect(malformed.detail).toMatch(/JSON/);
      expectProblem(await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, ''), 400, 'VALIDATION_FAILED');
      expectProblem(await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, '[]'), 400, 'VALIDATION_FAILED');
    });

    it('takes Content-Type: application/json with no body as no body (the seed sends it on every call)', async () => {
      const member = (await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Del', lastName: 'Ete', email: 'del@acme.test' })).json();
      const headers = { 'x-service-api-key': acme.apiKey, 'content-type': 'application/json', accept: 'application/json' };
      expect((await t.app.inject({ method: 'GET', url: '/api/v1/teams', headers })).statusCode).toBe(200);
      expect((await t.app.inject({ method: 'DELETE', url: `/api/v1/teams/${acme.team.uuid}/users/${member.uuid}`, headers })).statusCode).toBe(204);
      const missing = expectProblem(await t.app.inject({ method: 'POST', url: `/api/v1/teams/${acme.team.uuid}/users`, headers }), 400, 'VALIDATION_FAILED');
      expect(missing.detail).toBe('A JSON body is required');
      // Prototype poisoning is still refused.
      expectProblem(await call(t.app, acme.apiKey, 'POST', '/api/v1/teams', '{"name":"x","__proto__":{"admin":true}}'), 400, 'VALIDATION_FAILED');
    });

    it('answers 400 for a wrong type instead of coercing it', async () => {
      const problem = expectProblem(
        await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'A', lastName: 'B', email: 'ab@acme.test', admin: 'true' }),
        400,
        'VALIDATION_FAILED',
      );
      expect(problem.errors).toEqual([{ path: '/admin', message: 'must be boolean' }]);
    });

    it('answers 413 for a body over the limit', async () => {
      const huge = { firstName: 'A'.repeat(200 * 1024), lastName: 'B', email: 'big@acme.test' };
      expectProblem(await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, huge), 413, 'PAYLOAD_TOO_LARGE');
    });

    it('answers unknown routes with a 404 problem', async () => {
      expectProblem(await call(t.app, acme.apiKey, 'GET', '/api/v1/nothing-here'), 404, 'NOT_FOUND');
    });

    it('serves an OpenAPI 3.1 document that describes the routes and their errors', async () => {
      const response = await call(t.app, null, 'GET', '/api/v1/openapi.json');
      expect(response.statusCode).toBe(200);
      const doc = response.json();
      expect(doc.openapi).toBe('3.1.0');
      expect(Object.keys(doc.paths)).toEqual(
        expect.arrayContaining(['/api/v1/teams', '/api/v1/teams/{teamUuid}/users', '/api/v1/teams/{teamUuid}/users/{userUuid}', '/api/v1/account', '/api/v1/api-keys']),
      );
      const create = doc.paths['/api/v1/teams/{teamUuid}/users'].post;
      expect(create.requestBody.content['application/json'].schema.required).toEqual(['firstName', 'lastName', 'email']);
      expect(create.responses['409']).toBeDefined();
      expect(create.security).toEqual([{ apiKey: [] }, { bearerApiKey: [] }]);
      expect(doc.components.schemas.Problem.properties.code).toBeDefined();
      expect(doc.components.securitySchemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'X-Service-Api-Key' });
      const validation = await new Validator().validate(doc);
      expect(validation.errors ?? []).toEqual([]);
      expect(validation.valid).toBe(true);
    });

    it('serves human docs and explains every problem type it links to', async () => {
      const docs = await t.app.inject({ method: 'GET', url: '/docs' });
      expect(docs.statusCode).toBe(200);
      expect(docs.headers['content-type']).toMatch(/^text\/html/);
      expect(docs.body).toContain('/api/v1/teams/{teamUuid}/users');
      const problems = await t.app.inject({ method: 'GET', url: '/docs/problems' });
      for (const anchor of ['validation-failed', 'unauthenticated', 'plan-limit-reached', 'last-admin', 'slot-unavailable']) {
        expect(problems.body).toContain(`id="${anchor}"`);
      }
    });

    it('reports liveness and readiness', async () => {
      expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
      const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toEqual({ status: 'ready' });
    });
  });
}

describe('rate limiting', () => {
  let t: TestApp;
  let acme: CreatedAccount;
  let other: CreatedAccount;

  beforeAll(async () => {
    t = await createTestApp('sqlite', createClock(), { RATE_LIMIT_PER_MINUTE: '3' });
    acme = await createTestAccount(t.ctx);
    other = await createTestAccount(t.ctx);
  });
  afterAll(async () => t.close());

  it('answers 429 RATE_LIMITED with Retry-After past the limit, per key', async () => {
    for (let i = 0; i < 3; i += 1) {
      const answer = await call(t.app, acme.apiKey, 'GET', '/api/v1/teams');
      expect(answer.statusCode).toBe(200);
      // The IETF draft's fields beside the X-RateLimit-* ones, saying the same.
      expect(answer.headers['ratelimit-policy']).toBe('"api";q=3;w=60');
      expect(answer.headers.ratelimit).toBe(`"api";r=${2 - i};t=${answer.headers['x-ratelimit-reset']}`);
      expect(answer.headers['x-ratelimit-remaining']).toBe(String(2 - i));
    }
    const limited = await call(t.app, acme.apiKey, 'GET', '/api/v1/teams');
    expect(limited.headers.ratelimit).toMatch(/^"api";r=0;t=\d+$/);
    const problem = expectProblem(limited, 429, 'RATE_LIMITED');
    expect(problem.detail).toMatch(/at most 3 a minute/);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another key has its own allowance; health checks are never limited.
    expect((await call(t.app, other.apiKey, 'GET', '/api/v1/teams')).statusCode).toBe(200);
    for (let i = 0; i < 5; i += 1) expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});

describe('browsers on other sites', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite', createClock(), { CORS_ORIGINS: 'https://booking.example.com' });
  });
  afterAll(async () => t.close());

  it('answers the preflight of an allowed origin without a key, and no other origin', async () => {
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/calculate-schedule',
      headers: { origin: 'https://booking.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://booking.example.com');
    expect(String(preflight.headers['access-control-allow-headers'])).toContain('X-Service-Api-Key');
    const authenticated = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/teams',
      headers: { origin: 'https://booking.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-service-api-key' },
    });
    expect(authenticated.statusCode).toBe(204);
    // Another site gets no permission, on the same public route the allowed origin may call.
    const stranger = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/calculate-schedule',
      headers: { origin: 'https://evil.example.net', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
    const strangerPost = await t.app.inject({
      method: 'POST',
      url: '/api/v1/calculate-schedule',
      headers: { origin: 'https://evil.example.net', 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(strangerPost.headers['access-control-allow-origin']).toBeUndefined();
    const allowedPost = await t.app.inject({
      method: 'POST',
      url: '/api/v1/calculate-schedule',
      headers: { origin: 'https://booking.example.com', 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(allowedPost.headers['access-control-allow-origin']).toBe('https://booking.example.com');
    // A page on the allowed site may read the limits, in both forms.
    expect(String(allowedPost.headers['access-control-expose-headers']).split(/,\s*/)).toEqual(expect.arrayContaining(['X-RateLimit-Remaining', 'RateLimit', 'RateLimit-Policy']));
    expect(allowedPost.headers['ratelimit-policy']).toMatch(/^"calculate-schedule";q=\d+;w=60$/);
    const actual = await t.app.inject({ method: 'GET', url: '/api/v1/teams', headers: { origin: 'https://evil.example.net' } });
    expect(actual.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('says Vary: Origin on every API answer, grants nothing without an Origin, and takes OPTIONS only as a preflight', async () => {
    const server = await t.app.inject({ method: 'POST', url: '/api/v1/calculate-schedule', headers: { 'content-type': 'application/json' }, payload: '{}' });
    expect(server.headers.vary).toBe('Origin');
    expect(server.headers['access-control-allow-origin']).toBeUndefined();
    expect(server.headers['access-control-expose-headers']).toBeUndefined();
    // A preflight of a stranger is answered without any permission.
    const stranger = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/teams',
      headers: { origin: 'https://evil.example.net', 'access-control-request-method': 'DELETE' },
    });
    expect(stranger.statusCode).toBe(204);
    expect(stranger.headers['access-control-allow-methods']).toBeUndefined();
    // An OPTIONS that is no preflight is a clear 400, as a problem.
    const bare = await t.app.inject({ method: 'OPTIONS', url: '/api/v1/teams' });
    expect(expectProblem(bare, 400, 'VALIDATION_FAILED').detail).toMatch(/preflight/);
    const noMethod = await t.app.inject({ method: 'OPTIONS', url: '/api/v1/teams', headers: { origin: 'https://booking.example.com' } });
    expectProblem(noMethod, 400, 'VALIDATION_FAILED');
  });
});

describe('browsers on any site (the default CORS_ORIGINS=*)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite', createClock());
  });
  afterAll(async () => t.close());

  it('lets a page on any origin call the API and read the limits, and answers its preflight with the methods and headers', async () => {
    const origin = 'https://shop.example.org';
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/meetings/00000000-0000-4000-8000-000000000000',
      headers: { origin, 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'x-service-api-key, content-type' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(origin);
    expect(String(preflight.headers['access-control-allow-methods']).split(', ')).toEqual(expect.arrayContaining(['PATCH', 'DELETE']));
    expect(String(preflight.headers['access-control-allow-headers']).split(', ')).toEqual(expect.arrayContaining(['X-Service-Api-Key', 'Idempotency-Key']));
    expect(preflight.headers['access-control-max-age']).toBe('600');
    expect(preflight.headers['content-length']).toBe('0');
    const post = await t.app.inject({ method: 'POST', url: '/api/v1/calculate-schedule', headers: { origin, 'content-type': 'application/json' }, payload: '{}' });
    expectProblem(post, 400, 'VALIDATION_FAILED');
    expect(post.headers['access-control-allow-origin']).toBe(origin);
    expect(String(post.headers['access-control-expose-headers']).split(', ')).toEqual(expect.arrayContaining(['Retry-After', 'X-Request-Id', 'WWW-Authenticate']));
    expect(post.headers.vary).toBe('Origin');
  });
});
