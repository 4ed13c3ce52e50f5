import type { SecretKeys } from '../secrets/secret-box.js';
import type { Logger } from 'pino';
import type { WebhookSettings } from '../config.js';
import type { CalendarProvider } from '../calendars/provider.js';
import type { Gateway } from '../domain/account.js';
import type { Actor } from '../domain/audit.js';
import type { CalendarType } from '../domain/calendar.js';
import type { Db } from '../db/database.js';
import type { FastReads } from '../db/fast-reads.js';
import type { StorageHealth } from '../db/storage-health.js';
import type { Integrations } from '../integrations/ports.js';
import type { Outbound } from '../net/outbound-request.js';
import type { GatewayAdapter } from '../payments/gateway.js';
import type { SmsSender } from '../sms/sender.js';
import type { ScheduleCache } from './booking/cache.js';
import type { OutboxPace } from '../outbox/pace.js';
import type { MailTransport } from '../mail/transport.js';

/**
 * Every service a use case may use, each built once by `createContext` (src/context.ts) and
 * shared by the server, the background jobs and the operator CLI. A use case takes the part
 * it needs, `Pick<UseCaseContext, 'db' | 'now'>`, so a piece it lacks is a compile error
 * where the context is built, never a cast, a lookup on the side or a silent fallback.
 */
export interface UseCaseContext {
  /** PUBLIC_URL: where links in messages and pages point (`https://book.example.com`, no trailing slash). */
  publicUrl: string;
  /** WEBHOOK_*: how deliveries are paced and retried; and how long one stays in the log (RETENTION_WEBHOOK_DELIVERY_DAYS, which the log's API shows). */
  webhookSettings: WebhookSettings & { deliveryRetentionDays: number };
  /** CALENDAR_SYNC_INTERVAL_SECONDS in ms: how often each connected calendar is read again. */
  calendarSyncIntervalMs: number;
  /** MAX_API_KEYS_PER_USER: active keys a user may hold at once. */
  maxApiKeysPerUser: number;
  /** The clock: tests move it instead of sleeping. */
  now: () => number;
  log: Logger;
  db: Db;
  /** Prepared reads for the hot calculate path (src/db/fast-reads.ts). */
  reads: FastReads;
  /** SQLite: whether writes find room on the disk, for readiness (src/db/storage-health.ts); null on PostgreSQL. */
  dbStorage: StorageHealth | null;
  /** Computed schedules, checked against the host's calendar version on every use. */
  scheduleCache: ScheduleCache;
  /**
   * Seals and opens stored credentials and signs links (src/secrets): the current key, which
   * seals and signs, and the previous ones (TERMIN_SECRET_KEY_PREVIOUS), which still open and verify.
   */
  secretKey: SecretKeys;
  /** One adapter per payment gateway, keeping its OAuth tokens for the process's life. */
  gateways: Record<Gateway, GatewayAdapter>;
  /** One adapter per kind of calendar a host can connect (src/calendars/registry.ts). */
  calendars: Record<CalendarType, CalendarProvider>;
  /** The OAuth providers hosts connect, one adapter map per capability: `oauth`, `rooms` (src/integrations/registry.ts). */
  integrations: Integrations;
  /** Every call to a URL someone else chose (webhook receivers, calendars): guarded against SSRF. */
  outbound: Outbound;
  /** The operator's SMS provider (SMS_PROVIDER, src/sms/registry.ts); null: none configured, so no SMS reminders. */
  sms: SmsSender | null;
  /** Holds new bookings back while the outbox lags (src/outbox/pace.ts). */
  outboxPace: OutboxPace;
  /** SMTP, or `.eml` files in the data directory without SMTP_URL; the outbox worker sends through it. */
  mailer: MailTransport;
}

/** The caller, as established from a valid API key. */
export interface Principal {
  keyUuid: string;
  userUuid: string;
  accountUuid: string;
  username: string;
  /** Who this is for the audit log (the user by an API key, or by the /app session); see actorOf. */
  actor?: Actor | undefined;
}
