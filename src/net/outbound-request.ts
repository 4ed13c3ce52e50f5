import http from 'node:http';
import https from 'node:https';
import { assertAddressesAllowed, checkUrlShape, createGuardedLookup, ipLiteralOf, OutboundError, type HostResolver } from './outbound-guard.js';

export { OutboundError, OutboundUrlRefusedError } from './outbound-guard.js';

/**
 * Every outbound HTTP call termin makes to a URL someone else chose: guarded against SSRF
 * at connect time, bounded in time and in size, and never following a redirect (a
 * redirect could point anywhere, past the guard's registration-time check, and a webhook
 * receiver has no business redirecting a POST).
 */

/** The single deadline (connect, headers and body together) passed. */
export class OutboundTimeoutError extends OutboundError {
  constructor(
    readonly timeoutMs: number,
    host: string,
  ) {
    super('ETIMEDOUT', `${host} did not answer in full within ${timeoutMs} ms.`);
  }
}

/** The connection failed or broke; `code` is Node's (ECONNREFUSED, ECONNRESET, ENOTFOUND, …). */
export class OutboundNetworkError extends OutboundError {
  constructor(code: string, host: string, options?: { cause?: unknown }) {
    super(code, `The request to ${host} failed: ${code}.`, options);
  }
}

/** Only from `guardedFetch`: a fetch caller cannot be handed a silently cut body. */
export class OutboundResponseTooLargeError extends OutboundError {
  constructor(
    readonly maxResponseBytes: number,
    host: string,
  ) {
    super('ERR_RESPONSE_TOO_LARGE', `The response from ${host} exceeds ${maxResponseBytes} bytes.`);
  }
}

export interface OutboundRequest {
  url: string | URL;
  method?: string | undefined;
  headers?: Record<string, string> | undefined;
  body?: string | Uint8Array | undefined;
  /** One deadline for connecting, the response headers and the whole body. */
  timeoutMs?: number | undefined;
  /** The body is read up to this many bytes, then the connection is dropped. */
  maxResponseBytes?: number | undefined;
  allowPrivate: boolean;
  signal?: AbortSignal | undefined;
  /** See `GuardOptions.resolver`. */
  resolver?: HostResolver | undefined;
}

export interface OutboundResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
  /** The body was longer than `maxResponseBytes` and was cut there. */
  truncated: boolean;
}

/**
 * The service's one way out to URLs someone else chose, built once from ALLOW_PRIVATE_URLS:
 * the policy (for checking a URL when it is registered) and a guarded fetch (for calling it).
 */
export interface Outbound {
  /** ALLOW_PRIVATE_URLS: loopback, private, link-local and metadata addresses may be reached. */
  allowPrivate: boolean;
  /** How host names are resolved; tests play DNS with it (see GuardOptions.resolver). */
  resolver?: HostResolver | undefined;
  /** `fetch` through the guard (see guardedFetch). */
  fetch: typeof fetch;
}

export function createOutbound(options: { allowPrivate: boolean; resolver?: HostResolver | undefined }): Outbound {
  return { allowPrivate: options.allowPrivate, resolver: options.resolver, fetch: guardedFetch(options.allowPrivate, { resolver: options.resolver }) };
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

interface RawResponse {
  status: number;
  statusText: string;
  rawHeaders: string[];
  body: Buffer;
  truncated: boolean;
}

/**
 * One guarded request. A 3xx is a result like any other status; errors are
 * `OutboundUrlRefusedError`, `OutboundTimeoutError` or `OutboundNetworkError`.
 *
 * @example
 * const res = await sendOutbound({ url: 'https://hooks.example.com/t', method: 'POST',
 *   headers: { 'content-type': 'application/json', ...signed }, body, allowPrivate: false });
 * res.status >= 200 && res.status < 300 // delivered
 */
export async function sendOutbound(request: OutboundRequest): Promise<OutboundResponse> {
  const raw = await performRequest(request);
  return {
    status: raw.status,
    headers: headersRecord(raw.rawHeaders),
    body: raw.body.toString('utf8'),
    truncated: raw.truncated,
  };
}

function performRequest(request: OutboundRequest): Promise<RawResponse> {
  const timeoutMs = request.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxResponseBytes = request.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  let url: URL;
  try {
    url = checkUrlShape(request.url);
    // Node connects to an IP-literal host without calling `lookup`, so check it here.
    const literal = ipLiteralOf(url);
    if (literal !== null && !request.allowPrivate) assertAddressesAllowed(literal, [literal]);
  } catch (error) {
    return Promise.reject(error);
  }
  const host = url.host;
  if (request.signal?.aborted) return Promise.reject(abortReason(request.signal));

  return new Promise<RawResponse>((resolve, reject) => {
    let settled = false;
    let clientRequest: http.ClientRequest | undefined;
    let response: http.IncomingMessage | undefined;

    const finish = (outcome: { ok: RawResponse } | { error: unknown }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      if ('ok' in outcome) resolve(outcome.ok);
      else reject(outcome.error);
      // Whatever is still open (a trickling body, a silent server) is dropped, not drained.
      response?.destroy();
      clientRequest?.destroy();
    };
    const timer = setTimeout(() => finish({ error: new OutboundTimeoutError(timeoutMs, host) }), timeoutMs);
    const onAbort = () => finish({ error: abortReason(request.signal!) });
    request.signal?.addEventListener('abort', onAbort, { once: true });

    const body = request.body === undefined ? undefined : typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : request.body;
    const headers: Record<string, string> = { 'user-agent': 'termin', ...lowerCaseKeys(request.headers ?? {}) };
    if (body !== undefined) headers['content-length'] = String(body.byteLength);

    const options: http.RequestOptions = {
      method: request.method ?? 'GET',
      headers,
      lookup: createGuardedLookup({ allowPrivate: request.allowPrivate, resolver: request.resolver }),
      // A fresh agent per request: no pooled socket outlives the deadline or skips the lookup.
      agent: false,
    };
    const transport = url.protocol === 'https:' ? https : http;
    try {
      clientRequest = transport.request(url, options);
    } catch (error) {
      finish({ error: new OutboundNetworkError(errorCode(error), host, { cause: error }) });
      return;
    }
    clientRequest.on('error', (error) => {
      finish({ error: error instanceof OutboundError ? error : new OutboundNetworkError(errorCode(error), host, { cause: error }) });
    });
    clientRequest.on('response', (res) => {
      response = res;
      const chunks: Buffer[] = [];
      let received = 0;
      const result = (truncated: boolean): RawResponse => ({
        status: res.statusCode ?? 0,
        statusText: res.statusMessage ?? '',
        rawHeaders: res.rawHeaders,
        body: Buffer.concat(chunks),
        truncated,
      });
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        const room = maxResponseBytes - received;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          received += room;
          finish({ ok: result(true) });
          return;
        }
        chunks.push(chunk);
        received += chunk.length;
      });
      res.on('end', () => finish({ ok: result(false) }));
      res.on('error', (error) => finish({ error: new OutboundNetworkError(errorCode(error), host, { cause: error }) }));
      // A connection closed before the end of the body without an 'error' (older Nodes).
      res.on('aborted', () => finish({ error: new OutboundNetworkError('ECONNRESET', host) }));
    });
    clientRequest.end(body);
  });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code !== '' ? code : 'ERR_NETWORK';
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

function headersRecord(rawHeaders: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const value = rawHeaders[i + 1]!;
    out[name] = out[name] === undefined ? value : `${out[name]}, ${value}`;
  }
  return out;
}

export interface GuardedFetchOptions {
  timeoutMs?: number | undefined;
  /** A larger default than webhooks': calendar reports are legitimately big. */
  maxResponseBytes?: number | undefined;
  resolver?: HostResolver | undefined;
}

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * A `fetch` for libraries that take one (tsdav's `fetch` option), with the same guard,
 * deadline and size bound as `sendOutbound`. Redirects are never followed: a 3xx comes
 * back as the response whatever `init.redirect` says. A body over the limit rejects with
 * `OutboundResponseTooLargeError` instead of being cut, since the caller would parse it.
 *
 * @example
 * const fetch = guardedFetch(config.allowPrivateUrls);
 * await createDAVClient({ serverUrl, credentials, authMethod: 'Basic', fetch } as …);
 */
export function guardedFetch(allowPrivate: boolean, options: GuardedFetchOptions = {}): typeof fetch {
  const maxResponseBytes = options.maxResponseBytes ?? 10 * 1024 * 1024;
  return async (input, init) => {
    // Refuse a URL with credentials as ours, before Request's own TypeError hides the reason.
    const href = input instanceof Request ? input.url : input instanceof URL ? input.href : String(input);
    checkUrlShape(href);
    const request = new Request(input, init);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
    const raw = await performRequest({
      url: request.url,
      method: request.method,
      headers,
      body,
      timeoutMs: options.timeoutMs,
      maxResponseBytes,
      allowPrivate,
      signal: request.signal,
      resolver: options.resolver,
    });
    if (raw.truncated) throw new OutboundResponseTooLargeError(maxResponseBytes, new URL(request.url).host);
    const responseHeaders = new Headers();
    for (let i = 0; i + 1 < raw.rawHeaders.length; i += 2) responseHeaders.append(raw.rawHeaders[i]!, raw.rawHeaders[i + 1]!);
    const nullBody = NULL_BODY_STATUSES.has(raw.status) || request.method === 'HEAD';
    return new Response(nullBody ? null : raw.body, { status: raw.status, statusText: raw.statusText, headers: responseHeaders });
  };
}
