import { parseJson, type VendorAnswer, VendorCallError, type VendorHttp } from '../net/vendor-http.js';
import { AccessTokenRejectedError, ConnectionRefusedError, ProviderError } from './ports.js';

export interface ProviderRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Path and query under the configured API base URL. */
  path: string;
  accessToken: string;
  json?: unknown;
  headers?: Record<string, string>;
}

export interface ProviderResponse {
  status: number;
  /** The body as JSON, or undefined when empty or not JSON. */
  body: unknown;
}

/** A refusal as the provider answered it, for a vendor's own reading (its body parsed, `Retry-After` in ms or null). */
export interface RefusedAnswer {
  status: number;
  body: unknown;
  retryAfterMs: number | null;
}

/**
 * How a vendor reads its own refusals before the status decides: the error to throw (a
 * ConnectionRefusedError for a grant that lacks a scope, a retryable ProviderError for a rate
 * limit sent as 403, …), or null to leave it to the status.
 */
export type RefusalReader = (operation: string, answer: RefusedAnswer) => ProviderError | null;

/** One provider's API under the operator's configured base URL, called with a host's access token. */
export interface ProviderClient {
  /** Human name for messages: "Zoom", "Google", … */
  readonly label: string;
  /** One call; a status outside `ok` is an error (see createProviderClient). */
  call(operation: string, request: ProviderRequest, ok: readonly number[]): Promise<ProviderResponse>;
}

/**
 * Calls to a provider's API through the service's vendor client (src/net/vendor-http.ts:
 * deadline, bounded read, no redirects). A status outside `ok` is first read by the vendor's
 * `readRefusal`, when it has one (a scope error is the connection's, whatever its status);
 * then a 401 becomes AccessTokenRejectedError (the caller refreshes once and tries again);
 * 5xx, 429, 408 and network failures a retryable ProviderError (with the provider's
 * `Retry-After`); any other status, a 400 to a create or a move included, a final one.
 * Messages name the provider, the operation and the status, never a token or a body.
 */
export function createProviderClient(http: VendorHttp, label: string, baseUrl: string, readRefusal?: RefusalReader): ProviderClient {
  const base = baseUrl.replace(/\/$/, '');
  return {
    label,
    async call(operation, request, ok) {
      let answer: VendorAnswer;
      try {
        answer = await http.call({
          method: request.method,
          url: base + request.path,
          headers: { authorization: `Bearer ${request.accessToken}`, ...request.headers },
          json: request.json,
        });
      } catch (error) {
        if (!(error instanceof VendorCallError)) throw error;
        throw new ProviderError(`${label} ${operation}: ${error.message}`, error.retryable, error.status);
      }
      const body = parseJson(answer.text);
      if (ok.includes(answer.status)) return { status: answer.status, body };
      const read = readRefusal?.(operation, { status: answer.status, body, retryAfterMs: answer.retryAfterMs });
      if (read) throw read;
      if (answer.status === 401) throw new AccessTokenRejectedError(label);
      throw new ProviderError(`${label} ${operation}: HTTP ${answer.status}`, answer.retryable, answer.status, answer.retryAfterMs);
    },
  };
}

/** A string field of a JSON object, or a ProviderError naming what is missing: providers' answers are checked, not trusted. */
export function requireString(label: string, operation: string, body: unknown, field: string): string {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[field] : undefined;
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string' || value === '') throw new ProviderError(`${label} ${operation}: the answer has no ${field}`, false);
  return value;
}

export function optionalString(body: unknown, field: string): string | null {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[field] : undefined;
  return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : null;
}

/**
 * The scopes a refusal names, for the host's message: only scope-like words from inside its
 * brackets or quotes (`does not contain scopes:[meeting:write:meeting]` → `meeting:write:meeting`),
 * never the rest of the provider's text; '' when it names none that way.
 */
export function scopesNamedIn(text: string): string {
  const listed = /scopes?\s*:?\s*\[([^\]]{1,300})\]/i.exec(text)?.[1] ?? /requires one of '([^']{1,300})'/i.exec(text)?.[1] ?? '';
  return listed
    .split(/[,\s]+/)
    .filter((scope) => /^[\w.:/-]{1,100}$/.test(scope))
    .slice(0, 5)
    .join(', ');
}

/** A final refusal about the connection: the grant lacks a permission termin needs (named, when the provider named it). */
export function scopeRefusal(label: string, operation: string, status: number, text: string): ConnectionRefusedError {
  const scopes = scopesNamedIn(text);
  return new ConnectionRefusedError(`${label} ${operation}: the connection lacks a permission termin needs${scopes === '' ? '' : ` (${scopes})`}`, status);
}

/** A JSON object, or undefined for anything else (arrays included): for walking an answer without trusting its shape. */
export function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
