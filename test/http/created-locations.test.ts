import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

type Document = { paths: Record<string, Record<string, { responses?: Record<string, { headers?: Record<string, unknown> }> }>> };

// A client that follows the Location of a 201 (as HTTP says it may) gets the resource, not a 405.
for (const dialect of DIALECTS) {
  describe(`the Location of a created resource [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T08:00:00.000Z'), { ALLOW_PRIVATE_URLS: 'true' });
      acme = await createTestAccount(t.ctx);
    });
    afterAll(async () => t.close());

    async function follow(path: string, body: unknown) {
      const created = await call(t.app, acme.apiKey, 'POST', path, body);
      expect(created.statusCode).toBe(201);
      const location = created.headers.location;
      expect(location).toBe(`${path}/${created.json().uuid}`);
      const fetched = await call(t.app, acme.apiKey, 'GET', String(location));
      expect(fetched.statusCode).toBe(200);
      return { created: created.json(), fetched: fetched.json(), location: String(location) };
    }

    it('POST /api-keys: the key’s metadata, never its secret', async () => {
      const { created, fetched, location } = await follow('/api/v1/api-keys', { name: 'CRM sync' });
      expect(fetched).toEqual({ uuid: created.uuid, name: 'CRM sync', createdAt: created.createdAt, lastUsedAt: null });
      expect(JSON.stringify(fetched)).not.toContain(created.apiKey);
      // The new key reads itself too; once revoked, it is gone.
      expect((await call(t.app, created.apiKey, 'GET', location)).json().lastUsedAt).not.toBeNull();
      expect((await call(t.app, acme.apiKey, 'DELETE', location)).statusCode).toBe(204);
      expectProblem(await call(t.app, acme.apiKey, 'GET', location), 404, 'NOT_FOUND');
    });

    it('POST /discount-codes: the code, with how often it was used', async () => {
      const { created, fetched, location } = await follow('/api/v1/discount-codes', { code: 'spring10', percentOff: 10 });
      expect(fetched).toEqual(created);
      expect(fetched).toMatchObject({ code: 'SPRING10', percentOff: 10, timesUsed: 0 });
      const other = await createTestAccount(t.ctx);
      expectProblem(await call(t.app, other.apiKey, 'GET', location), 404, 'NOT_FOUND');
    });

    it('POST /teams/{teamUuid}/users: the member', async () => {
      const { created, fetched, location } = await follow(`/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Ewa', lastName: 'Lis', email: 'ewa@example.com' });
      expect(fetched).toEqual(created);
      expect(fetched).toMatchObject({ firstName: 'Ewa', lastName: 'Lis', email: 'ewa@example.com', admin: false });
      // Only the team's admins read it; once removed from the team, the member is not found.
      const other = await createTestAccount(t.ctx);
      expectProblem(await call(t.app, other.apiKey, 'GET', location), 404, 'NOT_FOUND');
      expect((await call(t.app, acme.apiKey, 'DELETE', location)).statusCode).toBe(204);
      expectProblem(await call(t.app, acme.apiKey, 'GET', location), 404, 'NOT_FOUND');
    });

    it('POST /users/{userUuid}/time-off: the time off, at the Location the 201 names', async () => {
      const path = `/api/v1/users/${acme.owner.uuid}/time-off`;
      const created = await call(t.app, acme.apiKey, 'POST', path, { start: '2027-02-01T00:00:00.000Z', end: '2027-02-03T00:00:00.000Z', reason: 'Ski trip' });
      expect(created.statusCode).toBe(201);
      const location = String(created.headers.location);
      expect(location).toBe(`${path}/${created.json().timeOff.uuid}`);
      const fetched = await call(t.app, acme.apiKey, 'GET', location);
      expect(fetched.statusCode).toBe(200);
      expect(fetched.json()).toEqual(created.json().timeOff);
      const other = await createTestAccount(t.ctx);
      expectProblem(await call(t.app, other.apiKey, 'GET', location), 404, 'NOT_FOUND');
      expect((await call(t.app, acme.apiKey, 'DELETE', location)).statusCode).toBe(204);
      expectProblem(await call(t.app, acme.apiKey, 'GET', location), 404, 'NOT_FOUND');
    });
    it('documents a GET wherever a 201 documents a Location below its collection', async () => {
      const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as Document;
      const created = Object.entries(doc.paths).filter(([, item]) => item.post?.responses?.['201']?.headers?.Location !== undefined);
      expect(created.length).toBeGreaterThan(5);
      const unfetchable = created
        .map(([path]) => Object.keys(doc.paths).find((item) => item.startsWith(`${path}/{`) && !item.slice(path.length + 1).includes('/')))
        .filter((item): item is string => item !== undefined && doc.paths[item]!.get === undefined);
      expect(unfetchable).toEqual([]);
    });
  });
}
