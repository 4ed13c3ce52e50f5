import { parseJson, type VendorAnswer, VendorCallError, type VendorHttp } from '../net/vendor-http.js';

/**
 * The SMS port: one adapter per provider (smsapi.ts, twilio.ts), chosen by SMS_PROVIDER in
 * registry.ts, so a use case says `sms.send(message)` and never names a vendor.
 */
export interface SmsMessage {
  /** E.164, `+48601234567` (the caller normalises it). */
  to: string;
  text: string;
}

/** What each provider's adapter implements. */
export interface SmsProvider {
  provider: 'smsapi' | 'twilio';
  /** Hands the message to the provider; resolves with its id for the message. Throws SmsDeliveryError. */
  send(message: SmsMessage): Promise<{ id: string }>;
}

/** The operator's provider as use cases get it: with the country phone numbers are read in. */
export interface SmsSender extends SmsProvider {
  /** SMS_DEFAULT_COUNTRY: the country a number written without its country code is read in (`601 333 444` → +48…). */
  defaultCountry: string;
  /** SMS_ALLOWED_COUNTRIES: ISO countries (`PL`) and calling codes (`+48`) an SMS may go to (smsDestinationRefusal). */
  allowedCountries: readonly string[];
  /** SMS_MAX_PER_NUMBER_PER_DAY: SMS to one number in any 24 hours. */
  maxPerNumberPerDay: number;
}

/**
 * The provider did not take the message. `retryable`: worth another attempt later (rate
 * limit, the provider's own failure, no answer); otherwise the same request will be refused
 * again (a number it rejects, credentials it refuses). The message never carries the token.
 */
export class SmsDeliveryError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    /** The provider's `Retry-After` with a refusal, in ms from then (null: it named no wait). */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = 'SmsDeliveryError';
  }
}

/** Each call's bound: a provider that does not answer in this long is retried later. */
export const SMS_TIMEOUT_MS = 10_000;

/** A provider's answer: its status, its JSON (null when it is not JSON: a proxy's error page) and its `Retry-After`. */
export interface SmsAnswer {
  status: number;
  ok: boolean;
  body: Record<string, unknown> | null;
  retryAfterMs: number | null;
}

/**
 * Sends one form-encoded POST with the adapter's auth through the service's vendor client
 * (src/net/vendor-http.ts: deadline, bounded read, no redirects); no answer in time, no
 * connection or an answer cut off is a retryable failure.
 */
export async function postForm(http: VendorHttp, url: string, authorization: string, form: Record<string, string>): Promise<SmsAnswer> {
  let answer: VendorAnswer;
  try {
    answer = await http.call({ method: 'POST', url, headers: { authorization }, form, timeoutMs: SMS_TIMEOUT_MS });
  } catch (error) {
    if (!(error instanceof VendorCallError)) throw error;
    const reason = error.kind === 'timeout' ? `no answer in ${SMS_TIMEOUT_MS / 1000} s` : error.kind === 'unreachable' ? 'could not connect' : error.message;
    throw new SmsDeliveryError(`the SMS provider at ${new URL(url).origin} ${reason}`, error.retryable);
  }
  const body = parseJson(answer.text);
  return {
    status: answer.status,
    ok: answer.status >= 200 && answer.status < 300,
    body: typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : null,
    retryAfterMs: answer.retryAfterMs,
  };
}
