/**
 * The one HTTP client for every vendor API termin calls: payment gateways, SMS providers,
 * the OAuth providers' APIs (Zoom, Webex, Google, Microsoft Graph). Built once in the context
 * (src/context.ts) and handed to each registry, as Bluesky's PDS hands one fetch to everything
 * outbound; an adapter family maps its outcome to its own error type (GatewayError,
 * ProviderError, SmsDeliveryError) and keeps its own messages.
 *
 * Every call has one deadline (connect, headers and body), its answer is read only up to a
 * byte limit, a redirect is never followed (it is the answer: PayU's 302 with a JSON body
 * is read as it is), and a status is classified retryable (5xx, 429, 408) or permanent, with
 * the vendor's `Retry-After` parsed so a caller can honour it.
 *
 * Not the SSRF guard: vendor base URLs are the operator's (configured, never a user's), so
 * any address is allowed here, a local stand-in included. A URL a user gives (webhook
 * receivers, CalDAV and iCalendar calendars) goes through src/net/outbound-request.ts.
 */

/** A vendor that does not answer in full within this long is given up on (the outbox tries again later). */
export const DEFAULT_VENDOR_TIMEOUT_MS = 10_000;
/** A vendor's answer is read only this far: termin needs ids and links, not megabytes. */
export const DEFAULT_MAX_ANSWER_BYTES = 1024 * 1024;

export interface VendorRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** The whole URL, under the operator's configured base URL. */
  url: string;
  /** Sent after the defaults (`accept: application/json` and the body's content type), so they may replace them. */
  headers?: Record<string, string> | undefined;
  /** A JSON value, sent as application/json. */
  json?: unknown;
  /** A form, sent as application/x-www-form-urlencoded. */
  form?: Record<string, string> | undefined;
  /** JSON text sent exactly as given (a body whose bytes are signed). */
  rawJson?: string | undefined;
  timeoutMs?: number | undefined;
  maxAnswerBytes?: number | undefined;
}

/** What the vendor answered, whatever the status: the caller decides what a status means. */
export interface VendorAnswer {
  status: number;
  headers: Headers;
  /** The body, read whole (up to the limit); '' when empty. */
  text: string;
  /** Whether the same request may get another answer later: a 5xx, 429 or 408 (false for any other status, successes included). */
  retryable: boolean;
  /** How long the vendor asked to be left alone (`Retry-After`, in ms from now), or null when it named no wait. */
  retryAfterMs: number | null;
}

export type VendorFailureKind = 'timeout' | 'unreachable' | 'cut-off' | 'too-large';

/**
 * The call got no usable answer. `retryable` for a timeout, a failed connection or a body cut
 * off (another attempt may get through); not for an answer larger than the limit (it will be
 * as large again). The message names no URL, header or body, so a credential cannot leak into
 * a log line: families prefix their vendor and operation (`Zoom create a meeting: unreachable`).
 */
export class VendorCallError extends Error {
  readonly retryable: boolean;

  constructor(
    readonly kind: VendorFailureKind,
    message: string,
    /** The answer's status, when one came before the failure (cut-off, too-large). */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'VendorCallError';
    this.retryable = kind !== 'too-large';
  }
}

export interface VendorHttp {
  call(request: VendorRequest): Promise<VendorAnswer>;
}

export interface VendorHttpOptions {
  /** The clock `Retry-After` dates are read against (the context's, so tests move it). */
  now?: (() => number) | undefined;
  /** A stand-in for tests; the global fetch (looked up at each call) otherwise. */
  fetch?: typeof globalThis.fetch | undefined;
  timeoutMs?: number | undefined;
  maxAnswerBytes?: number | undefined;
}

export function createVendorHttp(options: VendorHttpOptions = {}): VendorHttp {
  const now = options.now ?? Date.now;
  return {
    async call(request) {
      const timeoutMs = request.timeoutMs ?? options.timeoutMs ?? DEFAULT_VENDOR_TIMEOUT_MS;
      const { contentType, body } = encodeBody(request);
      let response: Response;
      try {
        response = await (options.fetch ?? globalThis.fetch)(request.url, {
          method: request.method,
          headers: { accept: 'application/json', ...(contentType === undefined ? {} : { 'content-type': contentType }), ...request.headers },
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
        throw timedOut ? new VendorCallError('timeout', `no answer within ${timeoutMs} ms`) : new VendorCallError('unreachable', 'unreachable');
      }
      const text = await readBounded(response, request.maxAnswerBytes ?? options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES);
      return {
        status: response.status,
        headers: response.headers,
        text,
        retryable: isRetryableStatus(response.status),
        retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), now()),
      };
    },
  };
}

function encodeBody(request: VendorRequest): { contentType?: string; body?: string } {
  if (request.rawJson !== undefined) return { contentType: 'application/json', body: request.rawJson };
  if (request.json !== undefined) return { contentType: 'application/json', body: JSON.stringify(request.json) };
  if (request.form !== undefined) return { contentType: 'application/x-www-form-urlencoded', body: new URLSearchParams(request.form).toString() };
  return {};
}

/** 5xx, 429 and 408 may pass if tried later; other refusals will not. */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 429 || status === 408;
}

/**
 * A response's body, read only as far as `limit` bytes: a vendor's answer is not trusted to
 * be small. Past the limit the connection is dropped (VendorCallError `too-large`); a body
 * that breaks off (or outlives the call's deadline) is `cut-off`. Also for oauth4webapi's
 * customFetch, which would read any size.
 */
export async function readBounded(response: Response, limit: number): Promise<string> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > limit) {
        await response.body.cancel().catch(() => undefined);
        throw new VendorCallError('too-large', `the answer is larger than ${limit} bytes`, response.status);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof VendorCallError) throw error;
    throw new VendorCallError('cut-off', 'the answer was cut off', response.status);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The wait a `Retry-After` header asks for (RFC 9110 §10.2.3), in ms from `now`: delay
 * seconds or an HTTP date, a date already past being no wait; null when absent or unreadable.
 * `parseRetryAfter('120', t)` → 120000; `parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT',
 * Date.parse('2015-10-21T07:27:30Z'))` → 30000; `parseRetryAfter('soon', t)` → null.
 */
export function parseRetryAfter(value: string | null, now: number): number | null {
  const text = value?.trim() ?? '';
  if (text === '') return null;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Every form of HTTP date starts with its weekday: what Date.parse would read otherwise ('2', '1e3') is no date here.
  if (!/^[A-Za-z]/.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** A body as JSON, or undefined when empty or not JSON (a proxy's error page). */
export function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
