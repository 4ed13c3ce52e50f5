import type { FastifyRequest } from 'fastify';
import { deepFreeze } from '../domain/deep-freeze.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's handler never changes its body: a body the route accepted is kept (frozen,
     * with its text), and a request with the very same text gets it again, neither parsed nor
     * validated anew. See createRepeatedBodies.
     */
    repeatableBody?: boolean;
  }
}

/**
 * Bodies sent again byte for byte. A booking page asks for the same few month views over
 * and over (every visitor of a host's page sends the same body), and parsing and validating
 * that body was, once the view itself came from its cache, the largest part of its cost
 * beyond the bytes: ~3 µs of a ~35 µs request (bench/month-bytes.ts). For the routes that opt
 * in (`config: { repeatableBody: true }`), the JSON parser first looks the text up among the
 * bodies that route recently accepted; the validator lets such a body through at once.
 *
 * A body is kept only once the route's own validator accepted it (and after its `x-lowercase`
 * changes), so what a repeat gets is exactly what validating it again would give: validation
 * depends on the text and the schema alone. It is deep-frozen, since every later request with
 * that text shares it; a handler that wrote to it would throw, hence the opt-in. At most
 * `maxEntries` texts per route (the oldest goes first) of at most `maxTextLength` characters
 * are kept: a sender of endless different bodies costs memory only that far.
 */
export interface RepeatedBodies {
  /** The JSON parser's side: the kept body of this route for exactly this text, if any. */
  recall(route: string, text: string): object | undefined;
  /** The JSON parser's side: a body just parsed from `text`, to be kept if `route`'s validator accepts it. */
  offer(route: string, text: string, body: unknown): void;
  /** The validator's side: whether `body` is one this route kept (so it was accepted already). */
  isKept(route: string, body: unknown): boolean;
  /** The validator's side, after it accepted `body`: keeps it if it was offered for this route. */
  accepted(route: string, body: unknown): void;
}

export function createRepeatedBodies(options: { maxEntries?: number; maxTextLength?: number } = {}): RepeatedBodies {
  const maxEntries = options.maxEntries ?? 1_000;
  const maxTextLength = options.maxTextLength ?? 1_024;
  const keptByRoute = new Map<string, Map<string, object>>();
  // Each kept body and its route; each offered one (parsed, not yet validated) and its route and text.
  const routeOfKept = new WeakMap<object, string>();
  const offered = new WeakMap<object, { route: string; text: string }>();
  return {
    recall(route, text) {
      return keptByRoute.get(route)?.get(text);
    },
    offer(route, text, body) {
      if (text.length > maxTextLength || body === null || typeof body !== 'object') return;
      offered.set(body, { route, text });
    },
    // A WeakMap answers undefined for anything that is not an object: no guard needed to ask.
    isKept(route, body) {
      return routeOfKept.get(body as object) === route;
    },
    accepted(route, body) {
      const candidate = body as object;
      const offer = offered.get(candidate);
      if (offer === undefined || offer.route !== route) return;
      offered.delete(candidate);
      let kept = keptByRoute.get(route);
      if (kept === undefined) {
        kept = new Map();
        keptByRoute.set(route, kept);
      }
      if (kept.size >= maxEntries) kept.delete(kept.keys().next().value!);
      kept.set(offer.text, deepFreeze(candidate));
      routeOfKept.set(candidate, route);
    },
  };
}

type ParseDone = (error: Error | null, body?: unknown) => void;

/**
 * The JSON parser's side for a route that opted in: the body this route kept for exactly
 * this text, else `parse`'s, offered to the route's validator to be kept.
 */
export function parseRepeatable(
  bodies: RepeatedBodies,
  request: FastifyRequest,
  text: string,
  parse: (request: FastifyRequest, text: string, done: ParseDone) => void,
  done: ParseDone,
): void {
  const route = routeKeyOf(request.routeOptions.method as string, request.routeOptions.url!);
  const kept = bodies.recall(route, text);
  if (kept !== undefined) {
    done(null, kept);
    return;
  }
  parse(request, text, (error, parsed) => {
    if (!error) bodies.offer(route, text, parsed);
    done(error, parsed);
  });
}

/** The route a request was routed to, as its validator was compiled for: `POST /api/v1/calculate-schedule`. */
export function routeKeyOf(method: string, url: string): string {
  return `${method} ${url}`;
}
