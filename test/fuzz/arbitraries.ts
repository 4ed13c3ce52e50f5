import fc from 'fast-check';

/**
 * fast-check arbitraries derived from the service's own OpenAPI document, plus hostile
 * values. `schemaArbitrary(schema, options)` follows the schema (types, `$ref`, objects with
 * their required and optional fields, arrays, enums, `anyOf`, formats, patterns as far as
 * fast-check can, min/max); with `hostile: true` any node may instead become a hostile value
 * (control characters, lone surrogates, huge strings and numbers, wrong types, deep nesting,
 * injection strings), a required field may go missing and an unknown one may appear.
 *
 * Values the fixture knows and the generator cannot (the uuid of a record the test created,
 * a host's username, an offered slot, a manage token) are placeholders, `Ref`s, resolved just
 * before the request is sent, so a sampled case stays reproducible from its seed.
 */

export type Schema = Record<string, unknown>;
export interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, Schema> };
}

/** A value the fixture fills in at send time: `pick` chooses among the pool's entries. */
export class Ref {
  constructor(
    readonly kind: RefKind,
    readonly pool: string,
    readonly pick: number,
    readonly upperCase = false,
  ) {}
}
export type RefKind = 'uuid' | 'username' | 'slot' | 'slot-start' | 'slot-topic' | 'token';

/** JSON text sent as is: `-0`, `1e999`, 5,000 nested arrays: values JSON.stringify cannot write. */
export class RawJson {
  constructor(readonly text: string) {}
}

const CONTROL = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).concat('\u007F');

/** Strings a hostile client sends; each is a single value of a field. */
export const HOSTILE_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  'line\r\nBcc: attacker@evil.test',
  'Jan"; ROLE=CHAIR; CN="x',
  'Jan";RSVP=TRUE:mailto:attacker@evil.test',
  'x\r\nATTENDEE:mailto:attacker@evil.test',
  'X-Injected: 1\r\n\r\n<html>',
  '\uD800',
  'a\uDC00b',
  '\uDBFF\uDFFF',
  '\uFEFFbom',
  '\u202Eevil.exe\u202Dtxt',
  'שלום עולם',
  'مرحبا',
  '👩‍👩‍👧‍👦🏳️‍🌈',
  '𝕳𝖊𝖑𝖑𝖔',
  'e\u0301\u0301\u0301',
  '../../../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  '..\\..\\windows\\win.ini',
  "' OR '1'='1",
  "'; DROP TABLE meetings; --",
  '1; select pg_sleep(10)',
  '" OR ""="',
  '%00',
  '%E0%A4%A',
  '%zz',
  '%',
  '%s%s%s%n',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4j-style lookup, sent literally as hostile input.
  '${jndi:ldap://127.0.0.1/a}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '__proto__',
  'constructor',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-0',
  '1e308',
  '0x10',
  'true',
  '[]',
  '{}',
  '2027-03-29T23:59:60Z',
  '2027-02-30T07:00:00Z',
  '2027-03-29T24:00:00Z',
  '2027-03-29T07:00:00+01:00',
  '2027-03-29t07:00:00z',
  '+275760-09-13T00:00:00.000Z',
  '-271821-04-20T00:00:00.000Z',
  '0000-00-00T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '2027-02-29',
  '2028-02-29',
  '2027-13-01',
  '24:00',
  '23:60',
  'Europe/Warsaw',
  'europe/warsaw',
  'EUROPE/WARSAW',
  'Etc/GMT+14',
  'UTC',
  '+01:00',
  'Mars/Olympus_Mons',
  'Europe/../../etc/passwd',
  'Anna',
  'ANNA-NOWAK',
  '00000000-0000-0000-0000-000000000000',
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  '0193b0a4-6f1e-7c3a-9d2b-5e8f1a2b3c4',
  '0193b0a4-6f1e-7c3a-9d2b-5e8f1a2b3c4dd',
  '{0193b0a4-6f1e-7c3a-9d2b-5e8f1a2b3c4d}',
  'urn:uuid:0193b0a4-6f1e-7c3a-9d2b-5e8f1a2b3c4d',
  '0193b0a46f1e7c3a9d2b5e8f1a2b3c4d',
  ' 0193b0a4-6f1e-7c3a-9d2b-5e8f1a2b3c4d',
  'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz',
  'a@b',
  'a@b.c',
  '"quoted"@example.com',
  'user@[127.0.0.1]',
  'jan@example.com\r\nBcc: x@evil.test',
  'javascript:alert(1)',
  'file:///etc/passwd',
  'http://user:pass@127.0.0.1/',
  'webcal://127.0.0.1:1/feed.ics',
  'http://[::1]:1/',
  'http://127.0.0.1:1/x',
  'gopher://127.0.0.1:1/',
  'a'.repeat(10_240),
  '\u0000'.repeat(1000),
  'é'.repeat(5001),
  '😀'.repeat(3000),
  ...CONTROL.map((c) => `x${c}y`),
];

/** Numbers past every bound a column or a calculation has. */
const HOSTILE_NUMBERS: readonly number[] = [
  0,
  -1,
  1,
  0.5,
  -0.5,
  1e-7,
  7,
  14,
  1.5,
  29.999,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 32,
  2 ** 53,
  2 ** 53 + 2,
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  1e15,
  1e21,
  1e308,
  -1e308,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
];

/** JSON texts no JavaScript value serialises to, or that nest past any sane depth. */
const HOSTILE_RAW_JSON: readonly string[] = [
  '-0',
  '-0.0',
  '1e999',
  '-1e999',
  '1E+2',
  '100000000000000000000000000000000000000001',
  '0.1e1',
  '1.0',
  `${'['.repeat(5000)}${']'.repeat(5000)}`,
  `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`,
  `{"__proto__":{"admin":true}}`,
  `{"constructor":{"prototype":{"x":1}}}`,
  '"\\ud800"',
  '"\\u0000"',
];

/** One hostile value of any JSON type (one instance: fast-check's full-Unicode character tables are costly to build). */
export function hostileValue(): fc.Arbitrary<unknown> {
  return HOSTILE_VALUE;
}

const HOSTILE_VALUE: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_NUMBERS) },
  { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_RAW_JSON).map((text) => new RawJson(text)) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [null], { '': '' }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.integer({ min: 0, max: 0x10ffff }).map((codePoint) => String.fromCodePoint(codePoint)), maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...CONTROL, '"', '\\', '\r', '\n', 'a', '\uD800', '\uDFFF'), maxLength: 30 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

/** A hostile object key (an unknown field, or a prototype-polluting one). */
const hostileKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'uuid', 'accountUuid', 'admin', '', ' ', 'a\u0000', 'ID', 'toString'),
  fc.string({ maxLength: 12 }),
);

export interface ArbitraryOptions {
  doc: OpenApiDocument;
  hostile: boolean;
  /** Where the value goes: a property or parameter name, used to pick pools and real values. */
  name?: string | undefined;
  /** The pool a uuid of this place most likely comes from (`meeting-topics`, `teams`, …). */
  pool?: string | undefined;
  /** Query and path values are text: numbers and booleans are written as the client would. */
  text?: boolean | undefined;
}

/** IANA zones (and near-misses) a client would send. */
const ZONES = [
  'Europe/Warsaw',
  'America/New_York',
  'Asia/Kolkata',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Pacific/Kiritimati',
  'America/St_Johns',
  'UTC',
  'Etc/GMT-14',
  'Asia/Kathmandu',
  'America/Port-au-Prince',
];

export function resolveSchema(doc: OpenApiDocument, schema: Schema): Schema {
  let current = schema;
  for (let hops = 0; typeof current.$ref === 'string' && hops < 20; hops += 1) {
    const ref = current.$ref as string;
    const name = ref.startsWith('#/components/schemas/') ? ref.slice('#/components/schemas/'.length) : ref;
    const target = doc.components?.schemas?.[name];
    if (!target) throw new Error(`unresolved $ref ${ref}`);
    current = target;
  }
  return current;
}

export function schemaArbitrary(schema: Schema, options: ArbitraryOptions): fc.Arbitrary<unknown> {
  const valid = validArbitrary(resolveSchema(options.doc, schema), options);
  if (!options.hostile) return valid;
  return fc.oneof({ weight: 10, arbitrary: valid }, { weight: 1, arbitrary: hostileValue() });
}

function validArbitrary(schema: Schema, options: ArbitraryOptions): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) {
    const branches = ((schema.anyOf ?? schema.oneOf) as Schema[]).map((branch) => schemaArbitrary(branch, options));
    return fc.oneof(...branches);
  }
  if (Array.isArray(schema.enum)) {
    const values = schema.enum as unknown[];
    const exact = fc.constantFrom(...values);
    if (!options.hostile) return exact;
    // Near misses: another letter case, a space around.
    return fc.oneof(
      { weight: 8, arbitrary: exact },
      { weight: 1, arbitrary: exact.map((v) => (typeof v === 'string' ? v.toUpperCase() : v)) },
      { weight: 1, arbitrary: exact.map((v) => ` ${String(v)}`) },
    );
  }
  const type = Array.isArray(schema.type) ? (schema.type as string[])[0] : (schema.type as string | undefined);
  switch (type) {
    case 'object':
      return objectArbitrary(schema, options);
    case 'array': {
      const items = (schema.items as Schema | undefined) ?? {};
      const minLength = (schema.minItems as number | undefined) ?? 0;
      const maxLength = Math.min((schema.maxItems as number | undefined) ?? 4, minLength + 4);
      const element = schemaArbitrary(items, options);
      const arrays = schema.uniqueItems ? fc.uniqueArray(element, { minLength, maxLength, selector: (v) => JSON.stringify(v) }) : fc.array(element, { minLength, maxLength });
      if (!options.hostile) return arrays;
      return fc.oneof(
        { weight: 8, arbitrary: arrays },
        // Past maxItems, and the same element many times.
        {
          weight: 1,
          arbitrary: fc.array(element, { minLength: ((schema.maxItems as number | undefined) ?? 50) + 1, maxLength: ((schema.maxItems as number | undefined) ?? 50) + 3 }),
        },
        { weight: 1, arbitrary: element.map((v) => Array.from({ length: 200 }, () => v)) },
      );
    }
    case 'integer':
    case 'number':
      return numberArbitrary(schema, type, options);
    case 'boolean':
      return options.text ? fc.constantFrom('true', 'false', '1', '0') : fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'string':
      return stringArbitrary(schema, options);
    default:
      // No type (free-form, or `{}`): any JSON.
      return fc.jsonValue({ maxDepth: 3 });
  }
}

function objectArbitrary(schema: Schema, options: ArbitraryOptions): fc.Arbitrary<unknown> {
  const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const names = Object.keys(properties);
  if (names.length === 0 || schema['x-free-form'] === true) {
    const free = fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 });
    if (!options.hostile) return free;
    return fc.oneof(
      { weight: 6, arbitrary: free },
      { weight: 1, arbitrary: fc.integer({ min: 7, max: 12 }).map((depth) => nest(depth)) },
      { weight: 1, arbitrary: fc.constant(Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`k${i}`, i]))) },
      { weight: 1, arbitrary: fc.dictionary(hostileKey, hostileValue(), { maxKeys: 4 }) },
    );
  }
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const name of names) {
    record[name] = schemaArbitrary(properties[name]!, { ...options, name, pool: poolOfProperty(name) ?? options.pool, text: false });
    const special = specialProperty(name, properties[name]!, options);
    if (special) record[name] = fc.oneof({ weight: 3, arbitrary: special }, { weight: 2, arbitrary: record[name] });
  }
  const requiredKeys = names.filter((name) => required.has(name));
  // Each optional field is sent one time in three, so a request with every field right is common.
  const entries = names.map((name) =>
    required.has(name)
      ? record[name]!.map((value) => [name, value] as const)
      : fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: record[name]!.map((value) => [name, value] as const) }),
  );
  const base = fc.tuple(...entries).map((pairs) => {
    const value: Record<string, unknown> = {};
    for (const pair of pairs) if (pair !== null) value[pair[0]] = pair[1];
    return value;
  });
  if (!options.hostile) return base;
  return fc.oneof(
    { weight: 10, arbitrary: base },
    // A required field left out.
    ...(requiredKeys.length > 0
      ? [{ weight: 1, arbitrary: fc.tuple(base, fc.constantFrom(...requiredKeys)).map(([value, drop]) => withoutKey(value as Record<string, unknown>, drop)) }]
      : []),
    // An unknown field.
    { weight: 1, arbitrary: fc.tuple(base, hostileKey, hostileValue()).map(([value, key, extra]) => withKey(value as Record<string, unknown>, key, extra)) },
  );
}

function withoutKey(value: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = { ...value };
  delete copy[key];
  return copy;
}

function withKey(value: Record<string, unknown>, key: string, extra: unknown): Record<string, unknown> {
  // defineProperty, so `__proto__` becomes an own key that JSON.stringify writes.
  const copy = { ...value };
  Object.defineProperty(copy, key, { value: extra, enumerable: true, configurable: true, writable: true });
  return copy;
}

function nest(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i += 1) value = i % 2 === 0 ? { a: value } : [value];
  return value;
}

/** Uuids in these places most likely name a record of this kind. */
export function poolOfProperty(name: string): string | undefined {
  switch (name) {
    case 'meetingTopic':
      return 'meeting-topics';
    case 'team':
    case 'teamUuid':
      return 'teams';
    case 'userUuid':
      return 'users';
    case 'priceVariant':
      return 'price-variants';
    case 'deliveryUuid':
      return 'deliveries';
    case 'accountUuid':
      return 'accounts';
    default:
      return undefined;
  }
}

/** Real values the fixture knows, for the places that need them to get past a 404 or 409. */
function specialProperty(name: string, schema: Schema, options: ArbitraryOptions): fc.Arbitrary<unknown> | undefined {
  if (name === 'dates' && schema.type === 'array') {
    return fc.array(
      fc.nat().map((pick) => new Ref('slot', 'slots', pick)),
      { minLength: 1, maxLength: 3 },
    );
  }
  if ((name === 'username' || name === 'hosts') && schema.type === 'string') return fc.nat().map((pick) => new Ref('username', 'usernames', pick));
  if (name === 'hosts' && schema.type === 'array')
    return fc.array(
      fc.nat().map((pick) => new Ref('username', 'usernames', pick)),
      { minLength: 1, maxLength: 3 },
    );
  if (name === 'start' && schema.format === 'date-time') return fc.nat().map((pick) => new Ref('slot-start', 'slots', pick));
  if (name === 'url' && schema.type === 'string') return loopbackUrl(options);
  // Values the fixture's account accepts: its places, its configured gateway, its discount code.
  if (name === 'place' && schema.type === 'string') return fc.constantFrom('zoom', 'offline', 'phone-call');
  if (name === 'places' && schema.type === 'array') return fc.subarray(['zoom', 'offline', 'phone-call'], { minLength: 1 });
  if (name === 'gateway' && schema.type === 'string') return fc.constant('stripe');
  // The topic of the first offered slot in the same request (`dates`), so a booking can succeed.
  if (name === 'meetingTopic' && schema.type === 'string') return fc.nat().map((pick) => new Ref('slot-topic', 'meeting-topics', pick));
  if (name === 'website' && schema.type === 'string') return fc.constant('');
  if (name === 'code' && schema.type === 'string') return fc.stringMatching(/^[A-Za-z0-9_-]{3,40}$/);
  if (name === 'discount' && schema.type === 'string') return fc.constantFrom('SPRING', 'spring');
  return undefined;
}

/**
 * URLs a calendar or a webhook may be registered with. Only loopback hosts (an IP literal,
 * so no name is ever looked up) and the test's own stub: the fuzz never reaches past this
 * machine whatever it registers.
 */
export function loopbackUrl(options: ArbitraryOptions & { stubUrl?: string }): fc.Arbitrary<unknown> {
  void options;
  return fc.oneof(
    fc.constantFrom('@stub@/calendar.ics', '@stub@/dav/', 'webcal://@stubhost@/feed.ics', '@stub@/hook', 'http://127.0.0.1:1/closed', 'http://[::1]:1/closed'),
    fc.string({ maxLength: 20 }).map((tail) => `@stub@/${encodeURIComponent(tail)}`),
  );
}

function numberArbitrary(schema: Schema, type: 'integer' | 'number', options: ArbitraryOptions): fc.Arbitrary<unknown> {
  const min = (schema.minimum as number | undefined) ?? (schema.exclusiveMinimum as number | undefined) ?? -1_000_000;
  const max = (schema.maximum as number | undefined) ?? (schema.exclusiveMaximum as number | undefined) ?? 1_000_000;
  const multipleOf = schema.multipleOf as number | undefined;
  let inRange: fc.Arbitrary<number>;
  if (type === 'integer') {
    if (multipleOf) {
      const low = Math.ceil(min / multipleOf);
      const high = Math.floor(max / multipleOf);
      inRange = fc
        .oneof({ weight: 3, arbitrary: fc.integer({ min: low, max: Math.min(high, low + 10) }) }, { weight: 1, arbitrary: fc.integer({ min: low, max: high }) })
        .map((k) => k * multipleOf);
    } else {
      // Mostly small values (where the domain's own, tighter rules usually pass), sometimes anything the schema allows.
      inRange = fc.oneof(
        { weight: 3, arbitrary: fc.integer({ min, max: Math.min(max, Math.max(min, 0) + 120) }) },
        { weight: 1, arbitrary: fc.integer({ min, max }) },
        { weight: 1, arbitrary: fc.constantFrom(min, max) },
      );
    }
  } else {
    inRange = fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  }
  const near = fc.constantFrom(min - 1, max + 1, min - 0.5, max + 0.5);
  const arbitrary = options.hostile
    ? fc.oneof({ weight: 6, arbitrary: inRange }, { weight: 1, arbitrary: near }, { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_NUMBERS) })
    : inRange;
  return options.text
    ? fc.oneof(
        { weight: 6, arbitrary: arbitrary.map(String) },
        { weight: 1, arbitrary: fc.constantFrom('1e308', '-0', '0x10', ' 7', '7 ', '1_000', 'NaN', 'Infinity', '07', '+7', '') },
      )
    : arbitrary;
}

function stringArbitrary(schema: Schema, options: ArbitraryOptions): fc.Arbitrary<unknown> {
  const minLength = (schema.minLength as number | undefined) ?? 0;
  const maxLength = (schema.maxLength as number | undefined) ?? 64;
  const fits = (s: string) => s.length >= minLength && s.length <= maxLength;
  const format = schema.format as string | undefined;
  const pattern = schema.pattern as string | undefined;
  let valid: fc.Arbitrary<string>;
  if (format === 'uuid') {
    const pool = options.pool ?? 'any';
    valid = fc.oneof(
      { weight: 4, arbitrary: fc.nat().map((pick) => new Ref('uuid', pool, pick) as unknown as string) },
      { weight: 1, arbitrary: fc.nat().map((pick) => new Ref('uuid', pool, pick, true) as unknown as string) },
      { weight: 1, arbitrary: fc.uuid({ version: [4, 7] }) },
    );
  } else if (format === 'date-time') {
    valid = fc
      .date({ min: new Date('2026-06-01T00:00:00Z'), max: new Date('2028-12-31T23:59:59Z'), noInvalidDate: true })
      .chain((date) => fc.constantFrom(date.toISOString(), date.toISOString().replace(/\.\d{3}Z$/, 'Z'), `${date.toISOString().slice(0, 16)}Z`));
  } else if (format === 'date' || pattern === '^[0-9]{4}-[0-9]{2}-[0-9]{2}$') {
    valid = fc.date({ min: new Date('2026-06-01T00:00:00Z'), max: new Date('2028-12-31T00:00:00Z'), noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10));
  } else if (format === 'email' || options.name === 'email' || pattern?.includes('@')) {
    valid = fc.oneof(
      fc.emailAddress(),
      fc.nat({ max: 999 }).map((n) => `person${n}@example.com`),
      fc.constantFrom(' Anna.Nowak@Example.COM ', 'jan+tag@example.co.uk'),
    );
  } else if (schema['x-time-zone'] === true || options.name === 'timezone') {
    valid = fc.oneof(
      fc.constantFrom(...ZONES),
      fc.constantFrom(...ZONES).map((zone) => zone.toLowerCase()),
    );
  } else if (options.name === 'currency') {
    valid = fc.constantFrom('PLN', 'EUR', 'USD', 'JPY', 'KWD', 'XXX');
  } else if (pattern !== undefined && /^\^[^(]*\$$/.test(pattern) && !pattern.includes('\\u')) {
    // Simple patterns (`^[A-Z]{3}$`, `^[A-Za-z][A-Za-z0-9_-]{0,63}$`, times of day) are generated from the regex.
    valid = fc.stringMatching(new RegExp(pattern)).filter(fits);
  } else if (pattern?.startsWith('^((')) {
    valid = fc.oneof(fc.stringMatching(new RegExp(pattern)), fc.constantFrom('09:00', '17:00', '00:00', '24:00', '12:30'));
  } else {
    // Free text with the pattern's control-character rules: printable text of every script.
    const printable = fc.constantFrom('a', 'Z', ' ', '-', 'ł', 'Ż', 'é', '中', '😀', "'", '"', ';', '<', '&', '\u200F');
    const multiLine = pattern?.includes('\\u000B');
    const unit = multiLine ? fc.oneof({ weight: 10, arbitrary: printable }, { weight: 1, arbitrary: fc.constantFrom('\t', '\n', '\r') }) : printable;
    const short = fc.string({ unit, minLength: Math.max(minLength, 1), maxLength: Math.min(maxLength, 40) }).filter((s) => s.trim().length > 0 || minLength === 0);
    valid = fc.oneof({ weight: 6, arbitrary: short }, { weight: 1, arbitrary: fc.constantFrom('Anna', 'Intro call', 'Łukasz Żółć', 'anna-nowak') });
  }
  if (!options.hostile) return valid;
  return fc.oneof(
    { weight: 8, arbitrary: valid },
    // Past maxLength by one, and the longest allowed.
    { weight: 1, arbitrary: fc.constant('x'.repeat(maxLength + 1)) },
    { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  );
}
