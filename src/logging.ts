import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';

/**
 * Logging must never stop the service. pino's default stdout destination writes
 * synchronously: when the reader of a pipe stops reading (a stalled log shipper) the
 * pipe fills, and every log call then spins on EAGAIN forever, with no request answered
 * and SIGTERM never handled. Instead, lines go through an asynchronous SonicBoom with a
 * bounded buffer (LOG_BUFFER_BYTES): while stdout is blocked, lines beyond the buffer are
 * dropped and counted, and the count is logged once stdout drains. A reader that went away
 * (EPIPE) turns logging into a no-op (pino's own handling); any other write error is
 * swallowed rather than crashing the process. On shutdown `flushLogsBeforeExit` gives
 * buffered lines a bounded time to drain, then gives up so that exiting cannot block.
 */

type AsyncDestination = DestinationStream & {
  flushSync(): void;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
};

const destinations = new Set<AsyncDestination>();
/** Set on shutdown: from then on a blocked stdout is retried only until this time. */
let exitDeadline: number | null = null;

export function createLogger(config: Config, destination?: DestinationStream): Logger {
  return pino(
    {
      level: config.logLevel,
      // Keys and e-mail credentials must never reach the logs.
      redact: { paths: ['req.headers["x-service-api-key"]', 'req.headers.authorization', 'apiKey', '*.apiKey'], censor: '[redacted]' },
      // Fastify's request serializer, with secrets taken out of the query string: a key sent
      // as ?api_key=… is refused, but its request is still logged.
      serializers: { req: serializeRequest },
    },
    destination ?? createStdoutDestination(config.logBufferBytes),
  );
}

function createStdoutDestination(maxBufferBytes: number): DestinationStream {
  // Makes fd 1 non-blocking when it is a pipe (Node does so when process.stdout is first
  // used), so a full pipe answers EAGAIN, retried later, instead of parking a thread in write().
  void process.stdout;
  const destination = pino.destination({
    dest: 1,
    sync: false,
    maxLength: maxBufferBytes,
    // While running, a full pipe is retried every 100 ms off the event loop; at exit, only briefly.
    retryEAGAIN: () => exitDeadline === null || Date.now() < exitDeadline,
  }) as unknown as AsyncDestination;
  let dropped = 0;
  destination.on('drop', () => {
    dropped += 1;
  });
  destination.on('write', () => {
    if (dropped === 0) return;
    const count = dropped;
    dropped = 0;
    destination.write(`${JSON.stringify({ level: 40, time: Date.now(), msg: `stdout was blocked: ${count} log lines were dropped` })}\n`);
  });
  // EPIPE is handled by pino (logging stops); anything else must not become an uncaught error.
  destination.on('error', () => undefined);
  destinations.add(destination);
  return destination;
}

/**
 * Writes buffered log lines out, trying for at most `timeoutMs` while stdout is blocked, then
 * disarms pino's synchronous flush at exit, which would otherwise spin forever on a pipe
 * nobody reads. Call it right before `process.exit`.
 */
export function flushLogsBeforeExit(timeoutMs = 1_000): void {
  exitDeadline = Date.now() + timeoutMs;
  for (const destination of destinations) {
    try {
      destination.flushSync();
    } catch {
      // blocked past the deadline, or the reader is gone: what is left is lost
    }
    destination.flushSync = () => undefined;
  }
}

/** Query parameters that carry a secret wherever they appear: API keys, and bearer tokens by their usual names. */
const SECRET_QUERY_PARAMETERS = new Set(['api_key', 'apikey', 'key', 'x-service-api-key', 'x_service_api_key', 'token', 'access_token', 'refresh_token', 'id_token']);
/**
 * And on the OAuth callback (`/oauth/{provider}/callback`, and `/app/oauth/{provider}/callback`
 * where a connection started in the web app finishes), the authorization `code` (worth a token
 * until it is exchanged) and the `state` that binds it to the member who started it.
 */
const OAUTH_CALLBACK = /^(?:\/app)?\/oauth\/[^/?#]+\/callback(?=[?#]|$)/i;
const OAUTH_SECRET_QUERY_PARAMETERS = new Set(['code', 'state']);

/**
 * The URL with bearer secrets replaced by `[redacted]`: the token of a token-bearing path
 * (TOKEN_PATHS), and the values of secret query parameters.
 *
 * @example
 * redactUrl('/api/v1/teams?api_key=tmn_abc&x=1')          // '/api/v1/teams?api_key=[redacted]&x=1'
 * redactUrl('/app/login/3q2-7w…')                         // '/app/login/[redacted]'
 * redactUrl('/oauth/zoom/callback?code=abc&state=def')    // '/oauth/zoom/callback?code=[redacted]&state=[redacted]'
 */
export function redactUrl(url: string): string {
  url = redactPathTokens(url);
  const query = url.indexOf('?');
  if (query < 0) return url;
  const oauth = OAUTH_CALLBACK.test(url);
  const parts = url
    .slice(query + 1)
    .split('&')
    .map((part) => {
      const equals = part.indexOf('=');
      const rawName = equals < 0 ? part : part.slice(0, equals);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replaceAll('+', ' '));
      } catch {
        // a malformed escape: compare the raw name
      }
      name = name.trim().toLowerCase();
      return SECRET_QUERY_PARAMETERS.has(name) || (oauth && OAUTH_SECRET_QUERY_PARAMETERS.has(name)) ? `${rawName}=[redacted]` : part;
    });
  return `${url.slice(0, query)}?${parts.join('&')}`;
}

/**
 * Paths that carry a bearer secret: the participant's manage link (`/booking/{token}`, and
 * its API twin), a host's private feed (`/feeds/{token}.ics`), the e-mailed sign-in link
 * (`/app/login/{token}`, its page and its confirmation). Anyone reading the logs could
 * otherwise cancel meetings, read calendars or sign in as a member. Any case: a path typed
 * in the wrong case is not found, but the token in it is still the real one.
 */
const TOKEN_PATHS = [/^(\/booking\/)[^/?#]+/i, /^(\/feeds\/)[^/?#]+?(\.ics)?(?=[/?#]|$)/i, /^(\/api\/v1\/public\/bookings\/)[^/?#]+/i, /^(\/app\/login\/)[^/?#]+/i];

function redactPathTokens(url: string): string {
  for (const pattern of TOKEN_PATHS) {
    // With one group, the third argument is the match's offset, not a suffix.
    if (pattern.test(url)) return url.replace(pattern, (_match, prefix: string, suffix: unknown) => `${prefix}[redacted]${typeof suffix === 'string' ? suffix : ''}`);
  }
  return url;
}

interface LoggedRequest {
  method?: string;
  url?: string;
  headers?: Record<string, unknown>;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

function serializeRequest(request: LoggedRequest) {
  return {
    method: request.method,
    url: typeof request.url === 'string' ? redactUrl(request.url) : request.url,
    version: request.headers?.['accept-version'],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
