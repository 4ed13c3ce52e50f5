import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';
import { currentDocument } from '../client/generate.js';

// Every list pages the same way: `limit`, an opaque `cursor`, `nextCursor` null on the last
// page. A client walks any list with one loop.

/** Walks a list to its end, `limit` at a time; the uuids of each page. */
async function walk(t: TestApp, apiKey: string, path: string, key: string, limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | null = null;
  do {
    const response = await call(t.app, apiKey, 'GET', `${path}${path.includes('?') ? '&' : '?'}limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as Record<string, unknown> & { nextCursor: string | null };
    pages.push((body[key] as { uuid: string }[]).map((item) => item.uuid));
    cursor = body.nextCursor;
  } while (cursor !== null && pages.length < 10);
  return pages;
}

for (const dialect of DIALECTS) {
  describe(`list paging (${dialect})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T08:00:00.000Z'), { ALLOW_PRIVATE_URLS: 'true' });
    });
    afterAll(async () => t.close());

    it('pages webhooks and API keys oldest first, each exactly once, and refuses a forged cursor', async () => {
      const acme = await createTestAccount(t.ctx);
      const webhooks: string[] = [];
      const keys: string[] = (await call(t.app, acme.apiKey, 'GET', '/api/v1/api-keys')).json().apiKeys.map((k: { uuid: string }) => k.uuid);
      for (let i = 0; i < 5; i += 1) {
        // Some created in the same millisecond: the uuid orders those.
        if (i % 2 === 0) t.clock.advance(1_000);
        const webhook = await call(t.app, acme.apiKey, 'POST', '/api/v1/webhooks', { url: `http://127.0.0.1:9/h${i}`, events: ['member.created'] });
        expect(webhook.statusCode).toBe(201);
        webhooks.push(webhook.json().uuid);
        const key = await call(t.app, acme.apiKey, 'POST', '/api/v1/api-keys', { name: `key ${i}` });
        expect(key.statusCode).toBe(201);
        keys.push(key.json().uuid);
      }

      const webhookPages = await walk(t, acme.apiKey, '/api/v1/webhooks', 'webhooks', 2);
      expect(webhookPages.map((page) => page.length)).toEqual([2, 2, 1]);
      // The pages, put together, are the whole list in its order.
      expect(webhookPages.flat()).toEqual((await call(t.app, acme.apiKey, 'GET', '/api/v1/webhooks')).json().webhooks.map((w: { uuid: string }) => w.uuid));
      expect(new Set(webhookPages.flat())).toEqual(new Set(webhooks));
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/webhooks')).json().nextCursor).toBeNull();

      const keyPages = await walk(t, acme.apiKey, '/api/v1/api-keys', 'apiKeys', 4);
      expect(keyPages.map((page) => page.length)).toEqual([4, 2]);
      expect(new Set(keyPages.flat())).toEqual(new Set(keys));

      const topics: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        const topic = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: `Topic ${i}`, durationMinutes: 30, places: ['offline'] });
        expect(topic.statusCode).toBe(201);
        topics.push(topic.json().uuid);
      }
      const topicPages = await walk(t, acme.apiKey, `/api/v1/meeting-topics?username=${acme.owner.username}`, 'meetingTopics', 2);
      expect(topicPages.map((page) => page.length)).toEqual([2, 1]);
      expect(topicPages.flat()).toEqual(topics);

      const me = acme.owner.uuid;
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${me}/calendars?limit=1`)).json()).toEqual({ calendars: [], nextCursor: null });
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${me}/connections?limit=1`)).json()).toEqual({ connections: [], nextCursor: null });

      for (const path of ['/api/v1/webhooks', '/api/v1/api-keys', `/api/v1/users/${me}/calendars`]) {
        const forged = expectProblem(await call(t.app, acme.apiKey, 'GET', `${path}?cursor=bm90LWEtY3Vyc29y`), 400, 'VALIDATION_FAILED');
        expect(forged.errors?.[0]?.path).toBe('/query/cursor');
      }
      expectProblem(await call(t.app, acme.apiKey, 'GET', '/api/v1/api-keys?limit=0'), 400, 'VALIDATION_FAILED');
    });

    it('pages teams, team members and discount codes oldest first, whatever their names, the same on every database', async () => {
      const acme = await createTestAccount(t.ctx);
      // Names whose order differs from their creation, and that PostgreSQL and SQLite would sort differently (case, diacritics).
      const names = ['zeta', 'Ąbc', 'alpha', 'Beta', 'beta'];
      const teamUuids: string[] = (await call(t.app, acme.apiKey, 'GET', '/api/v1/teams')).json().teams.map((team: { uuid: string }) => team.uuid);
      const codes: string[] = [];
      for (const [i, name] of names.entries()) {
        if (i % 2 === 0) t.clock.advance(1_000);
        const team = await call(t.app, acme.apiKey, 'POST', '/api/v1/teams', { name });
        expect(team.statusCode, team.body).toBe(201);
        teamUuids.push(team.json().uuid);
        const code = await call(t.app, acme.apiKey, 'POST', '/api/v1/discount-codes', { code: `${['Z', 'a', 'B', 'b', 'c'][i]}code${i}`, percentOff: 10 });
        expect(code.statusCode, code.body).toBe(201);
        codes.push(code.json().uuid);
      }
      const teamPages = await walk(t, acme.apiKey, '/api/v1/teams', 'teams', 2);
      expect(teamPages.map((page) => page.length)).toEqual([2, 2, 2]);
      expect(teamPages.flat()).toEqual(teamUuids);
      const codePages = await walk(t, acme.apiKey, '/api/v1/discount-codes', 'discountCodes', 2);
      expect(codePages.map((page) => page.length)).toEqual([2, 2, 1]);
      expect(codePages.flat()).toEqual(codes);

      const teamUuid = teamUuids[1]!;
      const members: string[] = (await call(t.app, acme.apiKey, 'GET', `/api/v1/teams/${teamUuid}/users`)).json().users.map((user: { uuid: string }) => user.uuid);
      for (const [i, name] of names.slice(0, 3).entries()) {
        t.clock.advance(1_000);
        const member = await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${teamUuid}/users`, { firstName: name, lastName: name, email: `member${i}@acme.example` });
        expect(member.statusCode, member.body).toBe(201);
        members.push(member.json().uuid);
      }
      const memberPages = await walk(t, acme.apiKey, `/api/v1/teams/${teamUuid}/users`, 'users', 3);
      expect(memberPages.map((page) => page.length)).toEqual([3, 1]);
      expect(memberPages.flat()).toEqual(members);

      for (const path of ['/api/v1/teams', '/api/v1/discount-codes', `/api/v1/teams/${teamUuid}/users`]) {
        const forged = expectProblem(await call(t.app, acme.apiKey, 'GET', `${path}?cursor=bm90LWEtY3Vyc29y`), 400, 'VALIDATION_FAILED');
        expect(forged.errors?.[0]?.path).toBe('/query/cursor');
        expectProblem(await call(t.app, acme.apiKey, 'GET', `${path}?limit=201`), 400, 'VALIDATION_FAILED');
      }
    });
  });
}

describe('the document', () => {
  it('gives every paged list limit, cursor and nextCursor', async () => {
    type Operation = {
      parameters?: { name: string; in: string }[];
      responses: Record<string, { content?: Record<string, { schema: { properties?: Record<string, unknown>; $ref?: string } }> }>;
    };
    const doc = (await currentDocument()) as { paths: Record<string, { get: Operation }> };
    for (const path of [
      '/api/v1/meetings',
      '/api/v1/webhooks',
      '/api/v1/webhooks/{uuid}/deliveries',
      '/api/v1/api-keys',
      '/api/v1/users/{userUuid}/calendars',
      '/api/v1/users/{userUuid}/connections',
      '/api/v1/meeting-topics',
      '/api/v1/teams',
      '/api/v1/teams/{teamUuid}/users',
      '/api/v1/discount-codes',
    ]) {
      const get = doc.paths[path]!.get;
      const query = (get.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      expect(query, path).toEqual(expect.arrayContaining(['limit', 'cursor']));
      expect(Object.keys(get.responses['200']!.content!['application/json']!.schema.properties ?? {}), path).toContain('nextCursor');
    }
  });
});
