import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';

/** What a client (or a proxy in front) may send as its request id: short, and safe in a log line or a header. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Fastify's `genReqId`: the client's `X-Request-Id` when it is sane (so a proxy's or the
 * caller's id follows the request through our logs), otherwise a new UUID. Anything else
 * (too long, spaces, control characters, several headers) is replaced, never echoed.
 * `requestIdOf({ headers: { 'x-request-id': 'abc-1' } })` → `'abc-1'`.
 */
export function requestIdOf(request: Pick<IncomingMessage, 'headers'>): string {
  const sent = request.headers[REQUEST_ID_HEADER];
  return typeof sent === 'string' && SANE_REQUEST_ID.test(sent) ? sent : randomUUID();
}

/** Every response says which request it answers: `X-Request-Id`, set before anything can fail. */
export function registerRequestIdHeader(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
}
