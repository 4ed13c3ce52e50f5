import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { parseApiKey } from '../domain/api-key.js';
import { API_KEY_HEADER, headerOf } from './request-guards.js';

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

/** A Redis command that takes longer than this lets the request through (fail open). */
const REDIS_COMMAND_TIMEOUT_MS = 500;
/** How long start-up waits for the first connection to Redis. */
const REDIS_STARTUP_WAIT_MS = 2_000;
/** While Redis stays down, one warning at most this often. */
const REDIS_WARNING_INTERVAL_MS = 60_000;

/**
 * Registers the API's rate limits inside `api` (call it before the API's routes register).
 * With `redisUrl` the counters live in Redis, so N instances enforce one limit between them;
 * when Redis is unreachable or slow, requests are let through (fail open: a limiter outage
 * must not become an API outage) and a warning is logged, once a minute while it lasts.
 * Without it, each instance counts on its own (a client gets up to N times the limit).
 */
export async function registerRateLimits(api: FastifyInstance, settings: RateLimitSettings, log: Logger): Promise<void> {
  if (settings.perMinute <= 0 && settings.calculatePerMinute <= 0) return;
  // Before the plugin's own onRoute hook, which reads `config.rateLimit`.
  api.addHook('onRoute', (route: RouteOptions) => {
    const url = route.url ?? '';
    if (!url.endsWith('/calculate-schedule')) return;
    route.config = { ...(route.config ?? {}), rateLimit: settings.calculatePerMinute > 0 ? { max: settings.calculatePerMinute, timeWindow: 60_000 } : false };
  });
  const redis = settings.redisUrl === null ? null : connectRedis(settings.redisUrl, log);
  if (redis) {
    api.addHook('onClose', async () => void redis.disconnect());
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
  }
  await api.register(rateLimit, {
    global: settings.perMinute > 0,
    max: Math.max(settings.perMinute, 1),
    timeWindow: 60_000,
    ...(redis ? { redis, nameSpace: `${settings.redisKeyPrefix}rate-limit:`, skipOnError: true } : {}),
    keyGenerator: (request) => parseApiKey(headerOf(request, API_KEY_HEADER))?.lookup ?? `ip:${request.ip}`,
    errorResponseBuilder: (_request, context) =>
      Object.assign(new Error(`Too many requests: at most ${context.max} a minute; retry in ${Math.ceil(context.ttl / 1000)} s`), { statusCode: 429 }),
  });
}

/**
 * A client that never queues: while disconnected, commands fail at once (and the limiter
 * lets the request through) instead of waiting for a reconnect.
 */
function connectRedis(url: string, log: Logger): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 5_000),
  });
  let lastWarning = 0;
  let down = false;
  redis.on('error', (error: Error) => {
    const now = Date.now();
    if (!down || now - lastWarning >= REDIS_WARNING_INTERVAL_MS) {
      lastWarning = now;
      log.warn({ err: { message: error.message } }, 'rate-limit Redis unavailable: requests are let through unlimited until it is back');
    }
    down = true;
  });
  redis.on('ready', () => {
    if (down) log.info('rate-limit Redis is back: limits are shared again');
    down = false;
  });
  return redis;
}
