import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers.js';

type Response = { headers?: Record<string, unknown>; content?: Record<string, unknown> };
type Operation = { requestBody?: { content: Record<string, unknown> }; responses: Record<string, Response> };
type Document = { info: { description: string }; paths: Record<string, Record<string, Operation>> };

// What the API answers must be in the document, so a proxy validating against it (Prism
// with --errors) and generated clients do not trip on it.
describe('the OpenAPI document documents the failures the API returns', () => {
  let t: TestApp;
  let doc: Document;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
    doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as Document;
  });
  afterAll(async () => t.close());

  it('gives every API operation a 500 and a 503 with Retry-After, as problem details', () => {
    const operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ where: `${method} ${path}`, op })));
    expect(operations.length).toBeGreaterThan(40);
    const missing = operations.filter(({ op }) => !op.responses['500']?.content?.['application/problem+json'] || !op.responses['503']?.headers?.['Retry-After']);
    expect(missing.map((o) => o.where)).toEqual([]);
  });

  it('says when 405 is answered, and what a payment gateway’s notification carries', () => {
    expect(doc.info.description).toContain('405 METHOD_NOT_ALLOWED');
    const notification = doc.paths['/api/v1/payments/{gateway}/notifications/{accountUuid}']!.post!;
    expect(Object.keys(notification.requestBody?.content ?? {}).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded']);
  });
});
