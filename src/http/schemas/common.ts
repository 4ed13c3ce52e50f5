import { Type, type Static, type TSchema } from 'typebox';

/** A string enum that documents as `{ type: string, enum: [...] }` and types as the literal union. */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/** An e-mail address, surrounding white space allowed (it is trimmed). */
export const EMAIL_PATTERN = '^\\s*[^\\s@]+@[^\\s@.]+(\\.[^\\s@.]+)+\\s*$';

export const Uuid = Type.String({ format: 'uuid', description: 'A UUID (v4 or v7).', examples: ['0193b0a4-6f1e-7c3a-9d2b-5e8f1a2b3c4d'] });
export const Timestamp = Type.String({ format: 'date-time', description: 'An ISO 8601 UTC instant with milliseconds.', examples: ['2027-03-29T07:00:00.000Z'] });
export const TimeZone = Type.String({ minLength: 1, maxLength: 64, description: 'An IANA time zone name.', examples: ['Europe/Warsaw'] });
/** A free-form JSON object (form answers, metadata, gateway settings). */
export const FreeObject = Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true });

export const FieldErrorSchema = Type.Object({
  path: Type.String({ description: 'JSON Pointer into the request body, or /query/…, /params/…' }),
  message: Type.String(),
});

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'Relative URI of the explanation in /docs/problems.' }),
    title: Type.String(),
    status: Type.Integer(),
    code: Type.String({ description: 'Stable machine-readable code; never changes with the language.' }),
    detail: Type.String(),
    errors: Type.Optional(Type.Array(FieldErrorSchema)),
  },
  { $id: 'Problem', title: 'Problem', description: 'RFC 9457 problem details (application/problem+json).' },
);
export type Problem = Static<typeof ProblemSchema>;

export const TeamUuidParams = Type.Object({ teamUuid: Uuid });
export const UuidParams = Type.Object({ uuid: Uuid });

/** Problem responses for the given statuses, so each route documents the errors it can give. */
export function problemResponses(...statuses: number[]): Record<number, unknown> {
  const responses: Record<number, unknown> = {};
  for (const status of statuses) responses[status] = Type.Ref('Problem');
  return responses;
}

/** The errors every authenticated JSON route can give. */
export const AUTHENTICATED_ERRORS = [400, 401, 406, 413, 415, 429] as const;
export const API_KEY_SECURITY = [{ apiKey: [] }];
