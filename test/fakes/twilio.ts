import { startSmsServer, type SmsReply, type SmsRequest } from './sms-server.js';

/**
 * Twilio's Messages API played locally from its public docs: `POST
 * /2010-04-01/Accounts/{AccountSid}/Messages.json` with HTTP Basic `AccountSid:AuthToken`,
 * form fields `To` (E.164), `Body`, and `From` (one of the account's numbers) or
 * `MessagingServiceSid`. Success: 201 with the Message resource (`sid` SM…, `status`
 * "queued", `to`, `from`, `body`, `num_segments`, …). Errors as Twilio sends them,
 * `{ code, message, more_info, status }`: 20003 "Authenticate" (401), 21211 invalid `To`
 * (400), 21606 a `From` the account does not own (400), 21602 no `Body` (400), and 20429
 * "Too Many Requests" (429) when over the account's rate, as `rateLimitNext` asks.
 */
export interface FakeTwilio {
  url: string;
  accountSid: string;
  authToken: string;
  from: string;
  requests: SmsRequest[];
  sent: { sid: string; to: string; from: string; body: string }[];
  rateLimitNext(count: number): void;
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startFakeTwilio(): Promise<FakeTwilio> {
  const accountSid = `AC${'0123456789abcdef'.repeat(2)}`;
  const authToken = 'twilio-auth-token-0123456789abcd';
  const from = '+48221234567';
  const sent: FakeTwilio['sent'] = [];
  let limited = 0;
  let nextSid = 1;
  const error = (status: number, code: number, message: string): SmsReply => ({
    status,
    body: { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status },
  });
  const server = await startSmsServer((request) => {
    if (request.path !== `/2010-04-01/Accounts/${accountSid}/Messages.json`) return error(404, 20404, `The requested resource ${request.path} was not found`);
    if (request.authorization !== `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`) return error(401, 20003, 'Authenticate');
    if (limited > 0) {
      limited -= 1;
      return error(429, 20429, 'Too Many Requests');
    }
    const { To, From, Body } = request.form;
    if (!Body) return error(400, 21602, 'Message body is required.');
    if (From !== from) return error(400, 21606, `The From phone number ${From} is not a valid, SMS-capable inbound phone number or short code for your account.`);
    if (!To || !/^\+[1-9]\d{6,14}$/.test(To)) return error(400, 21211, `The 'To' number ${To} is not a valid phone number.`);
    const sid = `SM${String(nextSid++).padStart(32, '0')}`;
    sent.push({ sid, to: To, from: From, body: Body });
    return {
      status: 201,
      body: { sid, account_sid: accountSid, to: To, from: From, body: Body, status: 'queued', num_segments: '1', direction: 'outbound-api', error_code: null, error_message: null },
    };
  });
  return {
    url: server.url,
    accountSid,
    authToken,
    from,
    requests: server.requests,
    sent,
    rateLimitNext: (count) => {
      limited = count;
    },
    env: { SMS_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: accountSid, TWILIO_AUTH_TOKEN: authToken, TWILIO_FROM: from, TWILIO_API_URL: server.url },
    close: server.close,
  };
}
