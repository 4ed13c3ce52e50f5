import { startSmsServer, type SmsReply, type SmsRequest } from './sms-server.js';

/**
 * SMSAPI (smsapi.pl) played locally from its public REST docs: `POST /sms.do` with
 * `Authorization: Bearer <token>` and form fields `to` (digits, country code first; several
 * comma-separated), `message`, optional `from` (a registered sender name) and `format=json`.
 * Success: `{ count, list: [{ id, points, number, date_sent, submitted_number, status: "QUEUE", error: null }] }`.
 * Errors as SMSAPI sends them: `{ error, message }`: 101 "Authorization failed" (401), 13 "No
 * correct phone numbers" (numbers it cannot route), 14 "Invalid sender name" (an unregistered
 * `from`), 11 "Message too long or there is no message"; and, when `rateLimit` says so, 429
 * with error 203 "Too many requests".
 */
export interface FakeSmsapi {
  url: string;
  token: string;
  requests: SmsRequest[];
  /** Messages accepted, as sent: `to` the digits SMSAPI received. */
  sent: { id: string; to: string; message: string; from: string | null }[];
  /** Answer the next N sends with 429 (error 203), as when over the account's request rate. */
  rateLimitNext(count: number): void;
  /** termin's settings pointing at this stand-in. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startFakeSmsapi(options: { senders?: string[] } = {}): Promise<FakeSmsapi> {
  const token = 'smsapi-oauth-token-0123456789abcdef';
  const senders = options.senders ?? ['Termin'];
  const sent: FakeSmsapi['sent'] = [];
  let limited = 0;
  let nextId = 1;
  const error = (status: number, code: number, message: string): SmsReply => ({ status, body: { error: code, message } });
  const server = await startSmsServer((request) => {
    if (request.path !== '/sms.do') return error(404, 8, 'Error in request');
    if (request.authorization !== `Bearer ${token}`) return error(401, 101, 'Authorization failed');
    if (limited > 0) {
      limited -= 1;
      return error(429, 203, 'Too many requests');
    }
    const { to, message, from, format } = request.form;
    if (format !== 'json') return { status: 200, body: 'ERROR:8' };
    if (!message) return error(400, 11, 'Message too long or there is no message');
    if (from !== undefined && !senders.includes(from)) return error(400, 14, 'Invalid sender name');
    if (!to || !/^\d{8,15}$/.test(to)) return error(400, 13, 'No correct phone numbers');
    const id = `6${String(nextId++).padStart(15, '0')}`;
    sent.push({ id, to, message, from: from ?? null });
    return {
      status: 200,
      body: { count: 1, list: [{ id, points: 0.16, number: to, date_sent: 1_800_000_000, submitted_number: to, status: 'QUEUE', error: null, idx: null }] },
    };
  });
  return {
    url: server.url,
    token,
    requests: server.requests,
    sent,
    rateLimitNext: (count) => {
      limited = count;
    },
    env: { SMS_PROVIDER: 'smsapi', SMSAPI_TOKEN: token, SMSAPI_URL: server.url, SMSAPI_FROM: senders[0]! },
    close: server.close,
  };
}
