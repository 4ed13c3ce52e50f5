import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers.js';

type Operation = { security?: Record<string, string[]>[] };
type Document = { paths: Record<string, Record<string, Operation>> };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Whether the document says the operation needs a key: it names requirements, and none is the empty (anonymous) one. */
function needsKey(operation: Operation): boolean {
  const security = operation.security ?? [];
  return security.length > 0 && security.every((requirement) => Object.keys(requirement).length > 0);
}

/**
 * The document's `security` is what generated clients and the /docs badges go by, so it must
 * say the truth: every route of the authenticated scope refuses a call without a key (401),
 * and every other route does not. Calling each documented operation without a key checks both
 * ways at once, including routes added later that forget to declare their security.
 */
describe('security in the OpenAPI document', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
  });
  afterAll(async () => t.close());

  it('every operation answers 401 without a key exactly when the document says it needs one', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as Document;
    const untrue: string[] = [];
    let keyed = 0;
    let client = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation) continue;
        client += 1;
        const response = await t.app.inject({
          method: method.toUpperCase() as 'GET',
          url: path.replace(/\{[^}]+\}/g, '0193b0a4-6f1e-7c3a-9d2b-5e8f1a2b3c4d'),
          headers: { accept: 'application/json', 'content-type': 'application/json' },
          ...(method === 'get' || method === 'delete' ? {} : { payload: '{}' }),
          // One address per call: neither the rate limit nor the failed-authentication limit answers 429 instead.
          remoteAddress: `10.0.${Math.floor(client / 250)}.${client % 250}`,
        });
        if (needsKey(operation)) keyed += 1;
        if ((response.statusCode === 401) !== needsKey(operation)) {
          untrue.push(`${method.toUpperCase()} ${path} answers ${response.statusCode} without a key; documented security ${JSON.stringify(operation.security ?? null)}`);
        }
      }
    }
    expect(keyed).toBeGreaterThan(50);
    expect(untrue).toEqual([]);
  });
});
