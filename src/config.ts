import path from 'node:path';

/**
 * The service's whole configuration. `loadConfig` is the only place that reads
 * `process.env`: the rest of the code receives this frozen object, so tests build
 * their own without touching the environment.
 */
export type DatabaseConfig =
  | { dialect: 'sqlite'; filename: string }
  | { dialect: 'postgres'; url: string; poolSize: number };

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
  mail: { smtpUrl: string | null; from: string; outboxDir: string };
  /** Create a demo account on the first start of an empty embedded database. */
  seedDemo: boolean;
  /** Run migrations when the server starts (the embedded default always does). */
  migrateOnStart: boolean;
  trustProxy: boolean;
  /** Requests per minute per API key (or per IP without one); 0 turns limiting off. */
  rateLimitPerMinute: number;
  /** Browser origins allowed to call the API (a booking page on another site); `*` for any, empty for none. */
  corsOrigins: string[] | '*';
  /** Where each payment adapter sends its calls (default: the gateway's sandbox). */
  payments: PaymentGatewayUrls;
}

export interface PaymentGatewayUrls {
  stripe: string;
  p24: string;
  payu: string;
  paypal: string;
  tpay: string;
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
}

/** Each gateway's sandbox: nothing is charged for real unless the operator points elsewhere. */
export const GATEWAY_SANDBOX_URLS: PaymentGatewayUrls = {
  stripe: 'https://api.stripe.com',
  p24: 'https://sandbox.przelewy24.pl',
  payu: 'https://secure.snd.payu.com',
  paypal: 'https://api-m.sandbox.paypal.com',
  tpay: 'https://openapi.sandbox.tpay.com',
};

export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Reads `process.env` (or the given env) once; throws ConfigError with every problem found. */
export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const problems: string[] = [];
  const port = parseInteger(env.PORT, 3000, 'PORT', 0, 65_535, problems);
  const host = nonEmpty(env.HOST) ?? '127.0.0.1';
  const dataDir = path.resolve(cwd, nonEmpty(env.DATA_DIR) ?? 'data');
  const database = parseDatabase(nonEmpty(env.DATABASE_URL), dataDir, env, problems);

  const logLevel = (nonEmpty(env.LOG_LEVEL) ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const smtpUrl = nonEmpty(env.SMTP_URL) ?? null;
  if (smtpUrl !== null && !/^smtps?:\/\//.test(smtpUrl)) problems.push('SMTP_URL must start with smtp:// or smtps://');

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
    },
    seedDemo: parseBoolean(env.TERMIN_DEMO, database.dialect === 'sqlite', 'TERMIN_DEMO', problems),
    migrateOnStart: parseBoolean(env.MIGRATE_ON_START, database.dialect === 'sqlite', 'MIGRATE_ON_START', problems),
    trustProxy: parseBoolean(env.TRUST_PROXY, false, 'TRUST_PROXY', problems),
    rateLimitPerMinute: parseInteger(env.RATE_LIMIT_PER_MINUTE, 1200, 'RATE_LIMIT_PER_MINUTE', 0, 10_000_000, problems),
    corsOrigins: parseOrigins(env.CORS_ORIGINS, problems),
    payments: {
      stripe: parseBaseUrl(env.STRIPE_API_URL, GATEWAY_SANDBOX_URLS.stripe, 'STRIPE_API_URL', problems),
      p24: parseBaseUrl(env.P24_API_URL, GATEWAY_SANDBOX_URLS.p24, 'P24_API_URL', problems),
      payu: parseBaseUrl(env.PAYU_API_URL, GATEWAY_SANDBOX_URLS.payu, 'PAYU_API_URL', problems),
      paypal: parseBaseUrl(env.PAYPAL_API_URL, GATEWAY_SANDBOX_URLS.paypal, 'PAYPAL_API_URL', problems),
      tpay: parseBaseUrl(env.TPAY_API_URL, GATEWAY_SANDBOX_URLS.tpay, 'TPAY_API_URL', problems),
    },
  };
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n- ${problems.join('\n- ')}`);
  return deepFreeze(config);
}

/** Reads the secrets (only TERMIN_SECRET_KEY today); throws ConfigError when one is malformed. */
export function loadSecrets(env: Env = process.env): Secrets {
  const raw = nonEmpty(env.TERMIN_SECRET_KEY);
  if (raw === undefined) return Object.freeze({ secretKey: null });
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) {
    throw new ConfigError('Invalid configuration:\n- TERMIN_SECRET_KEY must be 32 bytes: 64 hex characters or base64 (e.g. `openssl rand -hex 32`)');
  }
  return Object.freeze({ secretKey: key });
}

function parseBaseUrl(raw: string | undefined, fallback: string, name: string, problems: string[]): string {
  const value = nonEmpty(raw);
  if (value === undefined) return fallback;
  if (!/^https?:\/\/[^\s]+$/.test(value)) problems.push(`${name} must be an http(s) URL, got "${value}"`);
  return value.replace(/\/+$/, '');
}

function parseDatabase(url: string | undefined, dataDir: string, env: Env, problems: string[]): DatabaseConfig {
  if (url === undefined) return { dialect: 'sqlite', filename: path.join(dataDir, 'termin.db') };
  if (/^postgres(ql)?:\/\//.test(url)) {
    return { dialect: 'postgres', url, poolSize: parseInteger(env.DATABASE_POOL_SIZE, 10, 'DATABASE_POOL_SIZE', 1, 500, problems) };
  }
  if (url.startsWith('sqlite:') || url.startsWith('file:')) {
    const filename = url.replace(/^(sqlite|file):(\/\/)?/, '');
    if (filename === '') problems.push('DATABASE_URL sqlite: needs a file name, e.g. sqlite:./data/termin.db');
    return { dialect: 'sqlite', filename: filename === ':memory:' ? filename : path.resolve(filename) };
  }
  problems.push('DATABASE_URL must be postgres://… or sqlite:<file> (unset: an SQLite file under ./data/)');
  return { dialect: 'sqlite', filename: path.join(dataDir, 'termin.db') };
}

function parseOrigins(raw: string | undefined, problems: string[]): string[] | '*' {
  if (raw === undefined) return '*';
  const value = raw.trim();
  if (value === '*') return '*';
  const origins = value.split(',').map((origin) => origin.trim()).filter((origin) => origin !== '');
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

function parseBoolean(raw: string | undefined, fallback: boolean, name: string, problems: string[]): boolean {
  const value = nonEmpty(raw)?.toLowerCase();
  if (value === undefined) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['0', 'false', 'no', 'off'].includes(value)) return false;
  problems.push(`${name} must be true or false, got "${raw}"`);
  return fallback;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
