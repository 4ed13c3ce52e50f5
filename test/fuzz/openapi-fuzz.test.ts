import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ref, OpenApiDocument } from './arbitraries.js';
import { addToPool, buildFixture, buildForeignPools, rowCounter, startStub, stopStub, tablesOf, type Fixture } from './fixture.js';
import { operationsOf, requestArbitrary, resolveRefs, serialize, textOf, type GeneratedRequest, type Operation } from './requests.js';
import { DIALECTS, createClock, createTestApp, type TestApp } from '../helpers.js';

/**
 * Issue 10, "Survive the internet": a property-based fuzz of every operation of the OpenAPI
 * document the app serves, on every dialect. Requests are fast-check arbitraries derived
 * from each operation's parameter and body schemas, mixed with hostile values (control
 * characters, lone surrogates, 10 KB strings, deep nesting, 1e308 and -0, wrong types,
 * malformed and upper-case uuids, second 60, RTL and emoji, iCalendar and header injection,
 * `../`, SQL), and the uuids of records the test created so deeper code paths run. Each
 * request, sent with the owner's key (sometimes a member's, another account's, a forged one
 * or none), must satisfy:
 *
 *   - no status ≥ 500, and an answer within 10 s;
 *   - every 4xx is application/problem+json with type, title, status (equal to the
 *     response's), code and detail;
 *   - a 4xx leaves the row count of every table (outbox and events included) as it was;
 *   - and at the end the app still answers /healthz.
 *
 * FUZZ_SEED reproduces a run (each operation's cases come from the seed plus its index);
 * FUZZ_RUNS is the number of requests per operation (default 205: over 10,000 per dialect);
 * FUZZ_OPS narrows the run to a comma-separated list of operations (`POST /api/v1/schedule`);
 * FUZZ_TIMING=1 prints each operation's time and answers by status, FUZZ_DETAILS=1 every 4xx.
 *
 * Every operation under /api/v1 in the document is fuzzed; none is skipped. URLs the fuzz
 * registers (calendars, webhooks) and the gateways' API bases point at a loopback stub, so
 * nothing leaves the machine; background jobs (webhook delivery, e-mail) do not run.
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 205);
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : Date.now() % 2_147_483_647;
const ONLY_LIST = process.env.FUZZ_OPS?.split(',').map((id) => id.trim());
const selected = (id: string) => ONLY_LIST === undefined || ONLY_LIST.includes(id);
const ONLY = process.env.FUZZ_OPS;
const ANSWER_WITHIN_MS = 10_000;

interface Violation {
  key: string;
  count: number;
  example: string;
}

/** Gateways, calendars and webhooks point at the loopback stub; rate limits stay out of the way of 10,000 requests. */
function envFor(stub: string): Record<string, string> {
  return {
    RATE_LIMIT_PER_MINUTE: '0',
    CALCULATE_RATE_LIMIT_PER_MINUTE: '0',
    PUBLIC_BOOKING_RATE_PER_MINUTE: '0',
    AUTH_FAILURES_PER_MINUTE: '0',
    ALLOW_PRIVATE_URLS: 'true',
    STRIPE_API_URL: stub,
    P24_API_URL: stub,
    PAYU_API_URL: stub,
    PAYPAL_API_URL: stub,
    TPAY_API_URL: stub,
    PUBLIC_URL: 'http://127.0.0.1:9',
  };
}

/**
 * The operations, known before the app runs so vitest can name one test each: read from the
 * route catalogue of a document built the same way (checked against the served one in each test).
 */
const OPERATION_IDS: readonly string[] = await (async () => {
  const t = await createTestApp('sqlite', createClock(), { RATE_LIMIT_PER_MINUTE: '0' });
  try {
    return operationsOf(t.app.swagger() as unknown as OpenApiDocument).map((op) => op.id);
  } finally {
    await t.close();
  }
})();

for (const dialect of DIALECTS) {
  describe(`OpenAPI fuzz [${dialect}]`, () => {
    let t: TestApp;
    let doc: OpenApiDocument;
    let operations: Operation[];
    let foreign: Awaited<ReturnType<typeof buildForeignPools>>;
    let counts: () => Promise<Record<string, number>>;
    let stub: string;
    let sent = 0;
    let base: Fixture | null = null;
    let leavesFixtureIntact = false;
    let startedAt = 0;

    beforeAll(async () => {
      startedAt = Date.now();
      stub = await startStub();
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'), envFor(stub));
      // The document as clients get it.
      const response = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
      expect(response.statusCode).toBe(200);
      doc = response.json() as OpenApiDocument;
      operations = operationsOf(doc).filter((op) => selected(op.id));
      foreign = await buildForeignPools(t);
      counts = rowCounter(t, await tablesOf(t, dialect));
    });

    afterAll(async () => {
      const seconds = (Date.now() - startedAt) / 1000;
      console.log(`OpenAPI fuzz [${dialect}]: ${sent} requests to ${operations?.length ?? 0} operations in ${seconds.toFixed(1)} s (FUZZ_SEED=${SEED}, FUZZ_RUNS=${RUNS})`);
      try {
        // After every operation's fuzz, in whatever order they ran (a test of its own would run
        // first now and then in a shuffled run): the app still answers, and the fuzz was as big
        // as promised. A failed expectation here fails the suite.
        if (t !== undefined) {
          const health = await t.app.inject({ method: 'GET', url: '/healthz' });
          expect(health.statusCode, 'still answers /healthz after the fuzz').toBe(200);
          if (ONLY === undefined) expect(sent, 'requests sent by the fuzz').toBeGreaterThanOrEqual(10_000 * Math.min(1, RUNS / 205));
        }
      } finally {
        await t?.close();
        await stopStub();
      }
    });

    it('covers every operation of the document under /api/v1', () => {
      // Fixed by the document, not by this file: a route added later is fuzzed too.
      expect(operations.length).toBeGreaterThan(ONLY === undefined ? 40 : 0);
      expect(operations.map((op) => op.id)).toEqual(OPERATION_IDS.filter(selected));
    });

    // One test per operation, named after it; the list comes from the document (read in beforeAll),
    // so the tests are generated from the same catalogue up front.
    for (const [index, id] of OPERATION_IDS.entries()) {
      it.skipIf(!selected(id))(`${id}: no 5xx, problem+json 4xx, nothing stored on rejection`, { timeout: 120_000 }, async () => {
        const op = operations.find((candidate) => candidate.id === id);
        expect(op, `${id} is in the document`).toBeDefined();
        const fixtureStart = Date.now();
        // A fresh fixture unless the previous operation could not have changed it (it only reads,
        // or only adds records nothing else refers to); each operation gets its own copy of the pools.
        if (base === null || !leavesFixtureIntact) base = await buildFixture(t, foreign.pools);
        leavesFixtureIntact = LEAVES_FIXTURE_INTACT.has(id) || op!.method === 'GET';
        const fixture: Fixture = { ...base, pools: new Map([...base.pools].map(([pool, values]) => [pool, [...values]])) };
        if (process.env.FUZZ_TIMING) console.log(`fixture ${Date.now() - fixtureStart} ms`);
        const requestsStart = Date.now();
        const cases = fc.sample(requestArbitrary(doc, op!), { seed: SEED + index, numRuns: RUNS });
        if (process.env.FUZZ_TIMING) console.log(`${id}: sampled in ${Date.now() - requestsStart} ms`);
        const violations = new Map<string, Violation>();
        let before = await counts();
        const statuses = new Map<string, number>();
        let injectMs = 0;
        let countMs = 0;
        for (const [caseIndex, generated] of cases.entries()) {
          const request = toInject(op!, generated, fixture, foreign.key, stub);
          const label = `FUZZ_SEED=${SEED} FUZZ_OPS='${id}' case #${caseIndex}: ${describeRequest(request)}`;
          const t0 = performance.now();
          const response = await answerWithin(t, request, ANSWER_WITHIN_MS);
          const t1 = performance.now();
          injectMs += t1 - t0;
          if (process.env.FUZZ_TIMING && t1 - t0 > 150) console.log(`slow ${Math.round(t1 - t0)} ms: ${response?.statusCode} ${label.slice(0, 300)}`);
          sent += 1;
          const problems = response === null ? ['no answer within 10 s'] : checkResponse(response, typeof request.url === 'string' ? request.url : '/api/');
          const t2 = performance.now();
          const after = await counts();
          countMs += performance.now() - t2;
          if (response !== null && response.statusCode >= 400 && response.statusCode < 500) {
            const changed = Object.keys(after).filter((table) => after[table] !== before[table]);
            if (changed.length > 0) problems.push(`${response.statusCode} but stored rows in ${changed.map((table) => `${table} ${before[table]}→${after[table]}`).join(', ')}`);
          }
          if (response !== null && response.statusCode < 300) harvest(fixture, op!, response);
          if (process.env.FUZZ_DETAILS && response !== null && response.statusCode >= 400)
            console.log(`${response.statusCode} ${response.body.slice(0, 200)} <= ${label.slice(0, Number(process.env.FUZZ_DETAILS) > 1 ? 5000 : 400)}`);
          const status = String(response?.statusCode ?? 'timeout');
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          for (const problem of problems) {
            const key = `${response?.statusCode ?? 'timeout'} ${problem.slice(0, 160)}`;
            const seen = violations.get(key);
            if (seen) seen.count += 1;
            else violations.set(key, { key, count: 1, example: `${label}\n  → ${response?.statusCode} ${response?.body.slice(0, 600)}` });
          }
          before = after;
        }
        if (process.env.FUZZ_TIMING)
          console.log(
            `${id}: ${RUNS} requests ${Date.now() - requestsStart} ms (inject ${Math.round(injectMs)}, counts ${Math.round(countMs)}) ${[...statuses]
              .sort()
              .map(([k, v]) => `${k}×${v}`)
              .join(' ')}`,
          );
        const report = [...violations.values()].map((v) => `${v.key} (×${v.count})\n  ${v.example}`).join('\n\n');
        expect(report, `violations of ${id}; reproduce with FUZZ_SEED=${SEED} FUZZ_OPS='${id}'`).toBe('');
      });
    }
  });
}

/** Operations besides GETs after which the next one may reuse the fixture. */
const LEAVES_FIXTURE_INTACT = new Set([
  'POST /api/v1/teams',
  'POST /api/v1/api-keys',
  'POST /api/v1/discount-codes',
  'POST /api/v1/webhooks',
  'POST /api/v1/calculate-schedule',
  'POST /api/v1/public/bookings/{token}/calculate-schedule',
]);

/** Resolves placeholders against the fixture and builds the `inject` options. */
function toInject(op: Operation, generated: GeneratedRequest, fixture: Fixture, foreignKey: string, stub: string): InjectOptions {
  let slotTopic: string | undefined;
  const resolve = (ref: Ref): unknown => {
    if (ref.kind === 'slot-topic' && slotTopic !== undefined) return slotTopic;
    const pool = ref.kind === 'slot' || ref.kind === 'slot-start' ? 'slots' : ref.kind === 'username' ? 'usernames' : ref.kind === 'token' ? 'tokens' : ref.pool;
    // Mostly the pool the place names; now and then any record at all (another kind, another account).
    let list = fixture.pools.get(pool) ?? [];
    if (ref.kind === 'uuid' && (list.length === 0 || ref.pick % 10 === 0))
      list = [...fixture.pools.entries()].filter(([name]) => !['slots', 'usernames', 'tokens'].includes(name)).flatMap(([, values]) => values);
    if (list.length === 0) return '00000000-0000-4000-8000-000000000000';
    const value = list[ref.pick % list.length]!;
    if (ref.kind === 'slot') {
      const { start, username, topic } = JSON.parse(value) as { start: string; username: string; topic?: string };
      slotTopic ??= topic;
      return { start, username };
    }
    if (ref.kind === 'slot-start') return (JSON.parse(value) as { start: string }).start;
    return ref.upperCase ? value.toUpperCase() : value;
  };
  const stubHost = stub.replace(/^http:\/\//, '');
  const mapString = (text: string) => (text.includes('@stub') ? text.replaceAll('@stubhost@', stubHost).replaceAll('@stub@', stub) : text);
  const resolved = resolveRefs(generated, resolve, mapString) as GeneratedRequest;

  let url = op.path;
  for (const [name, value] of Object.entries(resolved.path)) {
    const text = textOf(value);
    url = url.replace(`{${name}}`, resolved.rawPath ? text.replace(/[^\x21-\x7e]/g, (c) => encodeText(c)).replace(/[?#]/g, (c) => encodeText(c)) : encodeText(text));
  }
  const search = resolved.query.map(([name, value]) => `${encodeText(name)}=${encodeText(textOf(value))}`).join('&');
  if (search !== '') url += `?${search}`;

  const headers: Record<string, string> = { accept: 'application/json' };
  for (const [name, value] of Object.entries(resolved.headers)) headers[name] = textOf(value).replace(/[^\t\x20-\x7e]/g, '?');
  const keys: Record<string, string | null> = {
    owner: fixture.ownerKey,
    member: fixture.memberKey,
    foreign: foreignKey,
    none: null,
    forged: `${fixture.ownerKey.slice(0, -6)}AAAAAA`,
    malformed: "' OR 1=1 --",
  };
  const apiKey = keys[resolved.auth] ?? null;
  if (apiKey !== null) headers['x-service-api-key'] = apiKey;

  const options: InjectOptions = { method: op.method as InjectOptions['method'], url, headers };
  if (resolved.body.kind === 'json') {
    headers['content-type'] = 'application/json';
    options.payload = serialize(resolved.body.value);
  } else if (resolved.body.kind === 'raw') {
    if (resolved.body.contentType !== null) headers['content-type'] = resolved.body.contentType;
    options.payload = resolved.body.payload;
  }
  return options;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Percent-encoding as a client does it; a lone surrogate (no UTF-8 form) goes as the bytes of one, ED A0 80: not UTF-8 either. */
function encodeText(text: string): string {
  return text.split(LONE_SURROGATE).map(encodeURIComponent).join('%ED%A0%80');
}

async function answerWithin(t: TestApp, request: InjectOptions, ms: number): Promise<LightMyRequestResponse | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([t.app.inject(request), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The response-level properties: no 5xx, and problem details on every 4xx. */
function checkResponse(response: LightMyRequestResponse, url: string): string[] {
  const status = response.statusCode;
  if (status >= 500) return [`status ${status}`];
  if (status < 400) return [];
  const contentType = String(response.headers['content-type'] ?? '');
  // A path parameter of `../..` segments climbs out of /api/ once the URL is resolved (as any
  // HTTP client resolves it): the request is for a page then, and a page's 404 is HTML.
  if (!new URL(url, 'http://fuzz.test').pathname.startsWith('/api/')) {
    return status === 404 && contentType.startsWith('text/html') ? [] : [`${status} with content-type ${contentType} for the page ${url}`];
  }
  if (!contentType.startsWith('application/problem+json')) return [`${status} with content-type ${contentType}`];
  let body: Record<string, unknown>;
  try {
    body = response.json();
  } catch {
    return [`${status} whose body is not JSON`];
  }
  const missing = ['type', 'title', 'status', 'code', 'detail'].filter((field) => body[field] === undefined || body[field] === '');
  if (missing.length > 0) return [`${status} problem without ${missing.join(', ')}`];
  if (body.status !== status) return [`${status} problem whose status says ${String(body.status)}`];
  if (typeof body.type !== 'string' || !body.type.startsWith('/docs/problems#')) return [`${status} problem type ${String(body.type)}`];
  return [];
}

/** Records the fuzz itself created become targets too (a created topic, a booked meeting, its slots). */
function harvest(fixture: Fixture, op: Operation, response: LightMyRequestResponse): void {
  if (response.statusCode === 204 || !String(response.headers['content-type'] ?? '').includes('json')) return;
  let body: unknown;
  try {
    body = response.json();
  } catch {
    return;
  }
  const collection = [...op.path.split('/')].reverse().find((segment) => POOL_OF_KEY[segment] !== undefined);
  const walk = (value: unknown, pool: string | undefined, depth: number) => {
    if (depth > 4 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const item of value.slice(0, 20)) walk(item, pool, depth + 1);
      return;
    }
    const record = value as Record<string, unknown>;
    if (typeof record.uuid === 'string' && pool !== undefined) addToPool(fixture.pools, pool, record.uuid);
    if (typeof record.username === 'string') addToPool(fixture.pools, 'usernames', record.username);
    if (typeof record.start === 'string' && typeof record.username === 'string' && Object.keys(record).length === 2) addToPool(fixture.pools, 'slots', JSON.stringify(record));
    for (const [key, inner] of Object.entries(record)) walk(inner, POOL_OF_KEY[key] ?? (key === 'days' || key === 'slots' ? 'none' : undefined), depth + 1);
  };
  walk(body, collection === undefined ? undefined : POOL_OF_KEY[collection], 0);
}

const POOL_OF_KEY: Record<string, string> = {
  teams: 'teams',
  team: 'teams',
  users: 'users',
  'meeting-topics': 'meeting-topics',
  meetingTopics: 'meeting-topics',
  meetings: 'meetings',
  schedule: 'meetings',
  payment: 'payments',
  payments: 'payments',
  priceVariants: 'price-variants',
  'discount-codes': 'discount-codes',
  discountCodes: 'discount-codes',
  'api-keys': 'api-keys',
  apiKeys: 'api-keys',
  webhooks: 'webhooks',
  deliveries: 'deliveries',
  calendars: 'calendars',
};

function describeRequest(request: InjectOptions): string {
  const payload = request.payload === undefined ? '' : ` ${String(Buffer.isBuffer(request.payload) ? request.payload.toString('utf8') : request.payload).slice(0, 400)}`;
  const headers = Object.entries(request.headers ?? {})
    .filter(([name]) => name !== 'accept' && name !== 'content-type')
    .map(([name, value]) => `${name}: ${String(value).slice(0, 60)}`)
    .join('; ');
  return `${request.method} ${String(request.url).slice(0, 300)} [${headers}]${payload}`;
}
