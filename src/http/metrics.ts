import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AppContext } from '../context.js';
import type { SharedLimitsStatus } from './rate-limit.js';

/** A scrape never waits longer than this for the outbox counts; it shows the last ones. */
const OUTBOX_READ_TIMEOUT_MS = 1_000;
/** Job kinds reported at most (kinds are a handful; this bounds the series if that changes). */
const MAX_OUTBOX_KINDS = 50;

export interface MetricsOptions {
  /** METRICS_TOKEN: when set, /metrics wants `Authorization: Bearer <token>`. */
  token: string | null;
  /** The route pattern a path matches whatever the method (RouteCatalog.routeOf): labels 405s. */
  routeOf?: (path: string) => string | null;
}

/**
 * Prometheus metrics at `GET /metrics` (text exposition format), one registry per
 * application so tests that build several apps do not share counters:
 *
 * - `termin_http_requests_total{method,route,status}` and
 *   `termin_http_request_duration_seconds{method,route}`: `route` is the route's pattern
 *   (`/api/v1/meetings/:uuid`; a 405 counts under the route its path matched), or
 *   `unmatched` for 404s, so the series stay bounded;
 * - `termin_bookings_total{route}`: 201s of the schedule routes that created meetings
 *   (idempotent replays are not new bookings);
 * - `termin_schedule_cache_hits_total` / `termin_schedule_cache_misses_total`, and the
 *   cache's size;
 * - `termin_outbox_jobs{kind,status}` (pending and failed jobs now: one grouped count on
 *   the outbox's (kind, status) index per scrape, given at most 1 s), `termin_outbox_retrying_jobs{kind}` and the oldest due job's age;
 * - `termin_calendars_busy_cut`: connected calendars whose last sync found more busy spans
 *   than termin keeps, so that from the cut on their whole window counts as busy (each shows
 *   `status: error` and says so in `lastError`); one count per scrape, given at most 1 s;
 * - `termin_db_pool_connections{state}` and `termin_db_pool_max` (PostgreSQL only);
 * - `termin_rate_limit_redis_up` and `termin_rate_limit_local_fallbacks_total` (REDIS_URL
 *   only, registered by the API's plugin through `registerRateLimitMetrics`);
 * - Node's defaults (`nodejs_eventloop_lag_*`, heap, `process_resident_memory_bytes`, …).
 */
export function registerMetrics(app: FastifyInstance, ctx: AppContext, options: MetricsOptions): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'termin_http_requests_total',
    help: 'HTTP requests answered, by route pattern and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'termin_http_request_duration_seconds',
    help: 'Time from the request to its response, by route pattern.',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const bookings = new Counter({ name: 'termin_bookings_total', help: 'Bookings made (201 of a schedule route, replays excluded).', labelNames: ['route'], registers: [registry] });

  app.addHook('onResponse', async (request, reply) => {
    const status = reply.statusCode;
    // A 405 found its path, only not the method: it counts under that route, not with the 404s.
    const route = request.routeOptions.url ?? (status === 405 ? options.routeOf?.(request.url.split('?')[0]!) : null) ?? 'unmatched';
    requests.inc({ method: request.method, route, status: String(status) });
    duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    if (status === 201 && request.method === 'POST' && route.endsWith('/schedule') && reply.getHeader('idempotent-replayed') === undefined) {
      bookings.inc({ route });
    }
  });

  registerCacheMetrics(registry, ctx);
  registerOutboxMetrics(registry, ctx);
  registerCalendarMetrics(registry, ctx);
  registerPoolMetrics(registry, ctx);

  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (options.token !== null && !bearerMatches(request.headers.authorization, options.token)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="metrics"')
        .type('text/plain; charset=utf-8')
        .send('A valid Authorization: Bearer <METRICS_TOKEN> is required\n');
    }
    const text = await registry.metrics();
    return reply.type(registry.contentType).header('cache-control', 'no-store').send(text);
  });
  return registry;
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) return false;
  const sent = Buffer.from(match[1]!);
  const expected = Buffer.from(token);
  return sent.length === expected.length && timingSafeEqual(sent, expected);
}

function registerCacheMetrics(registry: Registry, ctx: AppContext): void {
  const cache = ctx.scheduleCache;
  let seen = { lookups: 0, stores: 0 };
  // Both counters advance together on a scrape, from the cache's own counts.
  const update = () => {
    const now = cache?.traffic?.() ?? seen;
    const newHits = now.lookups - now.stores - (seen.lookups - seen.stores);
    const newMisses = now.stores - seen.stores;
    if (newHits > 0) hits.inc(newHits);
    if (newMisses > 0) misses.inc(newMisses);
    seen = now;
  };
  const hits = new Counter({ name: 'termin_schedule_cache_hits_total', help: 'Schedule lookups served from the cache.', registers: [registry], collect: update });
  const misses = new Counter({ name: 'termin_schedule_cache_misses_total', help: 'Schedule lookups that computed the slots.', registers: [registry], collect: update });
  new Gauge({
    name: 'termin_schedule_cache_bytes',
    help: 'Estimated bytes the schedule cache holds.',
    registers: [registry],
    collect() {
      this.set(cache?.stats().bytes ?? 0);
    },
  });
}

interface OutboxCounts {
  rows: { kind: string; status: string; jobs: number; retrying: number }[];
  oldestDueAt: number | null;
}

function registerOutboxMetrics(registry: Registry, ctx: AppContext): void {
  let last: OutboxCounts = { rows: [], oldestDueAt: null };
  let reading: Promise<void> | null = null;
  // One read per scrape, shared by the three gauges (and by scrapes that overlap it).
  const refresh = async () => {
    reading ??= readOutbox(ctx)
      .then((counts) => {
        last = counts;
      })
      .catch((error: unknown) => ctx.log.warn({ err: error }, 'metrics: reading the outbox failed'))
      .finally(() => (reading = null));
    // A slow database delays the scrape by at most the timeout; the last counts are shown.
    await Promise.race([reading, new Promise((resolve) => setTimeout(resolve, OUTBOX_READ_TIMEOUT_MS).unref())]);
  };

  new Gauge({
    name: 'termin_outbox_jobs',
    help: 'Outbox jobs not done, by kind and status (pending: waiting or retrying; failed: given up).',
    labelNames: ['kind', 'status'],
    registers: [registry],
    async collect() {
      await refresh();
      this.reset();
      for (const row of last.rows) this.set({ kind: row.kind, status: row.status }, row.jobs);
    },
  });
  new Gauge({
    name: 'termin_outbox_retrying_jobs',
    // Whose last attempt failed, not attempts > 0: a webhook delivery retries in a fresh job
    // (attempts 0) that carries the failed attempt's error, and a broken receiver must show here.
    help: 'Pending outbox jobs whose last attempt failed and that wait for another, by kind.',
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      await refresh();
      this.reset();
      for (const row of last.rows) if (row.status === 'pending') this.set({ kind: row.kind }, row.retrying);
    },
  });
  new Gauge({
    name: 'termin_outbox_oldest_due_seconds',
    help: 'How long the oldest pending job has been due (0 when none is): a growing value means the workers fall behind.',
    registers: [registry],
    async collect() {
      await refresh();
      this.set(last.oldestDueAt === null ? 0 : Math.max(0, (ctx.now() - last.oldestDueAt) / 1000));
    },
  });
}

async function readOutbox(ctx: AppContext): Promise<OutboxCounts> {
  const rows = await ctx.db
    .selectFrom('outbox')
    .select(['kind', 'status', sql<number>`count(*)`.as('jobs'), sql<number>`sum(case when last_error is not null then 1 else 0 end)`.as('retrying')])
    .where('status', 'in', ['pending', 'failed'])
    .groupBy(['kind', 'status'])
    .orderBy('kind')
    .limit(MAX_OUTBOX_KINDS * 2)
    .execute();
  const oldest = await ctx.db
    .selectFrom('outbox')
    .select(sql<number | null>`min(next_attempt_at)`.as('due'))
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', ctx.now())
    .executeTakeFirst();
  return {
    rows: rows.map((row) => ({ kind: row.kind, status: row.status, jobs: Number(row.jobs), retrying: Number(row.retrying ?? 0) })),
    oldestDueAt: oldest?.due === null || oldest?.due === undefined ? null : Number(oldest.due),
  };
}

function registerCalendarMetrics(registry: Registry, ctx: AppContext): void {
  let last = 0;
  new Gauge({
    name: 'termin_calendars_busy_cut',
    help: "Connected calendars with more busy spans than termin keeps: from the cut on their whole window counts as busy (the calendar's lastError says from when). A hostile or broken feed, or an event repeating every few minutes.",
    registers: [registry],
    async collect() {
      const read = ctx.db
        .selectFrom('calendars')
        .select(sql<number>`count(*)`.as('calendars'))
        .where('busy_cut_at', 'is not', null)
        .executeTakeFirst()
        .then((row) => {
          last = Number(row?.calendars ?? 0);
        })
        .catch((error: unknown) => ctx.log.warn({ err: error }, 'metrics: counting the calendars cut short failed'));
      // As for the outbox: a slow database delays the scrape by at most this, and the last count is shown.
      await Promise.race([read, new Promise((resolve) => setTimeout(resolve, OUTBOX_READ_TIMEOUT_MS).unref())]);
      this.set(last);
    },
  });
}

function registerPoolMetrics(registry: Registry, ctx: AppContext): void {
  const stats = ctx.dbPoolStats;
  if (!stats) return;
  new Gauge({
    name: 'termin_db_pool_connections',
    help: 'PostgreSQL pool connections by state (idle, busy) and requests waiting for one.',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const now = stats();
      this.set({ state: 'idle' }, now.idle);
      this.set({ state: 'busy' }, now.total - now.idle);
      this.set({ state: 'waiting' }, now.waiting);
    },
  });
  const noticesLive = ctx.dbChangeNoticesLive;
  if (noticesLive) {
    new Gauge({
      name: 'termin_db_change_notices_up',
      help: "Whether this instance hears PostgreSQL's change notices now (1): while 0, each month view reads the topic and calendar versions from the database again.",
      registers: [registry],
      collect() {
        this.set(noticesLive() ? 1 : 0);
      },
    });
  }
  new Gauge({
    name: 'termin_db_pool_max',
    help: 'PostgreSQL pool size (DATABASE_POOL_SIZE).',
    registers: [registry],
    collect() {
      this.set(stats().max);
    },
  });
}

/**
 * Shared rate limits (REDIS_URL): whether the limiter asks Redis now (0 while its circuit
 * breaker keeps a failing Redis out and limits are counted per instance), and how many
 * requests were counted in this instance's memory instead.
 */
export function registerRateLimitMetrics(registry: Registry, status: SharedLimitsStatus): void {
  new Gauge({
    name: 'termin_rate_limit_redis_up',
    help: 'Whether rate limits are counted in the shared Redis now (1), or per instance because it failed (0).',
    registers: [registry],
    collect() {
      this.set(status.redisUp() ? 1 : 0);
    },
  });
  let seen = 0;
  new Counter({
    name: 'termin_rate_limit_local_fallbacks_total',
    help: "Requests whose rate limit was counted in this instance's memory because Redis failed or was kept out.",
    registers: [registry],
    collect() {
      const now = status.localFallbacks();
      if (now > seen) this.inc(now - seen);
      seen = now;
    },
  });
}
