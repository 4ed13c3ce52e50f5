import type { Logger } from 'pino';
import type { Config, Secrets } from './config.js';
import { createCalendarRegistry } from './calendars/registry.js';
import { createIntegrationRegistry } from './integrations/registry.js';
import { createDb, type Dialect, type PoolStats } from './db/connect.js';
import type { Db } from './db/database.js';
import { listenForChanges } from './db/change-feed.js';
import { createFastReads } from './db/fast-reads.js';
import { migrateToLatest } from './db/migrate.js';
import { refreshPlannerStatistics } from './db/statistics.js';
import { isStorageFull } from './db/errors.js';
import { probeStorage, StorageHealth } from './db/storage-health.js';
import { createAddressLimiter, type AddressLimiter } from './domain/address-limiter.js';
import { createLogger } from './logging.js';
import { createMailTransport } from './mail/transport.js';
import { createOutbound } from './net/outbound-request.js';
import { createVendorHttp } from './net/vendor-http.js';
import { createOutboxPace } from './outbox/pace.js';
import { EMAIL_JOB_KIND, EVENT_JOB_KIND } from './outbox/job-kinds.js';
import { createGatewayRegistry } from './payments/registry.js';
import { createSmsSender } from './sms/registry.js';
import type { UseCaseContext } from './scheduling/context.js';
import { reportUnreadableGatewaySecrets } from './scheduling/payments/credentials.js';
import { createScheduleCache } from './scheduling/booking/cache.js';
import { resolveSecretKey, type ResolvedSecretKey } from './secrets/secret-key.js';

/** Everything the service shares between requests, built once at start-up. */
export interface AppContext extends UseCaseContext {
  /** The service's settings (src/config.ts), validated and frozen: for the wiring; use cases get the fields they need above. */
  config: Config;
  dialect: Dialect;
  /** Where the secret key came from, for the start-up banner. */
  secretKeySource: Omit<ResolvedSecretKey, 'keys'>;
  /** PostgreSQL pool usage for /metrics; null on SQLite (no pool). */
  dbPoolStats: (() => PoolStats) | null;
  /** PostgreSQL: whether this instance hears other instances' change notices now (src/db/change-feed.ts); null on SQLite or when turned off. */
  dbChangeNoticesLive: (() => boolean) | null;
  /** Per-address counters of this instance (each null when the operator set its limit to 0). */
  limiters: {
    /** AUTH_FAILURES_PER_MINUTE: failed authentications, checked before any key lookup. */
    authFailures: AddressLimiter | null;
    /** PUBLIC_BOOKING_RATE_PER_MINUTE: bookings through the booking page, which needs no key. */
    publicBookings: AddressLimiter | null;
  };
  /** Migrations this context applied when it was built (see ContextOptions.migrate). */
  migrationsApplied: string[];
  close(): Promise<void>;
}

export interface ContextOptions {
  /** A fixed or controllable clock for tests. */
  now?: () => number;
  log?: Logger;
  /** From loadSecrets(); without them the key in the data directory is used (or generated). */
  secrets?: Secrets;
  /** Apply migrations first; MIGRATE_ON_START by default (the CLI always does). */
  migrate?: boolean;
}

export async function createContext(config: Config, options: ContextOptions = {}): Promise<AppContext> {
  const log = options.log ?? createLogger(config);
  const { keys: secretKey, ...secretKeySource } = resolveSecretKey(options.secrets ?? { secretKey: null }, config.dataDir);
  const now = options.now ?? Date.now;
  // The end of a full disk, with how long it lasted and how many writes it refused (its start
  // is the first refused write's own log line).
  const dbStorage =
    config.database.dialect === 'sqlite'
      ? new StorageHealth(now, (outage, at) =>
          log.warn({ failedWrites: outage.failedWrites, outageMs: at - outage.since }, `the database stores changes again, after ${outage.failedWrites} refused writes`),
        )
      : null;
  const handle = createDb(config.database, (error) => log.warn({ err: error }, 'a database connection failed'), config.databaseTimeouts, dbStorage);
  let migrationsApplied: string[] = [];
  if (options.migrate ?? config.migrateOnStart) {
    try {
      migrationsApplied = (await migrateToLatest(handle.db, config.database.dialect === 'postgres' ? config.database.url : undefined)).applied;
    } catch (error) {
      await handle.destroy();
      throw error;
    }
    if (migrationsApplied.length > 0) log.info({ applied: migrationsApplied }, 'database migrated');
  }
  try {
    // The planner's statistics for the tables as they now stand (SQLite; the maintenance beat keeps them current).
    await refreshPlannerStatistics(handle.db, config.database.dialect);
  } catch (error) {
    // Only the plans are at stake: the service starts, and the beat tries again.
    log.warn({ err: error }, 'the database statistics were not refreshed');
  }
  if (dbStorage !== null) await probeStorageAtStart(handle.db, log);
  // After migrating: the read connection prepares statements against the tables.
  const changes =
    config.database.dialect === 'postgres' && config.database.changeNotifications !== false
      ? listenForChanges(config.database.url, {
          connectTimeoutMs: config.databaseTimeouts.connectMs,
          onState: (live, error) =>
            live
              ? log.info('listening for database change notices: month views remember their reads')
              : log.warn({ err: error }, 'lost the database change notices: month views read the database each time until they are back'),
        })
      : null;
  const reads = createFastReads(config.database, handle.db, changes);
  try {
    // A changed secret key is reported here, once, rather than by every request it affects.
    await reportUnreadableGatewaySecrets({ db: handle.db, log, secretKey });
  } catch (error) {
    // A database not migrated yet has nothing stored to check; the service starts as before.
    log.debug({ err: error }, 'stored gateway secrets were not checked');
  }
  const mailer = createMailTransport(config.mail);
  // The one client every vendor API is called through (gateways, SMS, the OAuth providers' APIs).
  const vendorHttp = createVendorHttp({ now });
  // Google's and Microsoft's calendars come with their vendor's other capabilities, and go to the calendar registry.
  const { calendars: connectionCalendars, ...integrations } = createIntegrationRegistry(config.integrations, vendorHttp, now);
  let closed = false;
  return {
    config,
    publicUrl: config.publicUrl,
    webhookSettings: { ...config.webhooks, deliveryRetentionDays: config.retention.webhookDeliveryDays },
    calendarSyncIntervalMs: config.calendarSyncIntervalSeconds * 1000,
    maxApiKeysPerUser: config.maxApiKeysPerUser,
    now,
    log,
    db: handle.db,
    reads,
    dbStorage,
    scheduleCache: createScheduleCache(config.scheduleCacheBytes),
    secretKey,
    gateways: createGatewayRegistry(config.payments, vendorHttp),
    calendars: createCalendarRegistry(connectionCalendars),
    integrations,
    outbound: createOutbound({ allowPrivate: config.allowPrivateUrls }),
    sms: createSmsSender(config.sms, vendorHttp),
    dialect: handle.dialect,
    secretKeySource,
    dbPoolStats: handle.poolStats,
    dbChangeNoticesLive: changes ? () => changes.live() : null,
    mailer,
    // A booking's confirmations: its event is fanned out, then its e-mails go. Webhooks are not
    // paced on: their lateness is the receivers' (one subscriber's slow or failing endpoint
    // filling the webhook slots must not slow every account's bookings by seconds).
    outboxPace: createOutboxPace({ stages: [[EVENT_JOB_KIND], [EMAIL_JOB_KIND]], lagMs: config.outbox.paceLagMs, maxWaitMs: config.outbox.paceMaxWaitMs, now }),
    limiters: { authFailures: createAddressLimiter(config.authFailuresPerMinute), publicBookings: createAddressLimiter(config.publicBookingRatePerMinute) },
    migrationsApplied,
    async close() {
      if (closed) return;
      closed = true;
      mailer.close();
      reads.close();
      await changes?.close();
      await handle.destroy();
    },
  };
}

/**
 * A process started on a full disk has written nothing yet, so no write of its own has been
 * refused yet: without a write now, /readyz would say ready (and a load balancer send it
 * bookings) until the first booking failed. One small write (probeStorage) tells at once; a
 * refusal is recorded by the connection (StorageHealth) and readiness answers 503 until a write
 * finds room, checking again itself while none comes (readiness.ts). SQLite only: PostgreSQL's
 * disk is the server's, shared by every instance, and its refusals are each request's own 503.
 * Anything else that stops the write (another process holding the lock past busy_timeout) is
 * no reason not to start.
 */
async function probeStorageAtStart(db: Db, log: Logger): Promise<void> {
  try {
    await probeStorage(db);
  } catch (error) {
    if (isStorageFull(error)) log.error({ err: error }, 'the database cannot store changes (disk full): not ready until a write finds room');
    else log.warn({ err: error }, 'the start-up write to the database failed');
  }
}
