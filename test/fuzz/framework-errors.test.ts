import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClock, createTestApp, expectProblem, type TestApp } from '../helpers.js';

/**
 * Found by the OpenAPI fuzz: the router's own refusals (a path parameter over its length
 * limit, a URL whose percent-encoding is broken) were answered by Fastify directly as
 * `{"error":"Bad Request","code":"FST_ERR_…"}` in application/json, not as problem details,
 * so a client that reads `code` and `type` from every 4xx got neither. The router runs before
 * any route, so one dialect shows it.
 */
describe('router refusals are problem details', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite', createClock());
  });
  afterAll(async () => t.close());

  it('answers a path parameter longer than the router takes with a 414 problem', async () => {
    const response = await t.app.inject({ method: 'GET', url: `/api/v1/meeting-topics/${'a'.repeat(300)}`, headers: { accept: 'application/json' } });
    const problem = expectProblem(response, 414, 'VALIDATION_FAILED');
    expect(problem.detail).not.toContain('FST_');
  });

  it('answers a broken percent-encoding with a 400 problem', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/meetings/%E0%A4%A', headers: { accept: 'application/json' } });
    const problem = expectProblem(response, 400, 'VALIDATION_FAILED');
    expect(problem.detail).toMatch(/URL/);
  });
});
