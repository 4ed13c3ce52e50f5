import { deepFreeze } from './domain/deep-freeze.js';
import { isIP } from 'node:net';
import path from 'node:path';
import { PROJECT_ROOT } from './version.js';

/**
 * The service's whole configuration. `loadConfig` is the only place that reads
 * `process.env`: the rest of the code receives this frozen object, so tests build
 * their own without touching the environment.
 */
export type DatabaseConfig =
  | {
      dialect: 'sqlite';
      filename: string;
      /**
       * SQLite's `synchronous` (default full): `full` syncs the WAL at every commit, so a
       * confirmed booking survives a power cut; `normal` syncs only at checkpoints, faster,
       * and a power cut (not a crash of termin) may lose the last commits. The operator's choice.
       */
      synchronous?: 'full' | 'normal';
      /**
       * How long at most (ms, default 25) the month view's remembered reads may miss a commit
       * made by another process (the operator CLI); this process's own commits show at once.
       * Safe: a booking re-checks its slot under the lock, so a stale view can only offer a
       * slot that is then refused (409), never book it twice. 0: checked on every read.
       */
      otherProcessCheckMs?: number;
    }
  | {
      dialect: 'postgres';
      url: string;
      poolSize: number;
      /**
       * Name each connection's frequent statements so PostgreSQL plans them once (default
       * true). Off for a pooler that cannot keep them: PgBouncer in transaction mode before 1.21.
       */
      preparedStatements?: boolean;
      /**
       * LISTEN for the change notices other instances' commits send (default true), so the
       * month view may remember what it read (see src/db/change-feed.ts). Off for a pooler
       * that cannot LISTEN (PgBouncer in transaction mode): each view then reads the database.
       */
      changeNotifications?: boolean;
    };

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  host: string;
  port: number;
  /** Base URL clients use to reach this service; used in printed examples and links. */
  publicUrl: string;
  dataDir: string;
  database: DatabaseConfig;
  logLevel: LogLevel;
  bodyLimitBytes: number;
  mail: MailConfig;
  /** Create a demo account on the first start of an empty embedded database. */
  seedDemo: boolean;
  /** Run migrations when the server starts (the embedded default always does). */
  migrateOnStart: boolean;
  /**
   * Which `X-Forwarded-For` hops to believe: false (none), a hop count (the N proxies
   * nearest this service), or the proxies' addresses and CIDR ranges. Never "any".
   */
  trustProxy: TrustProxy;
  /** Requests per minute per API key (or per IP without one); 0 turns limiting off. */
  rateLimitPerMinute: number;
  /** CALCULATE_RATE_LIMIT_PER_MINUTE: POST /calculate-schedule's own allowance per key or address; 0: off. Default: RATE_LIMIT_PER_MINUTE. */
  calculateRateLimitPerMinute: number;
  /** REDIS_URL: rate-limit counters shared by every instance through this Redis; null: each instance counts alone. */
  redisUrl: string | null;
  /** REDIS_KEY_PREFIX: prefix of every Redis key (deployments sharing one Redis keep apart). */
  redisKeyPrefix: string;
  /** METRICS_TOKEN: when set, GET /metrics wants `Authorization: Bearer <token>`. Never logged. */
  metricsToken: string | null;
  /** Bytes the per-instance cache of computed schedules may hold (SCHEDULE_CACHE_MB). */
  scheduleCacheBytes: number;
  /** PUBLIC_BOOKING_RATE_PER_MINUTE: bookings through the public booking page per client address per minute; 0: off. */
  publicBookingRatePerMinute: number;
  /** Browser origins allowed to call the API (a booking page on another site); `*` for any, empty for none. */
  corsOrigins: string[] | '*';
  /** Where each payment adapter sends its calls (default: the gateway's sandbox). */
  payments: PaymentGatewayUrls;
  /** Where each OAuth provider's authorization server and API are (a proxy or a test double may stand in). */
  integrations: IntegrationUrls;
  /** Slow-client protection: how long a request may take to arrive, and how many sockets at once. */
  http: HttpLimits;
  /** How long database work may wait before the request gets 503 instead of hanging. */
  databaseTimeouts: DatabaseTimeouts;
  /** Failed authentications per client address per minute before 429 (checked before any key lookup); 0: off. */
  authFailuresPerMinute: number;
  /** Live API keys one user may hold; creating one more is refused. */
  maxApiKeysPerUser: number;
  /** Log lines waiting for a slow stdout reader, in bytes; beyond it lines are dropped, never the service stalled. */
  logBufferBytes: number;
  /**
   * ALLOW_PRIVATE_URLS: outbound URLs (webhook receivers, calendars) may reach loopback,
   * private, link-local and metadata addresses. Off by default: only for a trusted network.
   */
  allowPrivateUrls: boolean;
  /**
   * PROBLEM_TYPES_ABSOLUTE: problem `type`s as `{PUBLIC_URL}/docs/problems#…` (what most problem
   * clients expect) instead of the contract's relative `/docs/problems#…`. Off by default.
   */
  absoluteProblemTypes: boolean;
  webhooks: WebhookSettings;
  /** How long each table that grows with traffic keeps its rows (RETENTION_*; docs/deploying.md lists the rules). */
  retention: RetentionSettings;
  /** CALENDAR_SYNC_INTERVAL_SECONDS: how often each connected calendar's busy time is read again. */
  calendarSyncIntervalSeconds: number;
  /** SMS_PROVIDER and its settings: where SMS reminders go; null: SMS reminders cannot be chosen. */
  sms: SmsSettings | null;
  /** How many background jobs of each kind one instance runs at once. */
  outbox: OutboxSettings;
}

export interface MailConfig {
  smtpUrl: string | null;
  from: string;
  outboxDir: string;
  /**
   * SMTP_MAX_CONNECTIONS: SMTP connections kept open and used side by side. A connection (and
   * its TLS handshake) is reused for many messages: one per message kept confirmations minutes
   * late under a booking peak against a STARTTLS server.
   */
  maxConnections: number;
  /** SMTP_MAX_MESSAGES_PER_CONNECTION: messages sent over one connection before it is replaced (some servers limit it). */
  maxMessagesPerConnection: number;
}

/** Jobs of one kind run side by side up to these; a slow kind never holds up another's slots. */
export interface OutboxSettings {
  /** OUTBOX_EMAIL_CONCURRENCY: e-mails being sent at once (default: as many as SMTP connections). */
  email: number;
  /** OUTBOX_WEBHOOK_CONCURRENCY: webhook attempts in flight at once, over all subscriptions. */
  webhook: number;
  /** OUTBOX_CALENDAR_CONCURRENCY: writes to connected calendars at once. */
  calendar: number;
  /** OUTBOX_CONFERENCE_CONCURRENCY: conference rooms being created or updated at once. */
  conference: number;
  /** OUTBOX_EVENT_CONCURRENCY: recorded events being fanned out into their jobs at once. */
  event: number;
  /**
   * OUTBOX_EVENT_BATCH: events each fan-out slot takes at once, fanned out in order in one
   * transaction (one turn of the commit for all of them instead of one each).
   */
  eventBatch: number;
  /**
   * OUTBOX_PACE_LAG_MS: while the due confirmations (event fan-out, e-mails) are later than
   * this, a new booking waits for the outbox to catch up (src/outbox/pace.ts); 0: never. The
   * backlog's bound, in time: a burst's late e-mails never hold a booking back, a backlog that
   * would grow without end does.
   */
  paceLagMs: number;
  /** OUTBOX_PACE_MAX_WAIT_MS: the longest one booking waits for the outbox. */
  paceMaxWaitMs: number;
  /**
   * OUTBOX_LEASE_MS: a claimed job that is neither done nor failed after this long is taken
   * over by any instance (its worker may have died). Longer than the slowest job's own
   * timeouts (a webhook or a provider's request), so a live worker keeps its jobs.
   */
  leaseMs: number;
}

/**
 * The operator's SMS provider. Its token is a secret: it is read here like every setting and
 * handed only to the adapter (src/sms), which never logs it or puts it in an error.
 */
export type SmsSettings = {
  /** SMS_DEFAULT_COUNTRY: numbers written without a country code are read as this country's (ISO 3166 code, default PL). */
  defaultCountry: string;
  /**
   * SMS_ALLOWED_COUNTRIES: the only destinations reminders are sent to, comma-separated ISO 3166
   * countries (`PL`) and calling codes (`+48`, `+1`); default SMS_DEFAULT_COUNTRY alone. A booking
   * with another number is taken; its SMS reminders are skipped, saying why (SMS pumping costs the business).
   */
  allowedCountries: readonly string[];
  /** SMS_MAX_PER_NUMBER_PER_DAY: at most this many SMS to one number in any 24 hours, across the server's accounts (default 5). */
  maxPerNumberPerDay: number;
} & (
  | {
      provider: 'smsapi';
      /** SMSAPI_TOKEN: an OAuth token from the SMSAPI panel, sent as Bearer. */
      token: string;
      /** SMSAPI_URL: default https://api.smsapi.pl (https://api.smsapi.com for the international platform, or a proxy). */
      url: string;
      /** SMSAPI_FROM: a sender name registered in the SMSAPI panel; unset: the account's default. */
      from: string | null;
    }
  | {
      provider: 'twilio';
      /** TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN: Basic auth of the Messages API. */
      accountSid: string;
      authToken: string;
      /** TWILIO_FROM: the sending number (E.164) or a Messaging Service SID (MG…). */
      from: string;
      /** TWILIO_API_URL: default https://api.twilio.com. */
      url: string;
    }
);

export const SMS_PROVIDERS = ['smsapi', 'twilio'] as const;

/**
 * The maintenance's pruning (src/scheduling/maintenance/prune.ts): what it deletes, by age,
 * in batches of `batch` rows. Each age is counted back from the run's moment.
 */
export interface RetentionSettings {
  /** RETENTION_OUTBOX_DAYS (default 30): outbox jobs done, or failed for good, that long ago. */
  outboxDays: number;
  /** RETENTION_EVENT_DAYS (default 400, at least 30): events (a meeting's history in the web app). */
  eventDays: number;
  /** RETENTION_WEBHOOK_DELIVERY_DAYS (default 30): webhook deliveries no longer pending, with their attempts; the delivery log says it. */
  webhookDeliveryDays: number;
  /** RETENTION_SIGN_IN_DAYS (default 7): sign-in links, web app sessions and OAuth states that expired (or were revoked) that long ago. */
  signInDays: number;
  /** RETENTION_PAST_BUSY_DAYS (default 7): connected calendars' busy time that ended that long ago. */
  pastBusyDays: number;
  /** RETENTION_IDEMPOTENCY_HOURS (default 24, at least 24): stored answers to Idempotency-Key requests. */
  idempotencyHours: number;
  /** RETENTION_AUDIT_DAYS (default 400, at least 400): the account's audit log. */
  auditDays: number;
  /** RETENTION_SMS_NUMBER_LOCK_DAYS (default 2, at least 1): SMS destinations' lock rows not taken for that long (SMS_MAX_PER_NUMBER_PER_DAY counts 24 hours). */
  smsNumberLockDays: number;
  /** RETENTION_BATCH (default 500): rows deleted per statement, each its own short transaction. */
  batch: number;
}

export interface WebhookSettings {
  /** WEBHOOK_RETRY_BASE_SECONDS: the first retry's delay; later ones double, capped at an hour. */
  retryBaseSeconds: number;
  /** WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: attempts to one subscription's URL at once, per instance (one while it is failing). */
  maxInFlightPerEndpoint: number;
}

export type TrustProxy = false | number | string[];

export interface HttpLimits {
  /** All request headers must arrive within this (Node's headersTimeout). */
  headersTimeoutMs: number;
  /** The whole request, body included, must arrive within this (Node's requestTimeout). */
  requestTimeoutMs: number;
  /** An idle keep-alive socket is closed after this. */
  keepAliveTimeoutMs: number;
  /** A socket with no traffic at all for this long is closed (Fastify's connectionTimeout). */
  connectionTimeoutMs: number;
  /** Open sockets at most; further connections are refused until some close (server.maxConnections). */
  maxConnections: number;
}

export interface DatabaseTimeouts {
  /** PostgreSQL: opening a connection, or waiting for a free one in the pool. */
  connectMs: number;
  /** PostgreSQL: one statement (statement_timeout, set per transaction, or a cancel outside one; the client gives up a little later). */
  statementMs: number;
  /** PostgreSQL: a statement's wait for a row or table lock (lock_timeout, per transaction). */
  lockMs: number;
  /** PostgreSQL: a transaction left idle this long is ended by the server (idle_in_transaction_session_timeout). */
  idleInTransactionMs: number;
  /** PostgreSQL: an idle pooled connection is closed after this. */
  idleMs: number;
  /** SQLite: how long to wait for another process's write lock (busy_timeout). */
  busyMs: number;
}

/** One OAuth provider's endpoints; Microsoft's may hold `{tenant}`, filled with the account's tenant. */
export interface ProviderEndpoints {
  authorize: string;
  token: string;
  api: string;
}

export type IntegrationUrls = Record<'zoom' | 'google' | 'microsoft' | 'webex', ProviderEndpoints>;

export const INTEGRATION_DEFAULT_URLS: IntegrationUrls = {
  zoom: { authorize: 'https://zoom.us/oauth/authorize', token: 'https://zoom.us/oauth/token', api: 'https://api.zoom.us' },
  google: { authorize: 'https://accounts.google.com/o/oauth2/v2/auth', token: 'https://oauth2.googleapis.com/token', api: 'https://www.googleapis.com' },
  microsoft: {
    authorize: 'https://login.microsoftonline.com/{tenant}/oauth2/v2.0/authorize',
    token: 'https://login.microsoftonline.com/{tenant}/oauth2/v2.0/token',
    api: 'https://graph.microsoft.com',
  },
  webex: { authorize: 'https://webexapis.com/v1/authorize', token: 'https://webexapis.com/v1/access_token', api: 'https://webexapis.com' },
};

export interface PaymentGatewayUrls {
  stripe: string;
  p24: string;
  payu: string;
  paypal: string;
  tpay: string;
  /**
   * TPAY_JWS_URL: the only origin whose certificates may sign Tpay's notifications (the JWS
   * `x5u`, and the root CA at `/x509/tpay-jws-root.pem` under it). Default: Tpay's production
   * `https://secure.tpay.com` when TPAY_API_URL is Tpay's production API, its sandbox otherwise.
   */
  tpayJws: string;
}

/**
 * Secrets, kept apart from the rest of the configuration (as Bluesky's PDS does) so the
 * config object can be logged or passed around without carrying them.
 */
export interface Secrets {
  /**
   * TERMIN_SECRET_KEY: 32 bytes (64 hex characters or base64) that encrypt stored
   * credentials. Null: a key generated into the data directory on first start is used.
   */
  secretKey: Buffer | null;
  /**
   * TERMIN_SECRET_KEY_PREVIOUS: keys TERMIN_SECRET_KEY replaced (comma-separated, each like
   * it), which still open what they sealed and still verify the links they signed, until
   * `cli secrets reseal` has sealed everything again with the current key. Empty by default.
   */
  previousSecretKeys?: readonly Buffer[];
}

/** Each gateway's sandbox: nothing is charged for real unless the operator points elsewhere. */
export const GATEWAY_SANDBOX_URLS: PaymentGatewayUrls = {
  stripe: 'https://api.stripe.com',
  p24: 'https://sandbox.przelewy24.pl',
  payu: 'https://secure.snd.payu.com',
  paypal: 'https://api-m.sandbox.paypal.com',
  tpay: 'https://openapi.sandbox.tpay.com',
  tpayJws: 'https://secure.sandbox.tpay.com',
};

/** Where Tpay's production notification certificates live (docs-api.tpay.com/webhooks). */
export const TPAY_PRODUCTION_JWS_URL = 'https://secure.tpay.com';

export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * Reads `process.env` (or the given env) once; throws ConfigError with every problem found.
 * Relative paths (`DATA_DIR`, `sqlite:` files) are resolved from `root`, the project folder by
 * default, not from the current directory: a server or CLI started from elsewhere must find
 * the same database, not silently create an empty one with a new demo account.
 */
export function loadConfig(env: Env = process.env, root = PROJECT_ROOT): Config {
  const problems: string[] = [];
  const port = parseInteger(env.PORT, 3000, 'PORT', 0, 65_535, problems);
  const host = nonEmpty(env.HOST) ?? '127.0.0.1';
  const dataDir = path.resolve(root, nonEmpty(env.DATA_DIR) ?? 'data');
  const database = parseDatabase(nonEmpty(env.DATABASE_URL), dataDir, root, env, problems);

  const logLevel = (nonEmpty(env.LOG_LEVEL) ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const smtpUrl = nonEmpty(env.SMTP_URL) ?? null;
  if (smtpUrl !== null && !/^smtps?:\/\//.test(smtpUrl)) problems.push('SMTP_URL must start with smtp:// or smtps://');

  const smtpMaxConnections = parseInteger(env.SMTP_MAX_CONNECTIONS, 10, 'SMTP_MAX_CONNECTIONS', 1, 100, problems);

  const displayHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const publicUrl = (nonEmpty(env.PUBLIC_URL) ?? `http://${displayHost.includes(':') ? `[${displayHost}]` : displayHost}:${port}`).replace(/\/+$/, '');

  const config: Config = {
    host,
    port,
    publicUrl,
    dataDir,
    database,
    logLevel,
    bodyLimitBytes: parseInteger(env.BODY_LIMIT_BYTES, 100 * 1024, 'BODY_LIMIT_BYTES', 1024, 10 * 1024 * 1024, problems),
    mail: {
      smtpUrl,
      from: nonEmpty(env.MAIL_FROM) ?? 'termin <no-reply@localhost>',
      outboxDir: path.join(dataDir, 'outbox'),
      maxConnections: smtpMaxConnections,
      maxMessagesPerConnection: parseInteger(env.SMTP_MAX_MESSAGES_PER_CONNECTION, 100, 'SMTP_MAX_MESSAGES_PER_CONNECTION', 1, 1_000_000, problems),
    },
    seedDemo: parseBoolean(env.TERMIN_DEMO, database.dialect === 'sqlite', 'TERMIN_DEMO', problems),
    migrateOnStart: parseBoolean(env.MIGRATE_ON_START, database.dialect === 'sqlite', 'MIGRATE_ON_START', problems),
    trustProxy: parseTrustProxy(env.TRUST_PROXY, problems),
    rateLimitPerMinute: parseInteger(env.RATE_LIMIT_PER_MINUTE, 1200, 'RATE_LIMIT_PER_MINUTE', 0, 10_000_000, problems),
    calculateRateLimitPerMinute: parseInteger(
      env.CALCULATE_RATE_LIMIT_PER_MINUTE,
      parseInteger(env.RATE_LIMIT_PER_MINUTE, 1200, 'RATE_LIMIT_PER_MINUTE', 0, 10_000_000, []),
      'CALCULATE_RATE_LIMIT_PER_MINUTE',
      0,
      10_000_000,
      problems,
    ),
    redisUrl: parseRedisUrl(env.REDIS_URL, problems),
    redisKeyPrefix: nonEmpty(env.REDIS_KEY_PREFIX) ?? 'termin:',
    metricsToken: nonEmpty(env.METRICS_TOKEN) ?? null,
    scheduleCacheBytes: parseInteger(env.SCHEDULE_CACHE_MB, 64, 'SCHEDULE_CACHE_MB', 1, 65_536, problems) * 1024 * 1024,
    publicBookingRatePerMinute: parseInteger(env.PUBLIC_BOOKING_RATE_PER_MINUTE, 20, 'PUBLIC_BOOKING_RATE_PER_MINUTE', 0, 1_000_000, problems),
    corsOrigins: parseOrigins(env.CORS_ORIGINS, problems),
    payments: {
      stripe: parseBaseUrl(env.STRIPE_API_URL, GATEWAY_SANDBOX_URLS.stripe, 'STRIPE_API_URL', problems),
      p24: parseBaseUrl(env.P24_API_URL, GATEWAY_SANDBOX_URLS.p24, 'P24_API_URL', problems),
      payu: parseBaseUrl(env.PAYU_API_URL, GATEWAY_SANDBOX_URLS.payu, 'PAYU_API_URL', problems),
      paypal: parseBaseUrl(env.PAYPAL_API_URL, GATEWAY_SANDBOX_URLS.paypal, 'PAYPAL_API_URL', problems),
      tpay: parseBaseUrl(env.TPAY_API_URL, GATEWAY_SANDBOX_URLS.tpay, 'TPAY_API_URL', problems),
      tpayJws: parseBaseUrl(env.TPAY_JWS_URL, defaultTpayJwsUrl(env.TPAY_API_URL), 'TPAY_JWS_URL', problems),
    },
    integrations: {
      zoom: parseProviderUrls(env, 'ZOOM', { api: 'ZOOM_API_URL' }, INTEGRATION_DEFAULT_URLS.zoom, problems),
      google: parseProviderUrls(env, 'GOOGLE', { api: 'GOOGLE_API_URL' }, INTEGRATION_DEFAULT_URLS.google, problems),
      microsoft: parseProviderUrls(env, 'MICROSOFT', { api: 'MICROSOFT_GRAPH_URL' }, INTEGRATION_DEFAULT_URLS.microsoft, problems),
      webex: parseProviderUrls(env, 'WEBEX', { api: 'WEBEX_API_URL' }, INTEGRATION_DEFAULT_URLS.webex, problems),
    },
    http: {
      headersTimeoutMs: parseInteger(env.HEADERS_TIMEOUT_MS, 10_000, 'HEADERS_TIMEOUT_MS', 500, 600_000, problems),
      requestTimeoutMs: parseInteger(env.REQUEST_TIMEOUT_MS, 20_000, 'REQUEST_TIMEOUT_MS', 500, 600_000, problems),
      keepAliveTimeoutMs: parseInteger(env.KEEP_ALIVE_TIMEOUT_MS, 72_000, 'KEEP_ALIVE_TIMEOUT_MS', 100, 600_000, problems),
      connectionTimeoutMs: parseInteger(env.CONNECTION_TIMEOUT_MS, 60_000, 'CONNECTION_TIMEOUT_MS', 500, 3_600_000, problems),
      maxConnections: parseInteger(env.MAX_CONNECTIONS, 1024, 'MAX_CONNECTIONS', 1, 1_000_000, problems),
    },
    databaseTimeouts: {
      connectMs: parseInteger(env.DATABASE_CONNECT_TIMEOUT_MS, 5_000, 'DATABASE_CONNECT_TIMEOUT_MS', 100, 600_000, problems),
      statementMs: parseInteger(env.DATABASE_STATEMENT_TIMEOUT_MS, 15_000, 'DATABASE_STATEMENT_TIMEOUT_MS', 100, 3_600_000, problems),
      lockMs: parseInteger(env.DATABASE_LOCK_TIMEOUT_MS, 15_000, 'DATABASE_LOCK_TIMEOUT_MS', 100, 3_600_000, problems),
      idleInTransactionMs: parseInteger(env.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS, 15_000, 'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', 100, 3_600_000, problems),
      idleMs: parseInteger(env.DATABASE_IDLE_TIMEOUT_MS, 30_000, 'DATABASE_IDLE_TIMEOUT_MS', 100, 3_600_000, problems),
      busyMs: parseInteger(env.DATABASE_BUSY_TIMEOUT_MS, 5_000, 'DATABASE_BUSY_TIMEOUT_MS', 0, 600_000, problems),
    },
    authFailuresPerMinute: parseInteger(env.AUTH_FAILURES_PER_MINUTE, 30, 'AUTH_FAILURES_PER_MINUTE', 0, 1_000_000, problems),
    maxApiKeysPerUser: parseInteger(env.MAX_API_KEYS_PER_USER, 50, 'MAX_API_KEYS_PER_USER', 1, 10_000, problems),
    logBufferBytes: parseInteger(env.LOG_BUFFER_BYTES, 4 * 1024 * 1024, 'LOG_BUFFER_BYTES', 16 * 1024, 1024 * 1024 * 1024, problems),
    allowPrivateUrls: parseBoolean(env.ALLOW_PRIVATE_URLS, false, 'ALLOW_PRIVATE_URLS', problems),
    absoluteProblemTypes: parseBoolean(env.PROBLEM_TYPES_ABSOLUTE, false, 'PROBLEM_TYPES_ABSOLUTE', problems),
    webhooks: {
      retryBaseSeconds: parseInteger(env.WEBHOOK_RETRY_BASE_SECONDS, 5, 'WEBHOOK_RETRY_BASE_SECONDS', 1, 3600, problems),
      maxInFlightPerEndpoint: parseInteger(env.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT, 4, 'WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT', 1, 64, problems),
    },
    retention: {
      outboxDays: parseInteger(env.RETENTION_OUTBOX_DAYS, 30, 'RETENTION_OUTBOX_DAYS', 1, 36_500, problems),
      eventDays: parseInteger(env.RETENTION_EVENT_DAYS, 400, 'RETENTION_EVENT_DAYS', 30, 36_500, problems),
      webhookDeliveryDays: parseInteger(env.RETENTION_WEBHOOK_DELIVERY_DAYS, 30, 'RETENTION_WEBHOOK_DELIVERY_DAYS', 1, 36_500, problems),
      signInDays: parseInteger(env.RETENTION_SIGN_IN_DAYS, 7, 'RETENTION_SIGN_IN_DAYS', 0, 36_500, problems),
      pastBusyDays: parseInteger(env.RETENTION_PAST_BUSY_DAYS, 7, 'RETENTION_PAST_BUSY_DAYS', 0, 36_500, problems),
      idempotencyHours: parseInteger(env.RETENTION_IDEMPOTENCY_HOURS, 24, 'RETENTION_IDEMPOTENCY_HOURS', 24, 876_000, problems),
      auditDays: parseInteger(env.RETENTION_AUDIT_DAYS, 400, 'RETENTION_AUDIT_DAYS', 400, 36_500, problems),
      smsNumberLockDays: parseInteger(env.RETENTION_SMS_NUMBER_LOCK_DAYS, 2, 'RETENTION_SMS_NUMBER_LOCK_DAYS', 1, 36_500, problems),
      batch: parseInteger(env.RETENTION_BATCH, 500, 'RETENTION_BATCH', 1, 100_000, problems),
    },
    calendarSyncIntervalSeconds: parseInteger(env.CALENDAR_SYNC_INTERVAL_SECONDS, 300, 'CALENDAR_SYNC_INTERVAL_SECONDS', 30, 86_400, problems),
    sms: parseSms(env, problems),
    outbox: {
      // As many as the SMTP connections: a message beyond them waited in the pool's queue, where
      // the outbox's pace could not see it late (bench/outbox.ts: twice as many messages/s with
      // 10 than with 20, and confirmations within 5 s instead of 10).
      email: parseInteger(env.OUTBOX_EMAIL_CONCURRENCY, smtpMaxConnections, 'OUTBOX_EMAIL_CONCURRENCY', 1, 1_000, problems),
      webhook: parseInteger(env.OUTBOX_WEBHOOK_CONCURRENCY, 16, 'OUTBOX_WEBHOOK_CONCURRENCY', 1, 1_000, problems),
      calendar: parseInteger(env.OUTBOX_CALENDAR_CONCURRENCY, 4, 'OUTBOX_CALENDAR_CONCURRENCY', 1, 1_000, problems),
      conference: parseInteger(env.OUTBOX_CONFERENCE_CONCURRENCY, 4, 'OUTBOX_CONFERENCE_CONCURRENCY', 1, 1_000, problems),
      // One at a time by default: events fan out in the order they happened, so each webhook
      // subscription's deliveries (and its delivery log) follow the account's history. Under a
      // booking peak the fan-out is the outbox's bottleneck (each event waits for a turn of the
      // shared commit); an operator who prefers throughput to that order raises it.
      event: parseInteger(env.OUTBOX_EVENT_CONCURRENCY, 1, 'OUTBOX_EVENT_CONCURRENCY', 1, 100, problems),
      // A batch of 32 fans out in about the time a batch of bookings commits in; far more would
      // hold the event loop (and requests) that much longer.
      eventBatch: parseInteger(env.OUTBOX_EVENT_BATCH, 32, 'OUTBOX_EVENT_BATCH', 1, 1_000, problems),
      // Participants first (issue 44, bench/pace.ts): paced at 300 ms, a 1,000-booking burst's p99
      // was seconds and the burst took 5× as long, to have its e-mails a few seconds sooner. A
      // booking waits only once the confirmations are half a minute behind: a backlog that an
      // overload without end would grow (rows, memory, a restart's catch-up), not a burst's.
      paceLagMs: parseInteger(env.OUTBOX_PACE_LAG_MS, 30_000, 'OUTBOX_PACE_LAG_MS', 0, 3_600_000, problems),
      paceMaxWaitMs: parseInteger(env.OUTBOX_PACE_MAX_WAIT_MS, 5_000, 'OUTBOX_PACE_MAX_WAIT_MS', 0, 60_000, problems),
      leaseMs: parseInteger(env.OUTBOX_LEASE_MS, 60_000, 'OUTBOX_LEASE_MS', 10_000, 3_600_000, problems),
    },
  };
  if (config.http.headersTimeoutMs > config.http.requestTimeoutMs) problems.push('HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS');
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n- ${problems.join('\n- ')}`);
  return deepFreeze(config);
}

/** Reads the secrets (TERMIN_SECRET_KEY, TERMIN_SECRET_KEY_PREVIOUS); throws ConfigError naming every malformed one. */
export function loadSecrets(env: Env = process.env): Secrets {
  const problems: string[] = [];
  const raw = nonEmpty(env.TERMIN_SECRET_KEY);
  const secretKey = raw === undefined ? null : parseSecretKey(raw, 'TERMIN_SECRET_KEY', problems);
  const previousSecretKeys = (nonEmpty(env.TERMIN_SECRET_KEY_PREVIOUS) ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part, index) => parseSecretKey(part, `TERMIN_SECRET_KEY_PREVIOUS (key ${index + 1})`, problems));
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n- ${problems.join('\n- ')}`);
  return Object.freeze({ secretKey, previousSecretKeys: Object.freeze(previousSecretKeys.filter((key): key is Buffer => key !== null)) });
}

function parseSecretKey(raw: string, name: string, problems: string[]): Buffer | null {
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length === 32) return key;
  problems.push(`${name} must be 32 bytes: 64 hex characters or base64 (e.g. \`openssl rand -hex 32\`)`);
  return null;
}

/** SMS_PROVIDER=smsapi|twilio and the provider's own settings; every missing one reported at once. */
function parseSms(env: Env, problems: string[]): SmsSettings | null {
  const provider = nonEmpty(env.SMS_PROVIDER)?.toLowerCase();
  if (provider === undefined) return null;
  const defaultCountry = (nonEmpty(env.SMS_DEFAULT_COUNTRY) ?? 'PL').toUpperCase();
  if (!/^[A-Z]{2}$/.test(defaultCountry)) problems.push(`SMS_DEFAULT_COUNTRY must be a two-letter country code such as PL, got "${env.SMS_DEFAULT_COUNTRY}"`);
  const common = {
    defaultCountry,
    allowedCountries: parseSmsCountries(env.SMS_ALLOWED_COUNTRIES, defaultCountry, problems),
    maxPerNumberPerDay: parseInteger(env.SMS_MAX_PER_NUMBER_PER_DAY, 5, 'SMS_MAX_PER_NUMBER_PER_DAY', 1, 10_000, problems),
  };
  const required = (name: string) => {
    const value = nonEmpty(env[name]);
    if (value === undefined) problems.push(`${name} is required with SMS_PROVIDER=${provider}`);
    return value ?? '';
  };
  if (provider === 'smsapi') {
    return {
      provider,
      ...common,
      token: required('SMSAPI_TOKEN'),
      url: parseBaseUrl(env.SMSAPI_URL, 'https://api.smsapi.pl', 'SMSAPI_URL', problems),
      from: nonEmpty(env.SMSAPI_FROM) ?? null,
    };
  }
  if (provider === 'twilio') {
    const accountSid = required('TWILIO_ACCOUNT_SID');
    if (accountSid !== '' && !/^AC[0-9a-fA-F]{32}$/.test(accountSid)) problems.push('TWILIO_ACCOUNT_SID must look like AC followed by 32 hex digits');
    return {
      provider,
      ...common,
      accountSid,
      authToken: required('TWILIO_AUTH_TOKEN'),
      from: required('TWILIO_FROM'),
      url: parseBaseUrl(env.TWILIO_API_URL, 'https://api.twilio.com', 'TWILIO_API_URL', problems),
    };
  }
  problems.push(`SMS_PROVIDER must be one of ${SMS_PROVIDERS.join(', ')}, got "${env.SMS_PROVIDER}"`);
  return null;
}

/** SMS_ALLOWED_COUNTRIES: `PL, DE, +1` → ['PL', 'DE', '+1'] (a bare `48` is a calling code too); unset: the default country alone. */
function parseSmsCountries(raw: string | undefined, defaultCountry: string, problems: string[]): string[] {
  const value = nonEmpty(raw);
  if (value === undefined) return [defaultCountry];
  const entries: string[] = [];
  for (const entry of value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')) {
    if (/^[A-Za-z]{2}$/.test(entry)) entries.push(entry.toUpperCase());
    else if (/^\+?[1-9][0-9]{0,2}$/.test(entry)) entries.push(`+${entry.replace(/^\+/, '')}`);
    else problems.push(`SMS_ALLOWED_COUNTRIES must list two-letter countries (PL) or calling codes (+48), got "${entry}"`);
  }
  if (entries.length === 0) problems.push('SMS_ALLOWED_COUNTRIES must name at least one country or calling code');
  return entries;
}

function parseRedisUrl(raw: string | undefined, problems: string[]): string | null {
  const value = nonEmpty(raw);
  if (value === undefined) return null;
  if (!/^rediss?:\/\/[^\s]+$/.test(value)) problems.push('REDIS_URL must look like redis://host:6379 (or rediss:// for TLS)');
  return value;
}

/**
 * Tpay signs production and sandbox notifications with certificates under different origins;
 * the default follows TPAY_API_URL: `https://api.tpay.com` → `https://secure.tpay.com`,
 * anything else (the sandbox, a proxy) → `https://secure.sandbox.tpay.com`.
 */
function defaultTpayJwsUrl(apiUrl: string | undefined): string {
  let host = '';
  try {
    host = new URL(nonEmpty(apiUrl) ?? GATEWAY_SANDBOX_URLS.tpay).hostname;
  } catch {
    // TPAY_API_URL's own check reports it.
  }
  const production = host === 'tpay.com' || (host.endsWith('.tpay.com') && !host.endsWith('.sandbox.tpay.com'));
  return production ? TPAY_PRODUCTION_JWS_URL : GATEWAY_SANDBOX_URLS.tpayJws;
}

/** `{PREFIX}_AUTHORIZE_URL`, `{PREFIX}_TOKEN_URL` and the API's variable, each defaulting to the provider's own. */
function parseProviderUrls(env: Env, prefix: string, names: { api: string }, defaults: ProviderEndpoints, problems: string[]): ProviderEndpoints {
  return {
    authorize: parseBaseUrl(env[`${prefix}_AUTHORIZE_URL`], defaults.authorize, `${prefix}_AUTHORIZE_URL`, problems),
    token: parseBaseUrl(env[`${prefix}_TOKEN_URL`], defaults.token, `${prefix}_TOKEN_URL`, problems),
    api: parseBaseUrl(env[names.api], defaults.api, names.api, problems),
  };
}

function parseBaseUrl(raw: string | undefined, fallback: string, name: string, problems: string[]): string {
  const value = nonEmpty(raw);
  if (value === undefined) return fallback;
  if (!/^https?:\/\/[^\s]+$/.test(value)) problems.push(`${name} must be an http(s) URL, got "${value}"`);
  return value.replace(/\/+$/, '');
}

function parseDatabase(url: string | undefined, dataDir: string, root: string, env: Env, problems: string[]): DatabaseConfig {
  const synchronous = parseSqliteSynchronous(env.SQLITE_SYNCHRONOUS, problems);
  const otherProcessCheckMs = parseInteger(env.SQLITE_OTHER_PROCESS_CHECK_MS, 25, 'SQLITE_OTHER_PROCESS_CHECK_MS', 0, 1_000, problems);
  if (url === undefined) return { dialect: 'sqlite', filename: path.join(dataDir, 'termin.db'), synchronous, otherProcessCheckMs };
  if (/^postgres(ql)?:\/\//.test(url)) {
    return {
      dialect: 'postgres',
      url,
      poolSize: parseInteger(env.DATABASE_POOL_SIZE, 10, 'DATABASE_POOL_SIZE', 1, 500, problems),
      preparedStatements: parseBoolean(env.DATABASE_PREPARED_STATEMENTS, true, 'DATABASE_PREPARED_STATEMENTS', problems),
      changeNotifications: parseBoolean(env.DATABASE_CHANGE_NOTIFICATIONS, true, 'DATABASE_CHANGE_NOTIFICATIONS', problems),
    };
  }
  if (url.startsWith('sqlite:') || url.startsWith('file:')) {
    const filename = url.replace(/^(sqlite|file):(\/\/)?/, '');
    if (filename === '') problems.push('DATABASE_URL sqlite: needs a file name, e.g. sqlite:./data/termin.db');
    return { dialect: 'sqlite', filename: filename === ':memory:' ? filename : path.resolve(root, filename), synchronous, otherProcessCheckMs };
  }
  problems.push('DATABASE_URL must be postgres://… or sqlite:<file> (unset: an SQLite file under ./data/)');
  return { dialect: 'sqlite', filename: path.join(dataDir, 'termin.db'), synchronous, otherProcessCheckMs };
}

/**
 * `TRUST_PROXY`: `false` (default), a hop count (`1`: one proxy in front), or the proxies'
 * addresses and ranges (`10.0.0.0/8,127.0.0.1`; also `loopback`, `linklocal`, `uniquelocal`).
 * `true` is refused: it believes any client-supplied `X-Forwarded-For`, so rotating its first
 * entry would evade every per-address limit.
 */
function parseTrustProxy(raw: string | undefined, problems: string[]): TrustProxy {
  const value = nonEmpty(raw)?.toLowerCase();
  if (value === undefined || ['false', 'no', 'off', '0'].includes(value)) return false;
  if (['true', 'yes', 'on'].includes(value)) {
    problems.push(
      'TRUST_PROXY=true would believe any X-Forwarded-For a client sends (and so let it pick its own rate-limit address); ' +
        'write the number of proxies in front of the service (TRUST_PROXY=1) or their addresses (TRUST_PROXY=10.0.0.0/8,127.0.0.1)',
    );
    return false;
  }
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > 32) problems.push(`TRUST_PROXY hop count must be from 1 to 32, got "${value}"`);
    return hops;
  }
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    if (!isProxyAddress(entry)) problems.push(`TRUST_PROXY entries must be IP addresses or CIDR ranges (10.0.0.0/8), got "${entry}"`);
  }
  return entries;
}

function isProxyAddress(entry: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d+$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
}

function parseOrigins(raw: string | undefined, problems: string[]): string[] | '*' {
  if (raw === undefined) return '*';
  const value = raw.trim();
  if (value === '*') return '*';
  const origins = value
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  for (const origin of origins) {
    if (!/^https?:\/\/[^/\s]+$/.test(origin)) problems.push(`CORS_ORIGINS entries must look like https://booking.example.com, got "${origin}"`);
  }
  return origins;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

function parseInteger(raw: string | undefined, fallback: number, name: string, min: number, max: number, problems: string[]): number {
  const value = nonEmpty(raw);
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    problems.push(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
    return fallback;
  }
  return parsed;
}

function parseSqliteSynchronous(raw: string | undefined, problems: string[]): 'full' | 'normal' {
  const value = nonEmpty(raw)?.toLowerCase();
  if (value === undefined || value === 'full' || value === 'normal') return value ?? 'full';
  problems.push(`SQLITE_SYNCHRONOUS must be full or normal, got "${raw}"`);
  return 'full';
}

function parseBoolean(raw: string | undefined, fallback: boolean, name: string, problems: string[]): boolean {
  const value = nonEmpty(raw)?.toLowerCase();
  if (value === undefined) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['0', 'false', 'no', 'off'].includes(value)) return false;
  problems.push(`${name} must be true or false, got "${raw}"`);
  return fallback;
}
