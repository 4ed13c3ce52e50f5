import fc from 'fast-check';
import { HOSTILE_STRINGS, RawJson, Ref, hostileValue, poolOfProperty, schemaArbitrary, type OpenApiDocument, type Schema } from './arbitraries.js';

/** One operation of the document: `POST /api/v1/schedule` with its parameters and body schema. */
export interface Operation {
  id: string;
  method: string;
  path: string;
  parameters: { name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: Schema }[];
  body: Schema | null;
  bodyRequired: boolean;
  /** The operation takes (or requires) an API key. */
  auth: 'required' | 'optional' | 'none';
  /** Gateways' notifications take any body a gateway sends, JSON or form-encoded. */
  rawBody: boolean;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function operationsOf(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/api/v1/')) continue;
    for (const method of METHODS) {
      const op = item[method] as Record<string, unknown> | undefined;
      if (!op) continue;
      const security = (op.security as Record<string, unknown>[] | undefined) ?? [];
      const keyed = security.some((entry) => 'apiKey' in entry);
      const open = security.length === 0 || security.some((entry) => Object.keys(entry).length === 0);
      const requestBody = op.requestBody as { required?: boolean; content?: Record<string, { schema?: Schema }> } | undefined;
      const jsonBody = requestBody?.content?.['application/json']?.schema ?? null;
      operations.push({
        id: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        parameters: ((op.parameters as Operation['parameters'] | undefined) ?? []).filter((p) => p.in === 'path' || p.in === 'query' || p.in === 'header'),
        body: jsonBody,
        bodyRequired: requestBody?.required === true,
        auth: keyed && !open ? 'required' : keyed ? 'optional' : 'none',
        rawBody: path.includes('/notifications/'),
      });
    }
  }
  return operations;
}

export type Auth = 'owner' | 'member' | 'foreign' | 'none' | 'forged' | 'malformed';

export type Body = { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'raw'; payload: string | Buffer; contentType: string | null };

/** A request as generated: placeholders (`Ref`) still unresolved. */
export interface GeneratedRequest {
  auth: Auth;
  path: Record<string, unknown>;
  query: [string, unknown][];
  headers: Record<string, unknown>;
  body: Body;
  /** Path values sent unencoded (`../`), to walk out of the route. */
  rawPath: boolean;
}

/** Bodies no schema describes: broken JSON, other media types, bytes that are not UTF-8, too much. */
const RAW_BODIES: readonly { payload: string | Buffer; contentType: string | null }[] = [
  { payload: '{', contentType: 'application/json' },
  { payload: '{"a":1,}', contentType: 'application/json' },
  { payload: "{'a':1}", contentType: 'application/json' },
  { payload: 'null', contentType: 'application/json' },
  { payload: '[]', contentType: 'application/json' },
  { payload: '"text"', contentType: 'application/json' },
  { payload: '1e999', contentType: 'application/json' },
  { payload: '\uFEFF{}', contentType: 'application/json' },
  { payload: '{"a":1}{"b":2}', contentType: 'application/json' },
  { payload: '{"name":"a","name":"b"}', contentType: 'application/json' },
  { payload: '{"__proto__":{"admin":true}}', contentType: 'application/json' },
  { payload: `${'['.repeat(20_000)}${']'.repeat(20_000)}`, contentType: 'application/json' },
  { payload: `{"a":"${'x'.repeat(120 * 1024)}"}`, contentType: 'application/json' },
  { payload: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]), contentType: 'application/json' },
  { payload: '{}', contentType: 'application/json; charset=latin1' },
  { payload: '{}', contentType: 'Application/JSON' },
  { payload: '{}', contentType: 'text/plain' },
  { payload: 'a=1&b=2', contentType: 'application/x-www-form-urlencoded' },
  { payload: '<x/>', contentType: 'application/xml' },
  { payload: '--b\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--b--\r\n', contentType: 'multipart/form-data; boundary=b' },
  { payload: '{}', contentType: null },
  { payload: '', contentType: 'application/json' },
];

const ACCEPTS = ['application/json', '*/*', 'application/problem+json', 'text/html', 'application/xml', 'application/json;q=0', 'text/*, application/*;q=0.1', 'garbage/', ''];

/** Header values Node can carry (no control characters but tab; Latin-1 at most). */
const headerText = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS.filter((s) => /^[\t\x20-\x7e]*$/.test(s) && s.length < 300)),
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 300 }),
);

export function requestArbitrary(doc: OpenApiDocument, op: Operation): fc.Arbitrary<GeneratedRequest> {
  const segments = op.path.split('/');
  const path: Record<string, fc.Arbitrary<unknown>> = {};
  const query: fc.Arbitrary<[string, unknown][]>[] = [];
  const headers: Record<string, fc.Arbitrary<unknown>> = {};
  for (const parameter of op.parameters) {
    if (parameter.in === 'path') {
      const before = segments[segments.indexOf(`{${parameter.name}}`) - 1] ?? '';
      const pool = parameter.name === 'uuid' ? before : poolOfProperty(parameter.name);
      const valid =
        parameter.name === 'token'
          ? fc.oneof(
              { weight: 3, arbitrary: fc.nat().map((pick) => new Ref('token', 'tokens', pick)) },
              { weight: 1, arbitrary: schemaArbitrary(parameter.schema, { doc, hostile: true, name: parameter.name, text: true }) },
            )
          : fc.oneof(
              { weight: 4, arbitrary: schemaArbitrary(parameter.schema, { doc, hostile: false, name: parameter.name, pool, text: true }) },
              { weight: 1, arbitrary: schemaArbitrary(parameter.schema, { doc, hostile: true, name: parameter.name, pool, text: true }) },
            );
      path[parameter.name] = valid;
    } else if (parameter.in === 'query') {
      const hostileValue = schemaArbitrary(parameter.schema, { doc, hostile: true, name: parameter.name, text: true });
      const validValue = schemaArbitrary(parameter.schema, { doc, hostile: false, name: parameter.name, text: true });
      const once = (value: fc.Arbitrary<unknown>) =>
        value.map((v) => (Array.isArray(v) ? v.map((item): [string, unknown] => [parameter.name, item]) : [[parameter.name, v] as [string, unknown]]));
      const absent = fc.constant([] as [string, unknown][]);
      // A cursor only means something when the service issued it: valid requests leave it out.
      const valid =
        parameter.name === 'cursor' && !parameter.required
          ? absent
          : fc.oneof({ weight: parameter.required ? 0 : 1, arbitrary: absent }, { weight: 1, arbitrary: once(validValue) });
      // Hostile: absent, once, or repeated (`status=a&status=b`, or a scalar given twice).
      const hostile = fc.oneof(
        { weight: parameter.required ? 0 : 2, arbitrary: absent },
        { weight: 3, arbitrary: once(hostileValue) },
        {
          weight: 1,
          arbitrary: fc.tuple(hostileValue, hostileValue).map(([a, b]): [string, unknown][] => [
            [parameter.name, a],
            [parameter.name, b],
          ]),
        },
      );
      query.push(fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: hostile }));
    } else {
      headers[parameter.name] = fc.oneof(
        { weight: 3, arbitrary: schemaArbitrary(parameter.schema, { doc, hostile: false, name: parameter.name, text: true }).map((v) => sanitizeHeader(String(v))) },
        { weight: 1, arbitrary: headerText },
      );
    }
  }
  // Unknown query parameters, sometimes.
  query.push(
    fc.oneof(
      { weight: 6, arbitrary: fc.constant([] as [string, unknown][]) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.constantFrom('x', 'apiKey', 'api_key', '__proto__', 'limit', 'offset'), fc.constantFrom(...HOSTILE_STRINGS))
          .map(([k, v]): [string, unknown][] => [[k, v]]),
      },
    ),
  );

  const auth: fc.Arbitrary<Auth> =
    op.auth === 'required'
      ? fc.oneof(
          { weight: 24, arbitrary: fc.constant<Auth>('owner') },
          { weight: 4, arbitrary: fc.constant<Auth>('member') },
          { weight: 1, arbitrary: fc.constantFrom<Auth>('foreign', 'none', 'forged', 'malformed') },
        )
      : fc.oneof(
          { weight: 6, arbitrary: fc.constant<Auth>('none') },
          { weight: 2, arbitrary: fc.constantFrom<Auth>('owner', 'member') },
          { weight: 1, arbitrary: fc.constantFrom<Auth>('forged', 'malformed', 'foreign') },
        );

  let body: fc.Arbitrary<Body>;
  const raw = fc.constantFrom(...RAW_BODIES).map((b): Body => ({ kind: 'raw', ...b }));
  if (op.body) {
    const valid = schemaArbitrary(op.body, { doc, hostile: false }).map((value): Body => ({ kind: 'json', value }));
    const hostile = schemaArbitrary(op.body, { doc, hostile: true }).map((value): Body => ({ kind: 'json', value }));
    body = fc.oneof(
      { weight: 8, arbitrary: valid },
      { weight: 8, arbitrary: hostile },
      { weight: 1, arbitrary: raw },
      { weight: 1, arbitrary: hostileValue().map((value): Body => ({ kind: 'json', value })) },
      { weight: op.bodyRequired ? 1 : 3, arbitrary: fc.constant<Body>({ kind: 'none' }) },
    );
  } else if (op.rawBody) {
    body = fc.oneof(
      { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value): Body => ({ kind: 'json', value })) },
      { weight: 2, arbitrary: raw },
      { weight: 1, arbitrary: fc.string({ maxLength: 200 }).map((payload): Body => ({ kind: 'raw', payload, contentType: 'application/x-www-form-urlencoded' })) },
      { weight: 1, arbitrary: fc.constant<Body>({ kind: 'none' }) },
    );
  } else {
    // Operations without a body: mostly none, sometimes one anyway.
    body = fc.oneof(
      { weight: 8, arbitrary: fc.constant<Body>({ kind: 'none' }) },
      { weight: 1, arbitrary: raw },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((value): Body => ({ kind: 'json', value })) },
    );
  }

  const extraHeaders = fc.record(
    {
      accept: fc.constantFrom(...ACCEPTS),
      'accept-language': fc.constantFrom('pl', 'pl-PL,pl;q=0.9', 'en', 'de', '*', 'x'.repeat(300), 'pl;q=abc'),
      'x-request-id': headerText,
      'x-forwarded-for': fc.constantFrom('10.0.0.1', '1.2.3.4, 5.6.7.8', 'garbage', '::1'),
      'idempotency-key': headerText,
    },
    { requiredKeys: [] },
  );
  const extras = fc.oneof({ weight: 6, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: extraHeaders });

  return fc.record({
    auth,
    path: fc.record(path),
    query: fc.tuple(...query).map((parts) => parts.flat()),
    headers: fc.tuple(fc.record(headers, { requiredKeys: [] }), extras).map(([a, b]) => ({ ...b, ...a })),
    body,
    rawPath: fc.oneof({ weight: 30, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  });
}

function sanitizeHeader(value: string): string {
  return value.replace(/[^\t\x20-\x7e]/g, '?');
}

/**
 * JSON text of a generated value: `RawJson` is written as its text, `Ref`s must be gone.
 * Keys come from `Object.keys`, so an own `__proto__` key is written like any other.
 */
export function serialize(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (value instanceof Ref) throw new Error('unresolved Ref');
  if (Array.isArray(value)) return `[${value.map(serialize).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .map((key) => `${JSON.stringify(key)}:${serialize((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return 'null';
  if (value === undefined) return 'null';
  return JSON.stringify(value);
}

/** Walks a value, replacing every `Ref` by what `resolve` gives (a string, or a slot object). */
export function resolveRefs(value: unknown, resolve: (ref: Ref) => unknown, mapString: (text: string) => string = (text) => text): unknown {
  if (value instanceof Ref) return resolve(value);
  if (value instanceof RawJson) return value;
  if (typeof value === 'string') return mapString(value);
  if (Array.isArray(value)) return value.map((item) => resolveRefs(item, resolve, mapString));
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      Object.defineProperty(copy, key, { value: resolveRefs((value as Record<string, unknown>)[key], resolve, mapString), enumerable: true, configurable: true, writable: true });
    }
    return copy;
  }
  return value;
}

/** The text of a path or query value as a client would put it in the URL. */
export function textOf(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') return String(value);
  return JSON.stringify(value);
}
