import { Type, type Static, type TSchema } from 'typebox';
import { FREE_FORM_LIMITS, describeFreeFormLimits } from '../../domain/free-form.js';

/** A string enum that documents as `{ type: string, enum: [...] }` and types as the literal union. */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/*
 * Text rules, shared so every field says and checks the same thing. Each is a `pattern`
 * (documented in the OpenAPI document, checkable by clients) whose Ajv error
 * validation.ts turns into the sentence in PATTERN_MESSAGES. Patterns are anchored and
 * linear: a 100 KiB string cannot make them backtrack.
 */

/** One line: no control characters (U+0000–U+001F, U+007F). */
export const SINGLE_LINE_PATTERN = '^[^\\u0000-\\u001F\\u007F]*$';
/** One line with at least one visible character. */
export const NON_BLANK_LINE_PATTERN = '^(?=[\\s\\S]*\\S)[^\\u0000-\\u001F\\u007F]*$';
/** Text that may span lines: tab, LF and CR are fine; other control characters (U+0000 included) are not. */
export const MULTI_LINE_PATTERN = '^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F]*$';
/**
 * An e-mail address, surrounding spaces allowed (it is trimmed): no white space, control
 * characters or any of `"(),:;<>[\]` inside, one `@`, and a domain with a dot.
 */
export const EMAIL_PATTERN =
  '^[^\\S\\u0000-\\u001F]*[^\\s@"(),:;<>[\\]\\\\\\u0000-\\u001F\\u007F]+@[^\\s@."(),:;<>[\\]\\\\\\u0000-\\u001F\\u007F]+(\\.[^\\s@."(),:;<>[\\]\\\\\\u0000-\\u001F\\u007F]+)+[^\\S\\u0000-\\u001F]*$';
/** An IANA time zone name's characters (`America/Port-au-Prince`, `Etc/GMT+5`). */
export const TIME_ZONE_PATTERN = '^[A-Za-z0-9_+\\-]+(/[A-Za-z0-9_+\\-]+)*$';

/** What a broken pattern means, in the words of the API: keyed by the pattern itself. */
export const PATTERN_MESSAGES: Readonly<Record<string, string>> = {
  [SINGLE_LINE_PATTERN]: 'must be one line without control characters',
  [NON_BLANK_LINE_PATTERN]: 'must be one line with a visible character and no control characters',
  [MULTI_LINE_PATTERN]: 'must not contain control characters other than tab and line breaks',
  [EMAIL_PATTERN]: 'must be an e-mail address',
  [TIME_ZONE_PATTERN]: 'must be a valid IANA time zone',
};

const sentence = (description: string | undefined, rule: string) => (description ? `${description} ${rule}` : rule);

export interface TextOptions {
  minLength?: number;
  maxLength: number;
  description?: string;
  examples?: string[];
}

/** A single-line field (a name, a code, a label): no control characters, no line breaks. */
export function SingleLine({ description, ...options }: TextOptions) {
  return Type.String({ ...options, pattern: SINGLE_LINE_PATTERN, description: sentence(description, 'One line: no control characters.') });
}

/** A single-line field that must show something: not empty, not only spaces. */
export function NonBlankLine({ description, ...options }: TextOptions) {
  return Type.String({ minLength: 1, ...options, pattern: NON_BLANK_LINE_PATTERN, description: sentence(description, 'One line, not blank: no control characters.') });
}

/** A field that may span lines (a note, a description, a reason). */
export function MultiLine({ description, ...options }: TextOptions) {
  return Type.String({ ...options, pattern: MULTI_LINE_PATTERN, description: sentence(description, 'May span lines: tab, LF and CR are fine, other control characters are not.') });
}

export const Email = (description: string) =>
  Type.String({ pattern: EMAIL_PATTERN, maxLength: 320, description: `${description} No white space or control characters inside.`, examples: ['jan@example.com'] });

/**
 * Money amounts are integers in minor units up to this: 1,000,000.00 in a two-decimal
 * currency. A booking of the most dates (20) at this price still fits a 32-bit integer
 * column (2,000,000,000 < 2³¹ − 1), and no amount reaches the float range where integers
 * stop being exact.
 */
export const MAX_MONEY_AMOUNT = 100_000_000;
/** Counters stored as 32-bit integers (usage limits) stay below 2³¹ − 1. */
export const MAX_COUNT = 1_000_000_000;

export const Uuid = Type.String({
  format: 'uuid',
  description: 'A UUID (v4 or v7), in either letter case (RFC 9562); the API answers in lower case.',
  examples: ['0193b0a4-6f1e-7c3a-9d2b-5e8f1a2b3c4d'],
});
export const Timestamp = Type.String({ format: 'date-time', description: 'An ISO 8601 UTC instant with milliseconds.', examples: ['2027-03-29T07:00:00.000Z'] });
/**
 * An instant a client sends. The `date-time` format is strict here (validation.ts): UTC
 * only, `Z` and an upper-case `T`, a date and time the calendar has (no 30 February, no
 * second 60, no hour 24), seconds and 1–3 fraction digits optional.
 */
export const UTC_INSTANT_RULE =
  'An ISO 8601 UTC instant, `YYYY-MM-DDTHH:MM[:SS[.sss]]Z`: upper-case T and Z, no offset, a real calendar date and time (no 30 February, hour 24 or second 60).';
export function UtcInstant(description: string) {
  return Type.String({ format: 'date-time', description: `${description} ${UTC_INSTANT_RULE}`, examples: ['2027-03-29T07:00:00.000Z'] });
}
/** `x-time-zone` is checked against Intl's zones in validation.ts, so an unknown zone is reported with the other schema problems. */
export const TimeZone = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: TIME_ZONE_PATTERN,
  'x-time-zone': true,
  description: 'An IANA time zone name (as Intl knows them; not a fixed offset).',
  examples: ['Europe/Warsaw'],
});
/**
 * A free-form JSON object (form answers, metadata, gateway settings). `x-free-form` makes
 * validation.ts bound it (FREE_FORM_LIMITS) before anything walks it recursively.
 */
export const FreeObject = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  additionalProperties: true,
  maxProperties: FREE_FORM_LIMITS.maxEntries,
  'x-free-form': true,
  description: `Any JSON object. ${describeFreeFormLimits()}`,
});

export const FieldErrorSchema = Type.Object({
  path: Type.String({ description: 'JSON Pointer into the request body, or /query/…, /params/…' }),
  message: Type.String(),
});

export const ProblemSchema = Type.Object(
  {
    type: Type.String({
      description:
        'URI of the explanation in /docs/problems: relative (`/docs/problems#validation-failed`), or `{PUBLIC_URL}/docs/problems#…` where the operator set PROBLEM_TYPES_ABSOLUTE.',
    }),
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

/** What each problem status means, as the document's response descriptions say it. */
const PROBLEM_RESPONSE_DESCRIPTIONS: Record<number, string> = {
  400: 'The request is invalid: `errors` lists every problem found.',
  401: 'No valid API key (`X-Service-Api-Key`, or `Authorization: Bearer`); `WWW-Authenticate` gives the challenge.',
  403: 'The key may not do this (or a plan limit is reached).',
  404: "No such record in the caller's account.",
  405: 'The path does not take this method; `Allow` lists those it takes.',
  406: '`Accept` excludes application/json.',
  409: 'Conflicts with the current state (see `code`).',
  413: 'The body is over the size limit.',
  415: 'The body is not application/json.',
  422: 'Understood but refused (see `code`).',
  429: 'Too many requests; retry after `Retry-After` seconds.',
  502: 'An outside service (a payment gateway) failed.',
  503: 'Temporarily unavailable; retry after `Retry-After` seconds.',
};

/**
 * Problem responses for the given statuses, so each route documents the errors it can give,
 * as the `application/problem+json` they are sent as (Fastify serialises by this media type too).
 */
export function problemResponses(...statuses: number[]): Record<number, unknown> {
  const responses: Record<number, unknown> = {};
  for (const status of statuses) {
    responses[status] = {
      description: PROBLEM_RESPONSE_DESCRIPTIONS[status] ?? 'Problem details.',
      content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
    };
  }
  return responses;
}

/** The errors every authenticated JSON route can give. */
export const AUTHENTICATED_ERRORS = [400, 401, 406, 413, 415, 429] as const;
/** Either scheme authenticates: the key in `X-Service-Api-Key`, or as a Bearer token. */
export const API_KEY_SECURITY: { [scheme: string]: string[] }[] = [{ apiKey: [] }, { bearerApiKey: [] }];
