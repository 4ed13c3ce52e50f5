import { Ajv, type ErrorObject, type Options, type SchemaValidateFunction } from 'ajv';
import * as ajvFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { checkFreeForm, escapePointer } from '../domain/free-form.js';
import { isValidTimeZone } from '../domain/time-zones.js';
import type { DeferredCompiles } from './deferred-compile.js';
import { routeKeyOf, type RepeatedBodies } from './repeated-bodies.js';
import { PATTERN_MESSAGES } from './schemas/common.js';

// ajv-formats is CommonJS; under NodeNext its callable export sits on `.default`.
type AddFormats = (ajv: Ajv) => Ajv;
const addFormats =
  ((ajvFormats as unknown as { default: AddFormats | { default: AddFormats } }).default as { default?: AddFormats }).default ??
  (ajvFormats as unknown as { default: AddFormats }).default;

const COMMON: Options = {
  // Every invalid field is reported, not just the first.
  allErrors: true,
  // Unknown fields are refused (400 at their path) instead of silently dropped: a typo must not pass for a default.
  removeAdditional: false,
  // Defaults are applied by the domain, where they are documented and tested.
  useDefaults: false,
  strict: false,
};

const UTC_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?Z$/;

/**
 * The `date-time` of requests: an ISO 8601 UTC instant that `Date.parse` reads as written.
 * ajv-formats takes offsets, a space or a lower-case `t`, and second 60 (a leap second
 * `Date.parse` turns into NaN); V8 takes 30 February (as 2 March) and hour 24. All of
 * those are refused. `isUtcInstant('2027-03-29T07:00:00.000Z')` → true;
 * `isUtcInstant('2027-02-30T07:00:00Z')` → false.
 */
export function isUtcInstant(value: string): boolean {
  const match = UTC_INSTANT.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => (part === undefined ? 0 : Number(part))) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return false;
  const daysInMonth = [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return day <= daysInMonth && !Number.isNaN(Date.parse(value));
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/**
 * `x-free-form: true` (on FreeObject) bounds a free-form object's depth, size and strings
 * (domain/free-form.ts). It reports each problem at its own place (`/metadata/a/b/c`).
 * Ajv itself never descends into a free-form object, so this check is the first thing
 * to walk it, and it walks iteratively: no input can overflow the stack here.
 */
function validateFreeForm(enabled: boolean, data: unknown, _parentSchema: unknown, dataCxt?: { instancePath: string }): boolean {
  if (!enabled || data === null || typeof data !== 'object') return true;
  const problems = checkFreeForm(data);
  if (problems.length === 0) return true;
  const base = dataCxt?.instancePath ?? '';
  validateFreeForm.errors = problems.map((problem) => ({ instancePath: base + problem.path, keyword: 'x-free-form', message: problem.message, params: {} }));
  return false;
}
validateFreeForm.errors = null as Partial<ErrorObject>[] | null;

/** RFC 9562's textual UUID, in either letter case (and nothing around it: no `urn:uuid:`, no braces). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `x-lowercase` (added by `withLowerCaseUuids` to every `format: uuid`): UUIDs compare
 * case-insensitively (RFC 9562), and the service stores and looks them up in lower case,
 * so an upper-case UUID is lowered before anything uses it: it finds the same record.
 */
function lowerCase(
  _enabled: boolean,
  data: unknown,
  _parentSchema: unknown,
  dataCxt?: { parentData: Record<string | number, unknown>; parentDataProperty: string | number },
): boolean {
  if (typeof data === 'string' && dataCxt?.parentData !== undefined && data !== data.toLowerCase()) {
    dataCxt.parentData[dataCxt.parentDataProperty] = data.toLowerCase();
  }
  return true;
}

/** A copy of `schema` whose every `format: uuid` also carries `x-lowercase` (the original feeds the document, untouched). */
export function withLowerCaseUuids(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withLowerCaseUuids);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Record<string | symbol, unknown> = {};
  for (const key of Reflect.ownKeys(schema)) copy[key] = withLowerCaseUuids((schema as Record<string | symbol, unknown>)[key]);
  if (copy.format === 'uuid') copy['x-lowercase'] = true;
  return copy;
}

function validateTimeZone(enabled: boolean, data: unknown): boolean {
  if (!enabled || typeof data !== 'string' || isValidTimeZone(data)) return true;
  validateTimeZone.errors = [{ keyword: 'x-time-zone', message: 'must be a valid IANA time zone', params: {} }];
  return false;
}
validateTimeZone.errors = null as Partial<ErrorObject>[] | null;

function configure(ajv: Ajv): Ajv {
  addFormats(ajv);
  ajv.addFormat('date-time', { type: 'string', validate: isUtcInstant });
  ajv.addFormat('uuid', { type: 'string', validate: (value: string) => UUID.test(value) });
  // An IANA zone Intl knows, checked with the other schema rules so it is reported with them.
  // A keyword, not a format: the response serialiser's Ajv would warn about an unknown format.
  ajv.addKeyword({ keyword: 'x-time-zone', schemaType: 'boolean', errors: true, validate: validateTimeZone as SchemaValidateFunction });
  ajv.addKeyword({ keyword: 'x-lowercase', schemaType: 'boolean', modifying: true, errors: false, validate: lowerCase as SchemaValidateFunction });
  // OpenAPI's serialisation of a query parameter (src/http/query-lists.ts): for the document, not a rule.
  ajv.addKeyword({ keyword: 'style', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'explode', schemaType: 'boolean' });
  ajv.addKeyword({ keyword: 'x-free-form', schemaType: 'boolean', errors: true, validate: validateFreeForm as SchemaValidateFunction });
  return ajv;
}

type Validator = ((data: unknown) => boolean) & { errors?: Partial<ErrorObject>[] | null };

/**
 * Bodies are validated strictly: `"offset": "7"` is a wrong type, not 7. Query strings and
 * path parameters arrive as text, so those are coerced (`?limit=10`).
 *
 * Every validator also refuses U+0000 in any string it lets through, wherever it sits: the
 * schemas refuse it field by field, and this catches a field whose schema forgot, because
 * PostgreSQL cannot store it and the service must not answer with a 500.
 */
export function createValidatorCompiler(compiles: DeferredCompiles, bodies?: RepeatedBodies): FastifySchemaCompiler<unknown> {
  const body = configure(new Ajv({ ...COMMON, coerceTypes: false }));
  const text = configure(new Ajv({ ...COMMON, coerceTypes: 'array' }));
  return ({ schema, httpPart, method, url }) => {
    const compiled = compiles.defer(() => (httpPart === 'body' ? body : text).compile(withLowerCaseUuids(schema) as object));
    // A body this route accepted before, sent again byte for byte (see repeated-bodies.ts).
    const repeated = httpPart === 'body' && bodies !== undefined ? { bodies, route: routeKeyOf(String(method), url) } : null;
    const validate: Validator = (data) => {
      if (repeated?.bodies.isKept(repeated.route, data)) {
        validate.errors = null;
        return true;
      }
      const valid = compiled(data);
      // An unknown zone alone does not stop the request here: the use case checks the zone
      // again with the problems only it can see (overlapping hours, a place not offered…) and
      // reports them all at once. With other schema problems, it is reported with those.
      if (!valid && !(compiled.errors ?? []).every((error) => error.keyword === 'x-time-zone')) {
        validate.errors = (compiled.errors ?? []).map(withReadableMessage);
        return false;
      }
      const nul = findNulCharacters(data);
      validate.errors = nul.length > 0 ? nul : null;
      if (nul.length > 0) return false;
      repeated?.bodies.accepted(repeated.route, data);
      return true;
    };
    return validate as ReturnType<FastifySchemaCompiler<unknown>>;
  };
}

/** `must match pattern "^[^\u0000-…]*$"` says nothing to a person; the rule's own sentence does. */
function withReadableMessage(error: ErrorObject): ErrorObject {
  if (error.keyword !== 'pattern') return error;
  const message = PATTERN_MESSAGES[String(error.params.pattern)];
  return message === undefined ? error : { ...error, message };
}

const MAX_NUL_WALK_DEPTH = 64;

/** Paths of strings (and keys) holding U+0000, walked iteratively and only so deep. */
function findNulCharacters(data: unknown): Partial<ErrorObject>[] {
  // Nearly every request has none: a walk that builds no paths says so first (the paths, a
  // string per field, were most of this check's cost on every request).
  if (!holdsNul(data)) return [];
  const errors: Partial<ErrorObject>[] = [];
  const message = 'must not contain the NUL character (U+0000)';
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: data, path: '', depth: 0 }];
  while (stack.length > 0 && errors.length < 20) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) errors.push({ instancePath: path, keyword: 'x-no-nul', message, params: {} });
    } else if (value !== null && typeof value === 'object' && depth < MAX_NUL_WALK_DEPTH) {
      for (const [key, inner] of Object.entries(value)) {
        const innerPath = `${path}/${escapePointer(key)}`;
        if (key.includes('\u0000')) errors.push({ instancePath: innerPath, keyword: 'x-no-nul', message, params: {} });
        else stack.push({ value: inner, path: innerPath, depth: depth + 1 });
      }
    }
  }
  return errors;
}

/** Whether any string or key within `data` (as deep as findNulCharacters walks) holds U+0000. */
function holdsNul(data: unknown): boolean {
  const stack: unknown[] = [data];
  const depths: number[] = [0];
  while (stack.length > 0) {
    const value = stack.pop();
    const depth = depths.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return true;
    } else if (value !== null && typeof value === 'object' && depth < MAX_NUL_WALK_DEPTH) {
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        if (key.includes('\u0000')) return true;
        stack.push((value as Record<string, unknown>)[key]);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}
