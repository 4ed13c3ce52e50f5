import type { FastifyInstance } from 'fastify';
import { redactUrl } from '../logging.js';

/**
 * One line per request, written when the response is done: method, route, status and
 * duration, with the request id pino binds to every line of the request. Fastify's own
 * request logging writes two lines (incoming, completed) and costs a measurable share of a
 * cached month view (bench/http-throughput.ts), so it is off; `LOG_LEVEL=debug` adds the
 * incoming line back for tracing.
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
    if (status >= 500) request.log.error(line, 'request failed');
    else request.log.info(line, 'request');
  });
}
