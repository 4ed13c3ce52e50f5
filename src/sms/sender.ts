/**
 * The SMS port: one adapter per provider (smsapi.ts, twilio.ts), chosen by SMS_PROVIDER in
 * registry.ts, so a use case says `sms.send(message)` and never names a vendor.
 */
export interface SmsMessage {
  /** E.164, `+48601234567` (the caller normalises it). */
  to: string;
  text: string;
}

export interface SmsSender {
  provider: 'smsapi' | 'twilio';
  /** Hands the message to the provider; resolves with its id for the message. Throws SmsDeliveryError. */
  send(message: SmsMessage): Promise<{ id: string }>;
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
  ) {
    super(message);
    this.name = 'SmsDeliveryError';
  }
}

/** Each call's bound: a provider that does not answer in this long is retried later. */
export const SMS_TIMEOUT_MS = 10_000;

/** Sends one form-encoded POST with the adapter's auth; no answer in time or no connection is a retryable failure. */
export async function postForm(url: string, authorization: string, form: Record<string, string>): Promise<Response> {
  try {
    return await fetch(url, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(form).toString(),
      signal: AbortSignal.timeout(SMS_TIMEOUT_MS),
    });
  } catch (error) {
    const reason = error instanceof Error && error.name === 'TimeoutError' ? `no answer in ${SMS_TIMEOUT_MS / 1000} s` : 'could not connect';
    throw new SmsDeliveryError(`the SMS provider at ${new URL(url).origin} ${reason}`, true);
  }
}

/** The answer's JSON, or null when it is not JSON (a proxy's error page). */
export async function readJson(response: Response): Promise<Record<string, unknown> | null> {
  const text = await response.text();
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
