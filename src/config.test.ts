import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('defaults to SQLite under ./data, port 3000 on 127.0.0.1, demo seeding on', () => {
    const config = loadConfig({}, '/srv/termin');
    expect(config.database).toEqual({ dialect: 'sqlite', filename: path.join('/srv/termin', 'data', 'termin.db'), synchronous: 'full', otherProcessCheckMs: 25 });
    expect(config).toMatchObject({ port: 3000, host: '127.0.0.1', publicUrl: 'http://127.0.0.1:3000', seedDemo: true, migrateOnStart: true });
    expect(config.mail).toEqual({
      smtpUrl: null,
      from: 'termin <no-reply@localhost>',
      outboxDir: path.join('/srv/termin', 'data', 'outbox'),
      maxConnections: 10,
      maxMessagesPerConnection: 100,
    });
    expect(config.outbox).toEqual({ email: 10, webhook: 16, calendar: 4, conference: 4, event: 1, eventBatch: 32, paceLagMs: 30_000, paceMaxWaitMs: 5_000, leaseMs: 60_000 });
    expect(Object.isFrozen(config.database)).toBe(true);
  });

  it('uses PostgreSQL for postgres:// URLs, without demo data or automatic migration', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://app@db:5432/termin', DATABASE_POOL_SIZE: '25' });
    expect(config.database).toEqual({ dialect: 'postgres', url: 'postgres://app@db:5432/termin', poolSize: 25, preparedStatements: true, changeNotifications: true });
    expect(config.seedDemo).toBe(false);
    expect(config.migrateOnStart).toBe(false);
    // Behind a pooler that cannot LISTEN.
    expect(loadConfig({ DATABASE_URL: 'postgres://app@db:5432/termin', DATABASE_CHANGE_NOTIFICATIONS: 'false' }).database).toMatchObject({ changeNotifications: false });
  });

  it('lets the environment turn the demo off and set the listener', () => {
    const config = loadConfig({ TERMIN_DEMO: 'false', PORT: '8080', HOST: '0.0.0.0', SMTP_URL: 'smtp://mail:25', MAIL_FROM: 'Acme <a@acme.test>' });
    expect(config).toMatchObject({ seedDemo: false, port: 8080, host: '0.0.0.0', publicUrl: 'http://127.0.0.1:8080' });
    expect(config.mail.smtpUrl).toBe('smtp://mail:25');
  });

  it('sizes the SMTP pool and the outbox concurrency from the environment, e-mail following the pool unless set', () => {
    const pooled = loadConfig({ SMTP_MAX_CONNECTIONS: '8', SMTP_MAX_MESSAGES_PER_CONNECTION: '50', OUTBOX_WEBHOOK_CONCURRENCY: '32' });
    expect(pooled.mail).toMatchObject({ maxConnections: 8, maxMessagesPerConnection: 50 });
    expect(pooled.outbox).toMatchObject({ email: 8, webhook: 32 });
    expect(loadConfig({ SMTP_MAX_CONNECTIONS: '8', OUTBOX_EMAIL_CONCURRENCY: '3' }).outbox.email).toBe(3);
    expect(() => loadConfig({ SMTP_MAX_CONNECTIONS: '0', OUTBOX_EVENT_CONCURRENCY: 'many' })).toThrow(/SMTP_MAX_CONNECTIONS[\s\S]*OUTBOX_EVENT_CONCURRENCY/);
  });

  it("trusts Tpay's notification certificates from the origin matching TPAY_API_URL, unless TPAY_JWS_URL says otherwise", () => {
    expect(loadConfig({}).payments.tpayJws).toBe('https://secure.sandbox.tpay.com');
    expect(loadConfig({ TPAY_API_URL: 'https://api.tpay.com' }).payments.tpayJws).toBe('https://secure.tpay.com');
    expect(loadConfig({ TPAY_API_URL: 'https://openapi.sandbox.tpay.com' }).payments.tpayJws).toBe('https://secure.sandbox.tpay.com');
    expect(loadConfig({ TPAY_API_URL: 'https://api.tpay.com', TPAY_JWS_URL: 'http://127.0.0.1:4010/' }).payments.tpayJws).toBe('http://127.0.0.1:4010');
    expect(() => loadConfig({ TPAY_JWS_URL: 'secure.tpay.com' })).toThrowError(/TPAY_JWS_URL/);
  });

  it('reads the SMS provider and its settings, each missing one reported at once, and none without SMS_PROVIDER', () => {
    expect(loadConfig({}).sms).toBeNull();
    expect(loadConfig({ SMS_PROVIDER: 'smsapi', SMSAPI_TOKEN: 'token' }).sms).toEqual({
      provider: 'smsapi',
      defaultCountry: 'PL',
      allowedCountries: ['PL'],
      maxPerNumberPerDay: 5,
      token: 'token',
      url: 'https://api.smsapi.pl',
      from: null,
    });
    const sid = `AC${'a'.repeat(32)}`;
    expect(loadConfig({ SMS_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: sid, TWILIO_AUTH_TOKEN: 't', TWILIO_FROM: '+48221234567', SMS_DEFAULT_COUNTRY: 'de' }).sms).toEqual({
      provider: 'twilio',
      defaultCountry: 'DE',
      allowedCountries: ['DE'],
      maxPerNumberPerDay: 5,
      accountSid: sid,
      authToken: 't',
      from: '+48221234567',
      url: 'https://api.twilio.com',
    });
    expect(() => loadConfig({ SMS_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: 'x' })).toThrowError(
      /TWILIO_ACCOUNT_SID must look like[\s\S]*TWILIO_AUTH_TOKEN is required[\s\S]*TWILIO_FROM is required/,
    );
    expect(() => loadConfig({ SMS_PROVIDER: 'smsapi' })).toThrowError(/SMSAPI_TOKEN is required with SMS_PROVIDER=smsapi/);
    expect(() => loadConfig({ SMS_PROVIDER: 'pigeon' })).toThrowError(/SMS_PROVIDER must be one of smsapi, twilio/);
    expect(() => loadConfig({ SMS_PROVIDER: 'smsapi', SMSAPI_TOKEN: 't', SMSAPI_URL: 'api.smsapi.pl' })).toThrowError(/SMSAPI_URL must be an http\(s\) URL/);
    expect(Object.isFrozen(loadConfig({ SMS_PROVIDER: 'smsapi', SMSAPI_TOKEN: 'token' }).sms)).toBe(true);
  });

  it('reads the SMS destinations allowed (countries and calling codes) and the daily limit per number', () => {
    const smsapi = { SMS_PROVIDER: 'smsapi', SMSAPI_TOKEN: 'token' };
    expect(loadConfig({ ...smsapi, SMS_ALLOWED_COUNTRIES: ' pl, DE ,+1, 420', SMS_MAX_PER_NUMBER_PER_DAY: '2' }).sms).toMatchObject({
      allowedCountries: ['PL', 'DE', '+1', '+420'],
      maxPerNumberPerDay: 2,
    });
    expect(() => loadConfig({ ...smsapi, SMS_ALLOWED_COUNTRIES: 'Poland, +0', SMS_MAX_PER_NUMBER_PER_DAY: '0' })).toThrowError(
      /SMS_ALLOWED_COUNTRIES must list [\s\S]*got "Poland"[\s\S]*got "\+0"[\s\S]*SMS_MAX_PER_NUMBER_PER_DAY must be an integer from 1/,
    );
    expect(() => loadConfig({ ...smsapi, SMS_ALLOWED_COUNTRIES: ' , ' })).toThrowError(/SMS_ALLOWED_COUNTRIES must name at least one/);
  });

  it('reports every invalid setting at once', () => {
    expect(() => loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud', SMTP_URL: 'mail.example.com' })).toThrowError(ConfigError);
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud', SMTP_URL: 'mail.example.com' });
    } catch (error) {
      const message = (error as Error).message;
      for (const name of ['PORT', 'DATABASE_URL', 'LOG_LEVEL', 'SMTP_URL']) expect(message).toContain(name);
    }
  });
});
