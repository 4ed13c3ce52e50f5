import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { AppContext } from './context.js';
import { MethodNotAllowedError, NotFoundError, ServiceUnavailableError } from './domain/errors.js';
import { mapProviders } from './domain/integrations.js';
import { isDatabaseUnavailable, isStorageFull } from './db/errors.js';
import { registerCors } from './http/cors.js';
import { createRepeatedBodies, parseRepeatable } from './http/repeated-bodies.js';
import { createErrorHandler } from './http/problems.js';
import { describeWebhookEvents } from './http/webhook-events-doc.js';
import { acceptOptionalApiKey, requireApiKey, requireJsonAccept, toFastifyTrustProxy } from './http/request-guards.js';
import { registerMetrics, registerRateLimitMetrics } from './http/metrics.js';
import { documentApiKeySecurity, registerOpenApiConventions } from './http/openapi.js';
import { registerRateLimits } from './http/rate-limit.js';
import { registerRequestIdHeader, requestIdOf } from './http/request-id.js';
import { appRoutes } from './http/app/index.js';
import { accountRoutes } from './http/routes/account.js';
import { auditEventRoutes } from './http/routes/audit-events.js';
import { availabilityRoutes } from './http/routes/availability.js';
import { scheduleRoutes } from './http/routes/schedules.js';
import { timeOffRoutes } from './http/routes/time-off.js';
import { singleUseLinkRoutes } from './http/routes/single-use-links.js';
import { placeDetailsRoutes } from './http/routes/place-details.js';
import { bookingPageRoutes } from './http/routes/pages-booking.js';
import { calendarRoutes } from './http/routes/calendars.js';
import { connectionRoutes, oauthCallbackRoutes } from './http/routes/connections.js';
import { brandingRoutes } from './http/routes/branding.js';
import { feedRoutes } from './http/routes/feeds.js';
import { discountCodeRoutes } from './http/routes/discount-codes.js';
import { docsRoutes } from './http/routes/docs.js';
import { healthRoutes } from './http/routes/health.js';
import { publicBookingRoutes } from './http/routes/public-booking.js';
import { meetingTopicRoutes } from './http/routes/meeting-topics.js';
import { meetingRoutes } from './http/routes/meetings.js';
import { payPageRoutes, paymentNotificationRoutes, paymentRoutes } from './http/routes/payments.js';
import { calculateScheduleRoutes } from './http/routes/schedule.js';
import { explainScheduleRoutes } from './http/routes/explain-schedule.js';
import { participantRoutes } from './http/routes/participants.js';
import { teamRoutes } from './http/routes/teams.js';
import { webhookRoutes } from './http/routes/webhooks.js';
import { AccountSchema, ApiKeySchema } from './http/schemas/account.js';
import { AvailabilitySchema } from './http/schemas/availability.js';
import { DiscountCodeSchema } from './http/schemas/discount-codes.js';
import { MeetingTopicSchema } from './http/schemas/meeting-topics.js';
import { MeetingSchema, PaymentSchema, SlotSchema } from './http/schemas/schedule.js';
import { ProblemSchema } from './http/schemas/common.js';
import { userRoutes } from './http/routes/users.js';
import { MemberSchema, TeamSchema, UserSchema } from './http/schemas/teams.js';
import { noteRefusedWhileClosing, registerRequestLog } from './http/request-log.js';
import { createValidatorCompiler } from './http/validation.js';
import { createDeferredCompiles } from './http/deferred-compile.js';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { SERVICE_VERSION } from './version.js';

export const API_PREFIX = '/api/v1';

declare module 'fastify' {
  interface FastifyInstance {
    /** Compiles the validators and serializers no request has needed yet (after listen; see src/http/deferred-compile.ts). */
    warmUp(): Promise<number>;
  }
}

/** The HTTP application; it never listens, so tests drive it with `app.inject()`. */
export async function buildApp(ctx: AppContext): Promise<FastifyInstance> {
  const handleError = createErrorHandler({ isUnavailable: isDatabaseUnavailable, isStorageFull }, { problemTypeBase: ctx.config.absoluteProblemTypes ? ctx.config.publicUrl : '' });
  const compiles = createDeferredCompiles();
  const buildSerializer = SerializerSelector();
  const app = Fastify({
    // Response serializers compile on first use (or in the warm-up), not all before the server can answer.
    schemaController: {
      compilersFactory: {
        buildSerializer: (externalSchemas: unknown, options: unknown) => {
          const build = buildSerializer(externalSchemas, options as Parameters<typeof buildSerializer>[1]);
          return (route: Parameters<typeof build>[0]) => compiles.defer(() => build(route));
        },
      },
    },
    loggerInstance: ctx.log as FastifyBaseLogger,
    // One line per request instead of Fastify's two: see src/http/request-log.ts.
    logController: new LogController({ disableRequestLogging: true }),
    // X-Request-Id: the client's when sane, else a new one; on every response and log line (src/http/request-id.ts).
    genReqId: requestIdOf,
    requestIdHeader: false,
    bodyLimit: ctx.config.bodyLimitBytes,
    trustProxy: toFastifyTrustProxy(ctx.config.trustProxy),
    // Requests arriving while the server closes are answered by refuseWhileClosing below, as problems with Retry-After.
    return503OnClosing: false,
    // Requests in flight finish on close; idle keep-alive sockets do not hold shutdown up.
    forceCloseConnections: 'idle',
    // Slow clients: a request whose headers or body trickle in is cut off (408) instead of
    // holding a socket forever; Node checks these every second rather than every 30 s.
    requestTimeout: ctx.config.http.requestTimeoutMs,
    connectionTimeout: ctx.config.http.connectionTimeoutMs,
    keepAliveTimeout: ctx.config.http.keepAliveTimeoutMs,
    http: { headersTimeout: ctx.config.http.headersTimeoutMs, requestTimeout: ctx.config.http.requestTimeoutMs, connectionsCheckingInterval: 1_000 },
    // The router's own refusals (a malformed percent-encoding, a path parameter over 100
    // characters) are problem details too, not Fastify's bare JSON (test/fuzz/framework-errors.test.ts).
    frameworkErrors: handleError,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorateRequest('principal', null);
  registerRequestIdHeader(app);
  refuseWhileClosing(app);
  registerRequestLog(app);
  // Before any route: operation ids, the route catalogue for 405 and Location (src/http/openapi.ts).
  const catalog = registerOpenApiConventions(app, { apiPrefix: API_PREFIX, rateLimited: ctx.config.rateLimitPerMinute > 0 });
  const metrics = registerMetrics(app, ctx, { token: ctx.config.metricsToken, routeOf: (path) => catalog.routeOf(path) });
  const repeatedBodies = createRepeatedBodies();
  app.setValidatorCompiler(createValidatorCompiler(compiles, repeatedBodies));
  app.decorate('warmUp', () => compiles.warmUp((error) => ctx.log.error({ err: error }, 'a route schema failed to compile')));
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    // A known path asked with a method it does not take: 405 with the methods it does.
    const allowed = catalog.allowedMethods(path);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      throw new MethodNotAllowedError(request.method, allowed);
    }
    throw new NotFoundError(`route ${request.method} ${path}`);
  });
  // Location on a 201 whose resource has a URL (see RouteCatalog.locationOf).
  app.addHook('preSerialization', async (request, reply, payload) => {
    if (reply.statusCode === 201 && !reply.hasHeader('location')) {
      const location = catalog.locationOf(request, payload);
      if (location !== null) reply.header('location', location);
    }
    return payload;
  });
  // Only JSON bodies are accepted; anything else (text/plain included) is a 415.
  app.removeContentTypeParser('text/plain');
  // Clients are documented to send `Content-Type: application/json` on every call, DELETE and
  // bodiless POSTs included: an empty body is no body, not malformed JSON. Routes that need a
  // body still refuse its absence through their schema.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text === '') {
      done(null, undefined);
      return;
    }
    if (request.routeOptions.config.repeatableBody === true) parseRepeatable(repeatedBodies, request, text, parseJson, done);
    else parseJson(request, text, done);
  });

  for (const schema of [
    ProblemSchema,
    TeamSchema,
    MemberSchema,
    UserSchema,
    AccountSchema,
    ApiKeySchema,
    MeetingTopicSchema,
    AvailabilitySchema,
    SlotSchema,
    MeetingSchema,
    PaymentSchema,
    DiscountCodeSchema,
  ])
    app.addSchema(schema);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'termin API',
        version: SERVICE_VERSION,
        description:
          'Meeting scheduling: teams and members, meeting topics, availability, free slots and bookings. ' +
          'Every error is RFC 9457 problem details (application/problem+json); see /docs/problems. ' +
          'A path asked with a method it does not take is 405 METHOD_NOT_ALLOWED with `Allow` listing those it takes. ' +
          'The events sent to webhooks are described under `webhooks`.',
        contact: { name: 'The operator of this termin service', url: `${ctx.config.publicUrl}/docs` },
        license: { name: 'Proprietary: terms from the operator of this service', url: `${ctx.config.publicUrl}/docs` },
      },
      servers: [{ url: ctx.config.publicUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-Service-Api-Key' },
          bearerApiKey: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'tmn_…',
            description: 'The same API key as `Authorization: Bearer <key>`, for clients that send Bearer tokens. When both are sent, `X-Service-Api-Key` is used.',
          },
        },
      },
    },
    transformObject: (document) => {
      const transformed = catalog.transformDocument((document as { openapiObject: Record<string, unknown> }).openapiObject);
      transformed.webhooks = describeWebhookEvents();
      return transformed;
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });

  await app.register(healthRoutes, { ctx });
  await app.register(docsRoutes, {
    integrations: { publicUrl: ctx.config.publicUrl, scopes: mapProviders((provider) => ctx.integrations.oauth[provider].scopes) },
  });

  await app.register(
    async (api) => {
      // First, so a browser's preflight is answered before the key or the rate is checked.
      const origins = ctx.config.corsOrigins;
      if (origins === '*' || origins.length > 0) {
        registerCors(api, {
          origins,
          methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
          allowedHeaders: ['Content-Type', 'Accept', 'Accept-Language', 'X-Service-Api-Key', 'Idempotency-Key', 'X-Request-Id', 'Authorization'],
          exposedHeaders: [
            'Retry-After',
            'Idempotent-Replayed',
            'Location',
            'X-Request-Id',
            'X-RateLimit-Limit',
            'X-RateLimit-Remaining',
            'X-RateLimit-Reset',
            'RateLimit',
            'RateLimit-Policy',
            'WWW-Authenticate',
          ],
          maxAgeSeconds: 600,
        });
      }
      // Shared through Redis when REDIS_URL is set, per instance otherwise (src/http/rate-limit.ts).
      const sharedLimits = await registerRateLimits(
        api,
        {
          perMinute: ctx.config.rateLimitPerMinute,
          calculatePerMinute: ctx.config.calculateRateLimitPerMinute,
          redisUrl: ctx.config.redisUrl,
          redisKeyPrefix: ctx.config.redisKeyPrefix,
        },
        { log: ctx.log, now: ctx.now },
      );
      if (sharedLimits) registerRateLimitMetrics(metrics, sharedLimits);
      api.addHook('onRequest', requireJsonAccept);
      api.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

      await api.register(async (authenticated) => {
        authenticated.addHook('onRequest', requireApiKey(ctx, ctx.limiters.authFailures));
        // What that hook enforces, the document says: each route here needs a key (src/http/openapi.ts).
        authenticated.addHook('onRoute', documentApiKeySecurity);
        await authenticated.register(teamRoutes, { ctx });
        await authenticated.register(userRoutes, { ctx });
        await authenticated.register(accountRoutes, { ctx });
        await authenticated.register(meetingTopicRoutes, { ctx });
        await authenticated.register(availabilityRoutes, { ctx });
        await authenticated.register(scheduleRoutes, { ctx });
        await authenticated.register(timeOffRoutes, { ctx });
        await authenticated.register(singleUseLinkRoutes, { ctx });
        await authenticated.register(placeDetailsRoutes, { ctx });
        await authenticated.register(meetingRoutes, { ctx });
        await authenticated.register(discountCodeRoutes, { ctx });
        await authenticated.register(calendarRoutes, { ctx });
        await authenticated.register(connectionRoutes, { ctx });
        await authenticated.register(paymentRoutes, { ctx });
        await authenticated.register(webhookRoutes, { ctx });
        await authenticated.register(explainScheduleRoutes, { ctx });
        await authenticated.register(auditEventRoutes, { ctx });
        await authenticated.register(participantRoutes, { ctx });
      });

      await api.register(async (open) => {
        open.addHook('onRequest', acceptOptionalApiKey(ctx, ctx.limiters.authFailures));
        await open.register(calculateScheduleRoutes, { ctx });
        await open.register(publicBookingRoutes, { ctx, limiter: ctx.limiters.publicBookings });
      });
    },
    { prefix: API_PREFIX },
  );

  // Gateways' notifications: under /api/v1 but beside the JSON API (no key, any Accept, raw bodies; see the plugin).
  await app.register(paymentNotificationRoutes, { ctx, prefix: API_PREFIX });

  // Pages for people's browsers, outside /api/v1: pay, booking and manage pages, calendar feeds.
  await app.register(payPageRoutes, { ctx });
  await app.register(bookingPageRoutes, { ctx });
  await app.register(feedRoutes, { ctx });
  await app.register(brandingRoutes, { ctx });
  await app.register(oauthCallbackRoutes, { ctx });
  // The host's web app: sign-in by e-mailed link, a session cookie, pages over the same use cases.
  await app.register(appRoutes, { ctx });

  return app;
}

/**
 * Once the server begins to close, a request that still arrives on an open connection (a
 * keep-alive one, or pipelined) is answered at once: 503 problem details with Retry-After,
 * and Connection: close so the client reconnects, to another instance behind a load
 * balancer. (Fastify's own answer was a bare JSON 503 without Retry-After.) /healthz says
 * the same, so a balancer stops sending here. Its log line is info, not error: the refusal is
 * the shutdown working as meant (src/http/request-log.ts).
 */
function refuseWhileClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!closing) return;
    noteRefusedWhileClosing(request);
    reply.header('connection', 'close');
    throw new ServiceUnavailableError('The service is shutting down; retry in a moment', 5);
  });
}
