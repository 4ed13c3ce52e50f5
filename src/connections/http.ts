import { AccessTokenRejectedError, ProviderError } from './provider.js';

/** Every call to a provider's API gives up after this long. */
export const DEFAULT_PROVIDER_TIMEOUT_MS = 10_000;
/** A provider's answer is read only this far: termin needs ids and links, not megabytes. */
const MAX_ANSWER_BYTES = 1024 * 1024;

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

/**
 * One call to a provider's API with a host's access token. A 401 becomes
 * AccessTokenRejectedError (the caller refreshes once and tries again); 5xx, 429 and network
 * failures a retryable ProviderError; any other status outside `ok` a final one. Messages name
 * the provider, the operation and the status, never a token or a body.
 */
export async function callProvider(
  label: string,
  operation: string,
  baseUrl: string,
  request: ProviderRequest,
  ok: readonly number[],
  timeoutMs = DEFAULT_PROVIDER_TIMEOUT_MS,
): Promise<ProviderResponse> {
  let response: Response;
  try {
    response = await fetch(baseUrl.replace(/\/$/, '') + request.path, {
      method: request.method,
      headers: {
        accept: 'application/json',
        authorization: `Bearer ${request.accessToken}`,
        ...(request.json === undefined ? {} : { 'content-type': 'application/json' }),
        ...request.headers,
      },
      body: request.json === undefined ? undefined : JSON.stringify(request.json),
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    throw new ProviderError(`${label} ${operation}: ${timedOut ? `no answer within ${timeoutMs} ms` : 'unreachable'}`, true);
  }
  const text = await readBounded(response, label, operation);
  if (response.status === 401) throw new AccessTokenRejectedError(label);
  if (!ok.includes(response.status)) {
    const retryable = response.status >= 500 || response.status === 429 || response.status === 408;
    throw new ProviderError(`${label} ${operation}: HTTP ${response.status}`, retryable, response.status);
  }
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, body };
}

/** A response's body, read only as far as `limit` bytes (a ProviderError past that): a provider's answer is not trusted to be small. */
export async function readBounded(response: Response, label: string, operation: string, limit = MAX_ANSWER_BYTES): Promise<string> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > limit) {
        await response.body.cancel().catch(() => undefined);
        throw new ProviderError(`${label} ${operation}: the answer is larger than ${limit} bytes`, false, response.status);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof ProviderError) throw error;
    throw new ProviderError(`${label} ${operation}: the answer was cut off`, true, response.status);
  }
  return Buffer.concat(chunks).toString('utf8');
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
