import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore from '@stoplight/spectral-core';
import { oas } from '@stoplight/spectral-rulesets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers.js';

type Operation = {
  operationId?: string;
  tags?: string[];
  parameters?: { name: string; in: string }[];
  requestBody?: { required?: boolean };
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }>;
};
type Document = { paths: Record<string, Record<string, Operation>>; tags: { name: string; description?: string }[]; components: { headers: Record<string, unknown> } };

// Spectral's package is CommonJS; under NodeNext its classes sit on the default export.
const { Spectral } = spectralCore as unknown as {
  Spectral: new () => { setRuleset(r: unknown): void; run(doc: string): Promise<{ code: string | number; message: string; path: (string | number)[]; severity: number }[]> };
};

describe('the OpenAPI document, as integrators’ tools see it', () => {
  let t: TestApp;
  let text: string;
  let doc: Document;
  const operations: { path: string; method: string; op: Operation }[] = [];

  beforeAll(async () => {
    t = await createTestApp('sqlite');
    text = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).body;
    doc = JSON.parse(text) as Document;
    for (const [path, item] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(item)) operations.push({ path, method, op });
  });
  afterAll(async () => t.close());

  it('lints with no error and no warning under Spectral’s spectral:oas ruleset', async () => {
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [oas] });
    const results = await spectral.run(text);
    // Severity 0 is an error, 1 a warning (2 and 3 are information and hints).
    const findings = results.filter((r) => r.severity <= 1).map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`);
    expect(findings).toEqual([]);
  });

  it('lints with no error and no warning under Redocly’s recommended rules', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: text, config, absoluteRef: 'openapi.json' } as Parameters<typeof lintFromString>[0]);
    expect(problems.map((p) => `${p.ruleId} (${p.severity}) at ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
  });

  it('gives every operation a unique camelCase operationId derived from method and path', () => {
    expect(operations.length).toBeGreaterThan(20);
    const ids = operations.map((o) => o.op.operationId);
    expect(ids.filter((id) => id === undefined || !/^[a-z][A-Za-z0-9]*$/.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    const idOf = (method: string, path: string) => doc.paths[path]?.[method]?.operationId;
    expect(idOf('get', '/api/v1/teams')).toBe('listTeams');
    expect(idOf('post', '/api/v1/teams/{teamUuid}/users')).toBe('createTeamMember');
    expect(idOf('delete', '/api/v1/teams/{teamUuid}/users/{userUuid}')).toBe('deleteTeamMember');
    expect(idOf('post', '/api/v1/schedule')).toBe('scheduleMeetings');
    expect(idOf('post', '/api/v1/calculate-schedule')).toBe('calculateSchedule');
    expect(idOf('post', '/api/v1/meetings/{uuid}/cancel')).toBe('cancelMeeting');
    expect(idOf('get', '/api/v1/meeting-topics/{uuid}')).toBe('getMeetingTopic');
  });

  it('declares every tag it uses, with a description', () => {
    const declared = new Map(doc.tags.map((tag) => [tag.name, tag.description]));
    const used = new Set(operations.flatMap((o) => o.op.tags ?? []));
    expect(used.size).toBeGreaterThan(5);
    expect([...used].filter((tag) => !declared.get(tag))).toEqual([]);
  });

  it('documents errors as application/problem+json, and the headers clients rely on', () => {
    const problemsAsJson = operations.flatMap(({ path, method, op }) =>
      Object.entries(op.responses)
        .filter(([status]) => Number(status) >= 400)
        .filter(([, response]) => !response.content?.['application/problem+json'] || response.content['application/json'])
        .map(([status]) => `${method} ${path} ${status}`),
    );
    expect(problemsAsJson).toEqual([]);
    const withoutRequestId = operations.flatMap(({ path, method, op }) =>
      Object.entries(op.responses)
        .filter(([, r]) => !r.headers?.['X-Request-Id'])
        .map(([s]) => `${method} ${path} ${s}`),
    );
    expect(withoutRequestId).toEqual([]);
    const tooMany = operations.flatMap(({ op }) => Object.entries(op.responses).filter(([status]) => status === '429' || status === '503'));
    expect(tooMany.length).toBeGreaterThan(0);
    expect(tooMany.filter(([, r]) => !r.headers?.['Retry-After'])).toEqual([]);

    const schedule = doc.paths['/api/v1/schedule']!.post!;
    expect(Object.keys(schedule.responses['201']!.headers!)).toEqual(
      expect.arrayContaining(['Idempotent-Replayed', 'Location', 'X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']),
    );
    expect(doc.paths['/api/v1/meeting-topics']!.post!.responses['201']!.headers!.Location).toBeDefined();
    expect(doc.components.headers.IdempotentReplayed).toBeDefined();
  });

  it('marks the cancel body optional and keeps required bodies required', () => {
    expect(doc.paths['/api/v1/meetings/{uuid}/cancel']!.post!.requestBody!.required).toBe(false);
    expect(doc.paths['/api/v1/schedule']!.post!.requestBody!.required).toBe(true);
  });
});
