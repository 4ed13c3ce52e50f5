import { parseJson, type VendorAnswer, VendorCallError, type VendorHttp } from '../net/vendor-http.js';
import { AccessTokenRejectedError, ProviderError } from './ports.js';

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

/** One provider's API under the operator's configured base URL, called with a host's access token. */
export interface ProviderClient {
  /** Human name for messages: "Zoom", "Google", … */
  readonly label: string;
  /** One call; a status outside `ok` is an error (see createProviderClient). */
  call(operation: string, request: ProviderRequest, ok: readonly number[]): Promise<ProviderResponse>;
}

/**
 * Calls to a provider's API through the service's vendor client (src/net/vendor-http.ts:
 * deadline, bounded read, no redirects). A 401 becomes AccessTokenRejectedError (the caller
 * refreshes once and tries again); 5xx, 429, 408 and network failures a retryable
 * ProviderError (with the provider's `Retry-After`); any other status outside `ok` a final
 * one. Messages name the provider, the operation and the status, never a token or a body.
 */
export function createProviderClient(http: VendorHttp, label: string, baseUrl: string): ProviderClient {
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
      if (answer.status === 401) throw new AccessTokenRejectedError(label);
      if (!ok.includes(answer.status)) throw new ProviderError(`${label} ${operation}: HTTP ${answer.status}`, answer.retryable, answer.status, answer.retryAfterMs);
      return { status: answer.status, body: parseJson(answer.text) };
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

/** A JSON object, or undefined for anything else (arrays included): for walking an answer without trusting its shape. */
export function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
