import type { VendorHttp } from '../net/vendor-http.js';
import { postForm, SmsDeliveryError, type SmsMessage, type SmsProvider } from './sender.js';

/**
 * Twilio's Messages API: `POST {TWILIO_API_URL}/2010-04-01/Accounts/{AccountSid}/Messages.json`
 * with HTTP Basic `AccountSid:AuthToken` and form fields `To`, `Body`, and `From` (a number)
 * or `MessagingServiceSid` (when TWILIO_FROM is an `MG…` service). Success: 201 with the
 * message (`sid` SM…, `status` queued). Failure: `{ code, message, more_info, status }`;
 * 429 (code 20429) when over the account's rate, and 5xx, are worth retrying.
 */
export function createTwilioSender(settings: { accountSid: string; authToken: string; from: string; url: string }, http: VendorHttp): SmsProvider {
  const authorization = `Basic ${Buffer.from(`${settings.accountSid}:${settings.authToken}`).toString('base64')}`;
  const endpoint = `${settings.url}/2010-04-01/Accounts/${encodeURIComponent(settings.accountSid)}/Messages.json`;
  return {
    provider: 'twilio',
    async send(message: SmsMessage) {
      const sender: Record<string, string> = /^MG[0-9a-fA-F]{32}$/.test(settings.from) ? { MessagingServiceSid: settings.from } : { From: settings.from };
      const response = await postForm(http, endpoint, authorization, { To: message.to, Body: message.text, ...sender });
      const body = response.body;
      if (response.ok) {
        if (typeof body?.sid === 'string') return { id: body.sid };
        throw new SmsDeliveryError(`Twilio answered ${response.status} without a message sid`, true);
      }
      const code = typeof body?.code === 'number' ? body.code : response.status;
      const text = typeof body?.message === 'string' ? body.message : `HTTP ${response.status}`;
      throw new SmsDeliveryError(`Twilio refused the message: ${code} ${text}`.slice(0, 500), response.status === 429 || response.status >= 500, response.retryAfterMs);
    },
  };
}
