import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { call, createClock, createTestAccount, createTestApp, type TestApp } from '../helpers.js';

type ProblemBody = { type: string; code: string; status: number };

// RFC 9457 allows a relative `type` (the contract's form, the default); most problem clients
// expect an absolute one, which an operator turns on with PROBLEM_TYPES_ABSOLUTE.
describe('problem type URIs', () => {
  let relative: TestApp;
  let absolute: TestApp;
  let acme: CreatedAccount;

  beforeAll(async () => {
    relative = await createTestApp('sqlite', createClock(), { PUBLIC_URL: 'https://book.example.com/' });
    absolute = await createTestApp('sqlite', createClock(), { PUBLIC_URL: 'https://book.example.com/', PROBLEM_TYPES_ABSOLUTE: 'true' });
    acme = await createTestAccount(absolute.ctx);
  });
  afterAll(async () => {
    await relative.close();
    await absolute.close();
  });

  /** One request per kind of failure: a domain error, validation, the router's 404 and 405, the body parser. */
  const failures = (app: TestApp['app'], key: string | null) => [
    call(app, null, 'GET', '/api/v1/teams'),
    call(app, key, 'POST', '/api/v1/teams', { name: '' }),
    call(app, key, 'GET', '/api/v1/nothing-here'),
    call(app, key, 'PUT', '/api/v1/teams'),
    call(app, key, 'POST', '/api/v1/teams', '{"name":'),
  ];

  it('are relative by default, as the contract shows them', async () => {
    for (const response of await Promise.all(failures(relative.app, null))) {
      expect((response.json() as ProblemBody).type).toMatch(/^\/docs\/problems#[a-z-]+$/);
    }
  });

  it('are absolute under PUBLIC_URL with PROBLEM_TYPES_ABSOLUTE, with the same codes, and lead to their explanation', async () => {
    const responses = await Promise.all(failures(absolute.app, acme.apiKey));
    expect(responses.map((r) => [r.statusCode, (r.json() as ProblemBody).code])).toEqual([
      [401, 'UNAUTHENTICATED'],
      [400, 'VALIDATION_FAILED'],
      [404, 'NOT_FOUND'],
      [405, 'METHOD_NOT_ALLOWED'],
      [400, 'VALIDATION_FAILED'],
    ]);
    const docs = (await absolute.app.inject({ method: 'GET', url: '/docs/problems' })).body;
    for (const response of responses) {
      const type = new URL((response.json() as ProblemBody).type);
      expect(`${type.origin}${type.pathname}`).toBe('https://book.example.com/docs/problems');
      expect(docs).toContain(`id="${type.hash.slice(1)}"`);
    }
  });
});
