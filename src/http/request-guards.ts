import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AddressLimiter } from '../domain/address-limiter.js';
import { DomainError, RateLimitedError, UnauthenticatedError } from '../domain/errors.js';
import { authenticate } from '../scheduling/authenticate.js';
import type { Principal, UseCaseContext } from '../scheduling/context.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export const API_KEY_HEADER = 'x-service-api-key';

/** The challenge of a 401 (RFC 9110 §11.6.1): the key may also come as `Authorization: Bearer <key>`. */
export const AUTHENTICATE_CHALLENGE = 'Bearer realm="termin"';

/**
 * The API key a request carries: `X-Service-Api-Key`, else an `Authorization: Bearer` token
 * (what cal.com and Calendly clients send). Another Authorization scheme (a proxy's Basic) is
 * no key. `apiKeyOf(request)` → `'tmn_…'` or undefined.
 */
export function apiKeyOf(request: FastifyRequest): string | undefined {
  const header = headerOf(request, API_KEY_HEADER);
  if (header !== undefined) return header;
  const match = /^Bearer[ \t]+(\S*)[ \t]*$/i.exec(headerOf(request, 'authorization') ?? '');
  return match ? match[1] : undefined;
}

/** The caller; only for routes behind `requireApiKey`, where it is always set. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new UnauthenticatedError();
  return request.principal;
}

/**
 * onRequest hook: authenticates before the body is read, so a request without a valid
 * key learns nothing about its body's validity. An address with too many failed attempts
 * this minute gets 429 before any key is looked up (`limiter`: AUTH_FAILURES_PER_MINUTE).
 */
export function requireApiKey(ctx: Pick<UseCaseContext, 'now' | 'db'>, limiter: AddressLimiter | null) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    request.principal = await authenticateGuarded(ctx, limiter, request, reply, apiKeyOf(request));
  };
}

/**
 * onRequest hook for public routes: no key is fine, but a key that is sent (either way) must be
 * valid. Callback-style: a booking page's requests carry no key, and an async hook cost each of
 * them a promise and a turn of the microtask queue for nothing.
 */
export function acceptOptionalApiKey(ctx: Pick<UseCaseContext, 'now' | 'db'>, limiter: AddressLimiter | null) {
  return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void => {
    const raw = apiKeyOf(request);
    if (raw === undefined) {
      done();
      return;
    }
    authenticateGuarded(ctx, limiter, request, reply, raw).then(
      (principal) => {
        request.principal = principal;
        done();
      },
      (error: Error) => done(error),
    );
  };
}

async function authenticateGuarded(
  ctx: Pick<UseCaseContext, 'now' | 'db'>,
  limiter: AddressLimiter | null,
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
    if (limiter && error instanceof UnauthenticatedError) limiter.record(request.ip, ctx.now());
    throw error;
  }
}

/** Config's TRUST_PROXY as Fastify takes it: a hop count becomes "trust the N nearest hops". */
export function toFastifyTrustProxy(trust: false | number | string[]): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : trust;
}

/**
 * onRequest hook: 406 when `Accept` rules out JSON. Missing `Accept`, `*\/*`,
 * `application/*` and any `+json` type are all taken as JSON.
 */
export function requireJsonAccept(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
  const accept = request.headers.accept;
  const acceptable = accept === undefined || accept.trim() === '' || acceptsJson(accept);
  done(acceptable ? undefined : new DomainError('NOT_ACCEPTABLE', 'This API only responds with application/json; the Accept header excludes it'));
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
