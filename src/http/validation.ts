import { Ajv, type Options } from 'ajv';
import * as ajvFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS; under NodeNext its callable export sits on `.default`.
type AddFormats = (ajv: Ajv) => Ajv;
const addFormats = ((ajvFormats as unknown as { default: AddFormats | { default: AddFormats } }).default as { default?: AddFormats }).default ??
  ((ajvFormats as unknown as { default: AddFormats }).default);

const COMMON: Options = {
  // Every invalid field is reported, not just the first.
  allErrors: true,
  // The contract rejects unknown fields instead of silently dropping them.
  removeAdditional: false,
  // Defaults are applied by the domain, where they are documented and tested.
  useDefaults: false,
  strict: false,
};

/**
 * Bodies are validated strictly: `"offset": "7"` is a wrong type, not 7. Query strings and
 * path parameters arrive as text, so those are coerced (`?limit=10`).
 */
export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const body = addFormats(new Ajv({ ...COMMON, coerceTypes: false }));
  const text = addFormats(new Ajv({ ...COMMON, coerceTypes: 'array' }));
  return ({ schema, httpPart }) => (httpPart === 'body' ? body : text).compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
}
