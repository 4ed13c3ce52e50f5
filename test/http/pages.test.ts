import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectProblem, type TestApp } from '../helpers.js';

describe('pages beside the API', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
  });
  afterAll(async () => t.close());

  it('an unknown page answers a 404 page in HTML, with a strict Content-Security-Policy', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/book/nobody/<script>alert(1)</script>', headers: { accept: 'text/html' } });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    expect(response.body).toContain('<h1>Not found</h1>');
    // What the visitor typed is shown escaped, never as markup.
    expect(response.body).not.toMatch(/<script/i);
    const quoted = await t.app.inject({ method: 'GET', url: '/x"><b>bold</b>', headers: { accept: 'text/html' } });
    expect(quoted.body).not.toContain('<b>bold</b>');
  });

  it('an unknown API route still answers problem+json', async () => {
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/v1/nope', headers: { accept: 'application/json' } }), 404, 'NOT_FOUND');
  });

  it('the probes stay JSON', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.headers['content-type']).toMatch(/^application\/json/);
  });
});
