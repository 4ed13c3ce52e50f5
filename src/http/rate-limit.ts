import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, RouteOptions } from 'fastify';
import { Redis, type Result } from 'ioredis';
import type { Logger } from 'pino';
import { parseApiKey } from '../domain/api-key.js';
import { CircuitBreaker } from './circuit-breaker.js';
import { apiKeyOf } from './request-guards.js';

export interface RateLimitSettings {
  /** Requests a minute per key (per client address without one) on every API route; 0: off. */
  perMinute: number;
  /** POST /calculate-schedule's own allowance (public: mostly per address); 0: off. */
  calculatePerMinute: number;
  /** Counters shared by every instance when set; otherwise each instance counts alone. */
  redisUrl: string | null;
  /** Prefix of every Redis key, so deployments may share one Redis. */
  redisKeyPrefix: string;
}

/** Every allowance is per minute. */
const RATE_LIMIT_WINDOW_MS = 60_000;

/** A Redis command that takes longer than this counts as a failure (see the breaker below). */
const REDIS_COMMAND_TIMEOUT_MS = 500;
/** How long start-up waits for the first connection to Redis. */
const REDIS_STARTUP_WAIT_MS = 2_000;
/**
 * Failures in a row (timeouts, a lost connection) before the limiter stops asking Redis: a
 * Redis that hangs then costs 3 requests the timeout, not every request for as long as it
 * hangs, while one slow answer does not yet split the shared limits into per-instance ones.
 */
const REDIS_FAILURES_TO_OPEN = 3;
/**
 * Then, for this long, limits are counted in the instance's memory, after which one request
 * tries Redis again (a hang costs one request the timeout per 30 s and instance; a Redis
 * that is back shares the limits again within 30 s). Constants, not settings, like the
 * timeout above: they bound the limiter's own outage, which an operator watches (the log
 * line, termin_rate_limit_redis_up) rather than tunes.
 */
const REDIS_COOL_DOWN_MS = 30_000;
/** Keys the in-memory fallback holds at most (the oldest window goes first). */
const MEMORY_MAX_KEYS = 10_000;

/** What /metrics shows of shared limits (src/http/metrics.ts). */
export interface SharedLimitsStatus {
  /** Whether the limiter asks Redis now: false while its breaker keeps Redis out. */
  redisUp(): boolean;
  /** Requests counted in this instance's memory because Redis failed or was kept out. */
  localFallbacks(): number;
}

/**
 * Registers the API's rate limits inside `api` (call it before the API's routes register).
 * With `redisUrl` the counters live in Redis, so N instances enforce one limit between them.
 * When Redis fails or takes over 0.5 s, the request is counted in the instance's memory
 * instead (the same limits, per instance, as without Redis: a limiter outage must not become
 * an API outage, nor a free-for-all); after 3 failures in a row a circuit breaker keeps
 * Redis out for 30 s, so a Redis that hangs does not add its timeout to every request, and
 * the change is logged once each way. Returns what /metrics shows of it (null without Redis).
 * Without `redisUrl`, each instance counts on its own (a client gets up to N times the limit).
 */
export async function registerRateLimits(api: FastifyInstance, settings: RateLimitSettings, deps: { log: Logger; now: () => number }): Promise<SharedLimitsStatus | null> {
  if (settings.perMinute <= 0 && settings.calculatePerMinute <= 0) return null;
  // Before the plugin's own onRoute hook, which reads `config.rateLimit`.
  api.addHook('onRoute', (route: RouteOptions) => {
    const url = route.url ?? '';
    if (!url.endsWith('/calculate-schedule')) return;
    route.config = { ...(route.config ?? {}), rateLimit: settings.calculatePerMinute > 0 ? { max: settings.calculatePerMinute, timeWindow: RATE_LIMIT_WINDOW_MS } : false };
  });
  const shared = settings.redisUrl === null ? null : await connectSharedCounters(api, settings, deps);
  await api.register(rateLimit, {
    global: settings.perMinute > 0,
    max: Math.max(settings.perMinute, 1),
    timeWindow: RATE_LIMIT_WINDOW_MS,
    // The store never fails (it falls back to memory); skipOnError is the last line anyway.
    ...(shared ? { store: shared.store, skipOnError: true } : {}),
    keyGenerator: (request) => parseApiKey(apiKeyOf(request))?.lookup ?? `ip:${request.ip}`,
    errorResponseBuilder: (_request, context) =>
      Object.assign(new Error(`Too many requests: at most ${context.max} a minute; retry in ${Math.ceil(context.ttl / 1000)} s`), { statusCode: 429 }),
  });
  api.addHook('onSend', async (request, reply) => addDraftRateLimitHeaders(reply, request.routeOptions.url ?? ''));
  return shared?.status ?? null;
}

/**
 * The IETF draft's fields (draft-ietf-httpapi-ratelimit-headers) beside the X-RateLimit-*
 * ones the limiter sets, for clients that read the coming standard: the policy, `q` requests
 * a `w`-second window, and the state now, `r` requests left for `t` seconds:
 * `RateLimit-Policy: "api";q=100;w=60` and `RateLimit: "api";r=99;t=60`. The policy is named
 * by the allowance the route counts against: `"calculate-schedule"` or `"api"`.
 */
function addDraftRateLimitHeaders(reply: FastifyReply, routeUrl: string): void {
  const limit = Number(reply.getHeader('x-ratelimit-limit'));
  const remaining = Number(reply.getHeader('x-ratelimit-remaining'));
  const reset = Number(reply.getHeader('x-ratelimit-reset'));
  if (![limit, remaining, reset].every((value) => Number.isInteger(value) && value >= 0)) return;
  const policy = routeUrl.endsWith('/calculate-schedule') ? 'calculate-schedule' : 'api';
  reply.header('RateLimit-Policy', `"${policy}";q=${limit};w=${RATE_LIMIT_WINDOW_MS / 1000}`);
  reply.header('RateLimit', `"${policy}";r=${remaining};t=${reset}`);
}

interface RateCount {
  current: number;
  /** Milliseconds until the key's window ends. */
  ttl: number;
}

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** INCR with the window set on the first hit: [count, ms left] (see RATE_LIMIT_LUA). */
    terminRateLimit(key: string, windowMs: number): Result<[number, number], Context>;
  }
}

/** The same counting, and the same keys, as @fastify/rate-limit's own Redis store. */
const RATE_LIMIT_LUA = `
  local current = redis.call('INCR', KEYS[1])
  if current == 1 then
    redis.call('PEXPIRE', KEYS[1], ARGV[1])
    return {current, tonumber(ARGV[1])}
  end
  return {current, redis.call('PTTL', KEYS[1])}
`;

async function connectSharedCounters(
  api: FastifyInstance,
  settings: RateLimitSettings,
  { log, now }: { log: Logger; now: () => number },
): Promise<{ store: FastifyRateLimitStoreCtor; status: SharedLimitsStatus }> {
  const redis = connectRedis(settings.redisUrl!);
  api.addHook('onClose', async () => void redis.disconnect());
  let connectionError: string | null = null;
  redis.on('error', (error: Error) => {
    // The breaker's line says what the requests noticed; reconnection attempts are detail.
    connectionError = error.message;
    log.debug({ err: { message: error.message } }, 'rate-limit Redis connection failed');
  });
  redis.on('ready', () => {
    connectionError = null;
  });
  redis.defineCommand('terminRateLimit', { numberOfKeys: 1, lua: RATE_LIMIT_LUA });
  // Commands never queue, so give the first connection a moment before requests arrive
  // (not past REDIS_STARTUP_WAIT_MS: a Redis that is down must not hold the start-up).
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, REDIS_STARTUP_WAIT_MS);
    timer.unref();
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });

  const breaker = new CircuitBreaker({ failuresToOpen: REDIS_FAILURES_TO_OPEN, coolDownMs: REDIS_COOL_DOWN_MS }, now, {
    opened(error, failures, coolDownMs) {
      log.warn(
        {
          err: { message: error instanceof Error ? error.message : String(error) },
          ...(connectionError ? { connection: connectionError } : {}),
          failures,
          retryInSeconds: coolDownMs / 1000,
        },
        `rate-limit Redis failed ${failures} times in a row: limits are counted per instance, and one request tries Redis again every ${coolDownMs / 1000} s`,
      );
    },
    closed() {
      log.info('rate-limit Redis answers again: limits are shared again');
    },
  });
  const memory = new MemoryCounters(MEMORY_MAX_KEYS);
  let fallbacks = 0;
  const countInMemory = (key: string, windowMs: number): RateCount => {
    fallbacks += 1;
    return memory.incr(key, windowMs, now());
  };
  const nameSpace = `${settings.redisKeyPrefix}rate-limit:`;

  const count = async (key: string, windowMs: number): Promise<RateCount> => {
    const report = breaker.attempt();
    if (!report) return countInMemory(key, windowMs);
    try {
      const [current, ttl] = await redis.terminRateLimit(nameSpace + key, windowMs);
      report();
      return { current, ttl };
    } catch (error) {
      report(error);
      return countInMemory(key, windowMs);
    }
  };

  /** The plugin's store: `scope` keeps a route's own allowance (calculate-schedule) apart. */
  class SharedStore implements FastifyRateLimitStore {
    scope = '';

    incr(key: string, callback: (error: Error | null, result?: RateCount) => void, timeWindow: number): void {
      count(this.scope + key, timeWindow).then(
        (result) => callback(null, result),
        (error: Error) => callback(error),
      );
    }

    child(options: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
      // The plugin passes its merged limit settings with the route under `routeInfo` (its
      // typings say the route itself); the scope matches its own Redis store's keys.
      const route = (options as unknown as { routeInfo: RouteOptions }).routeInfo;
      const scoped = new SharedStore();
      scoped.scope = `${this.scope}${route.method}${route.url}-`;
      return scoped;
    }
  }

  return {
    store: SharedStore,
    status: { redisUp: () => breaker.state === 'closed', localFallbacks: () => fallbacks },
  };
}

/**
 * A client that never queues: while disconnected, commands fail at once (the breaker counts
 * them) instead of waiting for a reconnect.
 */
function connectRedis(url: string): Redis {
  return new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 5_000),
  });
}

/**
 * Fixed windows per key in this instance's memory, as the plugin counts without Redis:
 * with a 60 s window, hits at 0 and 10 s give counts 1 and 2 (50 s left); a hit at 60 s
 * starts a new window. Past `maxKeys` the oldest window is forgotten first.
 */
class MemoryCounters {
  // Insertion order is window-start order: a new window is inserted anew.
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly maxKeys: number) {}

  incr(key: string, windowMs: number, now: number): RateCount {
    let window = this.windows.get(key);
    if (!window || now - window.start >= windowMs) {
      this.windows.delete(key);
      if (this.windows.size >= this.maxKeys) this.windows.delete(this.windows.keys().next().value!);
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    return { current: window.count, ttl: window.start + windowMs - now };
  }
}
