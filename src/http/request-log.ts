import type { FastifyInstance, FastifyRequest } from 'fastify';
import { redactUrl } from '../logging.js';

const refusedWhileClosing = new WeakSet<FastifyRequest>();

/**
 * A request turned away because this instance is shutting down (503 with Retry-After and
 * Connection: close, src/app.ts): its line says so at info level, not as a failure. Every
 * rolling deploy sends a few (a client's kept-alive connection), nothing is wrong, and an
 * error-level line per refusal would page whoever alerts on errors at each deploy.
 */
export function noteRefusedWhileClosing(request: FastifyRequest): void {
  refusedWhileClosing.add(request);
}

/**
 * One line per request, written when the response is done: method, route, status and
 * duration, with the request id pino binds to every line of the request. Fastify's own
 * request logging writes two lines (incoming, completed) and costs a measurable share of a
 * cached month view (bench/http-throughput.ts), so it is off; `LOG_LEVEL=debug` adds the
 * incoming line back for tracing. A 5xx is an error line, except a refusal while shutting
 * down (noteRefusedWhileClosing).
 */
export function registerRequestLog(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    request.log.debug({ method: request.method, url: redactUrl(request.url) }, 'incoming request');
  });
  app.addHook('onResponse', async (request, reply) => {
    const status = reply.statusCode;
    const line = {
      method: request.method,
      route: request.routeOptions.url ?? null,
      url: redactUrl(request.url),
      status,
      durationMs: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (refusedWhileClosing.has(request)) request.log.info(line, 'request refused: shutting down');
    else if (status >= 500) request.log.error(line, 'request failed');
    else request.log.info(line, 'request');
  });
}
