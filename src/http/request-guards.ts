import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, RateLimitedError, UnauthenticatedError } from '../domain/errors.js';
import { authenticate } from '../scheduling/authenticate.js';
import type { Principal, UseCaseContext } from '../scheduling/context.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export const API_KEY_HEADER = 'x-service-api-key';

/** The caller; only for routes behind `requireApiKey`, where it is always set. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new UnauthenticatedError();
  return request.principal;
}

/**
 * onRequest hook: authenticates before the body is read, so a request without a valid
 * key learns nothing about its body's validity. An address with too many failed attempts
 * this minute gets 429 before any key is looked up (see AuthFailureLimiter).
 */
export function requireApiKey(ctx: UseCaseContext) {
  const limiter = authFailureLimiterOf(ctx);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    request.principal = await authenticateGuarded(ctx, limiter, request, reply, headerOf(request, API_KEY_HEADER));
  };
}

/** onRequest hook for public routes: no key is fine, but a key that is sent must be valid. */
export function acceptOptionalApiKey(ctx: UseCaseContext) {
  const limiter = authFailureLimiterOf(ctx);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const raw = headerOf(request, API_KEY_HEADER);
    if (raw !== undefined) request.principal = await authenticateGuarded(ctx, limiter, request, reply, raw);
  };
}

async function authenticateGuarded(
  ctx: UseCaseContext,
  limiter: AuthFailureLimiter | null,
  request: FastifyRequest,
  reply: FastifyReply,
  rawKey: string | undefined,
): Promise<Principal> {
  if (limiter) {
    const waitSeconds = limiter.blockedFor(request.ip, ctx.now());
    if (waitSeconds > 0) {
      reply.header('Retry-After', String(waitSeconds));
      throw new RateLimitedError(`Too many failed authentications from this address; retry in ${waitSeconds} s`, waitSeconds);
    }
  }
  try {
    return await authenticate(ctx, rawKey);
  } catch (error) {
    if (limiter && error instanceof UnauthenticatedError) limiter.recordFailure(request.ip, ctx.now());
    throw error;
  }
}

/**
 * Failed authentications per client address in fixed one-minute windows, in memory (per
 * instance). Checked before the key lookup, so a client cycling through made-up keys costs
 * one map lookup per request, not a database query; an address over the limit is refused
 * even with a valid key until its window ends. The map is bounded: expired windows are
 * swept, and past `maxAddresses` the oldest entries go first.
 */
export class AuthFailureLimiter {
  private readonly windows = new Map<string, { start: number; failures: number }>();

  constructor(
    readonly maxFailuresPerMinute: number,
    private readonly maxAddresses = 10_000,
    private readonly windowMs = 60_000,
  ) {}

  /** Seconds until `address` may try again; 0 when it may try now. */
  blockedFor(address: string, now: number): number {
    const window = this.windows.get(address);
    if (!window || now - window.start >= this.windowMs) return 0;
    if (window.failures < this.maxFailuresPerMinute) return 0;
    return Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000));
  }

  recordFailure(address: string, now: number): void {
    const window = this.windows.get(address);
    if (window && now - window.start < this.windowMs) {
      window.failures += 1;
      return;
    }
    this.windows.delete(address);
    if (this.windows.size >= this.maxAddresses) this.evict(now);
    this.windows.set(address, { start: now, failures: 1 });
  }

  private evict(now: number): void {
    for (const [address, window] of this.windows) {
      if (now - window.start >= this.windowMs) this.windows.delete(address);
    }
    // Insertion order is window-start order: drop the oldest until there is room.
    for (const address of this.windows.keys()) {
      if (this.windows.size < this.maxAddresses) break;
      this.windows.delete(address);
    }
  }
}

// One limiter per application context, shared by the required and the optional key hooks.
const limiters = new WeakMap<object, AuthFailureLimiter | null>();

function authFailureLimiterOf(ctx: UseCaseContext): AuthFailureLimiter | null {
  if (!limiters.has(ctx)) {
    const perMinute = (ctx as { config?: { authFailuresPerMinute?: number } }).config?.authFailuresPerMinute ?? 0;
    limiters.set(ctx, perMinute > 0 ? new AuthFailureLimiter(perMinute) : null);
  }
  return limiters.get(ctx) ?? null;
}

/** Config's TRUST_PROXY as Fastify takes it: a hop count becomes "trust the N nearest hops". */
export function toFastifyTrustProxy(trust: false | number | string[]): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : trust;
}

/**
 * onRequest hook: 406 when `Accept` rules out JSON. Missing `Accept`, `*\/*`,
 * `application/*` and any `+json` type are all taken as JSON.
 */
export async function requireJsonAccept(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  const accept = request.headers.accept;
  if (accept === undefined || accept.trim() === '') return;
  if (!acceptsJson(accept)) {
    throw new DomainError('NOT_ACCEPTABLE', 'This API only responds with application/json; the Accept header excludes it');
  }
}

export function acceptsJson(accept: string): boolean {
  return accept.split(',').some((part) => {
    const [rawType, ...params] = part.split(';');
    const type = rawType!.trim().toLowerCase();
    const q = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('q='));
    if (q !== undefined && Number(q.slice(2)) === 0) return false;
    return type === 'application/json' || type === '*/*' || type === 'application/*' || type.endsWith('+json');
  });
}

export function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
