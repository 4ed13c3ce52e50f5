import { createHash, timingSafeEqual } from 'node:crypto';
import { isRetryableStatus, parseJson, type VendorAnswer, VendorCallError, type VendorHttp } from '../net/vendor-http.js';
import { GatewayError } from './gateway.js';

/** Every outbound gateway call gives up after this long unless the registry says otherwise. */
export const DEFAULT_GATEWAY_TIMEOUT_MS = 10_000;

export interface GatewayRequest {
  method: 'GET' | 'POST' | 'PUT';
  /** Path (with query) under the configured base URL, e.g. `/api/v1/transaction/register`. */
  path: string;
  headers?: Record<string, string>;
  /** A JSON value (sent as application/json), a form (application/x-www-form-urlencoded) or raw text. */
  json?: unknown;
  form?: Record<string, string>;
  rawJson?: string;
}

export interface GatewayResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  body: unknown;
  /** The gateway's `Retry-After`, in ms from now (null: none). */
  retryAfterMs: number | null;
}

/**
 * One HTTP call to a gateway, through the service's vendor client (src/net/vendor-http.ts:
 * deadline, bounded read, no redirects). Network failures, timeouts and cut-off answers
 * become retryable GatewayErrors; the caller decides what a status means (see
 * `failForStatus`). Error messages name the gateway, the operation and the status only:
 * never a URL query, header or body, so a credential cannot leak into a log line.
 */
export async function callGateway(http: VendorHttp, gateway: string, operation: string, baseUrl: string, request: GatewayRequest, timeoutMs: number): Promise<GatewayResponse> {
  let answer: VendorAnswer;
  try {
    // PayU answers a created order with 302 and a JSON body: the client reads it, never follows it.
    answer = await http.call({
      method: request.method,
      url: baseUrl + request.path,
      headers: request.headers,
      json: request.json,
      form: request.form,
      rawJson: request.rawJson,
      timeoutMs,
    });
  } catch (error) {
    if (!(error instanceof VendorCallError)) throw error;
    throw new GatewayError(`${gateway} ${operation}: ${error.kind === 'unreachable' ? 'gateway unreachable' : error.message}`, error.retryable, error.status);
  }
  return { status: answer.status, headers: answer.headers, text: answer.text, body: parseJson(answer.text), retryAfterMs: answer.retryAfterMs };
}

export { isRetryableStatus };

/** The GatewayError for an unexpected status; `code` is the gateway's own error code, if any. */
export function failForStatus(gateway: string, operation: string, response: GatewayResponse, code?: string): GatewayError {
  const detail = code !== undefined && /^[\w .:-]{1,80}$/.test(code) ? ` (${code})` : '';
  return new GatewayError(`${gateway} ${operation}: HTTP ${response.status}${detail}`, isRetryableStatus(response.status), response.status, {
    retryAfterMs: response.retryAfterMs,
  });
}

/** A malformed success answer: the gateway said yes but not in its documented shape. */
export function malformedAnswer(gateway: string, operation: string, what: string): GatewayError {
  return new GatewayError(`${gateway} ${operation}: answer without ${what}`, false);
}

export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

/** Compares two digests (or other secrets) without leaking where they differ. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

export function digestHex(algorithm: 'md5' | 'sha256' | 'sha384', text: string): string {
  return createHash(algorithm).update(text, 'utf8').digest('hex');
}

/** A plain object, or undefined: for walking parsed JSON without trusting its shape. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

export function stringField(record: Record<string, unknown> | undefined, name: string): string | undefined {
  const value = record?.[name];
  return typeof value === 'string' ? value : undefined;
}

export function requireSetting(credentials: { settings: Record<string, string | number>; secrets: Record<string, string> }, gateway: string, name: string, secret = false): string {
  const value = secret ? credentials.secrets[name] : credentials.settings[name];
  if (value === undefined || value === '') throw new GatewayError(`${gateway}: the account's ${name} setting is missing`, false);
  return String(value);
}

/**
 * OAuth client-credentials tokens, kept until shortly before they expire. Keyed by base URL,
 * client id and a digest of the secret, so a changed secret never reuses an old token.
 */
export class TokenCache {
  private readonly tokens = new Map<string, { token: string; expiresAt: number }>();

  async get(key: string, fetchToken: () => Promise<{ token: string; expiresInSeconds: number }>): Promise<string> {
    const cached = this.tokens.get(key);
    if (cached !== undefined && cached.expiresAt > Date.now()) return cached.token;
    const fresh = await fetchToken();
    // Renew a minute early (or at half-life for short tokens) so a call never carries an expired token.
    const margin = Math.min(60, fresh.expiresInSeconds / 2);
    this.tokens.set(key, { token: fresh.token, expiresAt: Date.now() + (fresh.expiresInSeconds - margin) * 1000 });
    return fresh.token;
  }

  forget(key: string): void {
    this.tokens.delete(key);
  }

  static key(baseUrl: string, clientId: string, secret: string): string {
    return `${baseUrl}\u0000${clientId}\u0000${digestHex('sha256', secret)}`;
  }
}

export interface OAuthClient {
  http: VendorHttp;
  gateway: string;
  /** The operation name used in errors, e.g. `oauth2/token`. */
  operation: string;
  baseUrl: string;
  timeoutMs: number;
  /** The gateway's documented token request for these client credentials. */
  tokenRequest(clientId: string, clientSecret: string): GatewayRequest;
  /** How a refused token request reads as an error. */
  failure(response: GatewayResponse): GatewayError;
}

/**
 * OAuth 2.0 client credentials, as PayU, PayPal and Tpay use them: a bearer token per
 * client, cached until a minute before it expires and forgotten when the gateway answers
 * 401 (revoked early), so the next attempt authorizes afresh.
 */
export function createOAuthSession(client: OAuthClient) {
  const tokens = new TokenCache();
  return async function withToken<T>(credentials: Parameters<typeof requireSetting>[0], call: (authorization: string) => Promise<T>): Promise<T> {
    const clientId = requireSetting(credentials, client.gateway, 'clientId');
    const clientSecret = requireSetting(credentials, client.gateway, 'clientSecret', true);
    const key = TokenCache.key(client.baseUrl, clientId, clientSecret);
    const token = await tokens.get(key, async () => {
      const response = await callGateway(client.http, client.gateway, client.operation, client.baseUrl, client.tokenRequest(clientId, clientSecret), client.timeoutMs);
      if (response.status !== 200) throw client.failure(response);
      const body = asRecord(response.body);
      const accessToken = stringField(body, 'access_token');
      const expiresIn = body?.expires_in;
      if (accessToken === undefined) throw malformedAnswer(client.gateway, client.operation, 'access_token');
      return { token: accessToken, expiresInSeconds: typeof expiresIn === 'number' && expiresIn > 0 ? expiresIn : 300 };
    });
    try {
      return await call(`Bearer ${token}`);
    } catch (error) {
      if (error instanceof GatewayError && error.status === 401) tokens.forget(key);
      throw error;
    }
  };
}
