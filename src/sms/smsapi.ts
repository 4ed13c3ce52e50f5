import type { VendorHttp } from '../net/vendor-http.js';
import { postForm, SmsDeliveryError, type SmsMessage, type SmsProvider } from './sender.js';

/**
 * SMSAPI (smsapi.pl, popular with Polish businesses): `POST {SMSAPI_URL}/sms.do` with
 * `Authorization: Bearer <token>` and form fields `to` (digits, country code first),
 * `message`, `from` (a registered sender name; omitted: the account's default),
 * `format=json`, `encoding=utf-8`. Success: `{ "count": 1, "list": [{ "id", "points",
 * "number", "status": "QUEUE", … }] }`. Failure: `{ "error": <code>, "message": "…" }`, with
 * HTTP 200 on the legacy platform or a 4xx on the current one, so both are read.
 */
export function createSmsapiSender(settings: { token: string; url: string; from: string | null }, http: VendorHttp): SmsProvider {
  return {
    provider: 'smsapi',
    async send(message: SmsMessage) {
      const form: Record<string, string> = { to: message.to.replace(/^\+/, ''), message: message.text, format: 'json', encoding: 'utf-8' };
      if (settings.from !== null) form.from = settings.from;
      const response = await postForm(http, `${settings.url}/sms.do`, `Bearer ${settings.token}`, form);
      const body = response.body;
      const code = typeof body?.error === 'number' ? body.error : null;
      if (response.ok && code === null) {
        const first = Array.isArray(body?.list) ? (body.list[0] as { id?: unknown } | undefined) : undefined;
        if (typeof first?.id === 'string') return { id: first.id };
        throw new SmsDeliveryError(`SMSAPI answered ${response.status} without a message id`, true);
      }
      const text = typeof body?.message === 'string' ? body.message : `HTTP ${response.status}`;
      throw new SmsDeliveryError(`SMSAPI refused the message: ${code ?? response.status} ${text}`.slice(0, 500), isRetryable(response.status, code), response.retryAfterMs);
    },
  };
}

/**
 * SMSAPI's codes worth another attempt: its own failures (201 system error, 202/203 too many
 * requests at once, 999 internal), a 429 or a 5xx. Not: 101-103 (authorization, points),
 * 11-14 (message, number, sender), which fail the same way again.
 */
function isRetryable(status: number, code: number | null): boolean {
  if (code !== null && [201, 202, 203, 999].includes(code)) return true;
  return status === 429 || status >= 500;
}
