import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVendorHttp } from '../../src/net/vendor-http.js';
import { SmsDeliveryError } from '../../src/sms/sender.js';
import { createSmsapiSender } from '../../src/sms/smsapi.js';
import { createTwilioSender } from '../../src/sms/twilio.js';
import { startFakeSmsapi, type FakeSmsapi } from '../fakes/smsapi.js';
import { startFakeTwilio, type FakeTwilio } from '../fakes/twilio.js';

const http = createVendorHttp();

/** What each adapter sends, and how it reads its provider's refusals: passing (retry) or lasting (record). */
describe('SMS adapters against their stand-ins', () => {
  let smsapi: FakeSmsapi;
  let twilio: FakeTwilio;
  beforeAll(async () => {
    [smsapi, twilio] = await Promise.all([startFakeSmsapi(), startFakeTwilio()]);
  });
  afterAll(async () => {
    await Promise.all([smsapi?.close(), twilio?.close()]);
  });
  const refusal = async (send: Promise<unknown>) => {
    const error = await send.then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(SmsDeliveryError);
    return error as SmsDeliveryError;
  };

  it('SMSAPI: Bearer token, digits with the country code, the sender name, JSON answers', async () => {
    const sender = createSmsapiSender({ token: smsapi.token, url: smsapi.url, from: 'Termin' }, http);
    const sent = await sender.send({ to: '+48601234567', text: 'Przypomnienie: jutro 9:00' });
    expect(sent.id).toBe(smsapi.sent.at(-1)!.id);
    expect(smsapi.requests.at(-1)).toMatchObject({
      path: '/sms.do',
      authorization: `Bearer ${smsapi.token}`,
      contentType: 'application/x-www-form-urlencoded',
      form: { to: '48601234567', message: 'Przypomnienie: jutro 9:00', from: 'Termin', format: 'json' },
    });
  });

  it('SMSAPI: a refused token or sender is lasting, a rate limit passing; the token never appears in the error', async () => {
    const badToken = await refusal(createSmsapiSender({ token: 'wrong-token', url: smsapi.url, from: null }, http).send({ to: '+48601234567', text: 'x' }));
    expect([badToken.retryable, badToken.message]).toEqual([false, 'SMSAPI refused the message: 101 Authorization failed']);
    const badSender = await refusal(createSmsapiSender({ token: smsapi.token, url: smsapi.url, from: 'Nobody' }, http).send({ to: '+48601234567', text: 'x' }));
    expect([badSender.retryable, badSender.message]).toEqual([false, 'SMSAPI refused the message: 14 Invalid sender name']);
    smsapi.rateLimitNext(1);
    const limited = await refusal(createSmsapiSender({ token: smsapi.token, url: smsapi.url, from: null }, http).send({ to: '+48601234567', text: 'x' }));
    expect([limited.retryable, limited.message]).toEqual([true, 'SMSAPI refused the message: 203 Too many requests']);
    expect(limited.message).not.toContain(smsapi.token);
  });

  it('Twilio: Basic auth of the account, E.164 To, From, Body; 201 with the message sid', async () => {
    const sender = createTwilioSender({ accountSid: twilio.accountSid, authToken: twilio.authToken, from: twilio.from, url: twilio.url }, http);
    const sent = await sender.send({ to: '+14155552671', text: 'Reminder: tomorrow 9:00' });
    expect(sent.id).toMatch(/^SM[0-9]{32}$/);
    expect(twilio.requests.at(-1)).toMatchObject({
      path: `/2010-04-01/Accounts/${twilio.accountSid}/Messages.json`,
      authorization: `Basic ${Buffer.from(`${twilio.accountSid}:${twilio.authToken}`).toString('base64')}`,
      form: { To: '+14155552671', From: twilio.from, Body: 'Reminder: tomorrow 9:00' },
    });
  });

  it('Twilio: 20003 and 21211 are lasting, 20429 passing; the auth token never appears in the error', async () => {
    const wrong = await refusal(
      createTwilioSender({ accountSid: twilio.accountSid, authToken: 'nope', from: twilio.from, url: twilio.url }, http).send({ to: '+14155552671', text: 'x' }),
    );
    expect([wrong.retryable, wrong.message]).toEqual([false, 'Twilio refused the message: 20003 Authenticate']);
    const sender = createTwilioSender({ accountSid: twilio.accountSid, authToken: twilio.authToken, from: twilio.from, url: twilio.url }, http);
    const invalid = await refusal(sender.send({ to: '+1', text: 'x' }));
    expect([invalid.retryable, invalid.message]).toEqual([false, "Twilio refused the message: 21211 The 'To' number +1 is not a valid phone number."]);
    twilio.rateLimitNext(1);
    const limited = await refusal(sender.send({ to: '+14155552671', text: 'x' }));
    expect([limited.retryable, limited.message]).toEqual([true, 'Twilio refused the message: 20429 Too Many Requests']);
    expect(limited.message).not.toContain(twilio.authToken);
  });

  it('a provider out of reach is a passing failure', async () => {
    const error = await refusal(
      createTwilioSender({ accountSid: twilio.accountSid, authToken: twilio.authToken, from: twilio.from, url: 'http://127.0.0.1:1' }, http).send({
        to: '+14155552671',
        text: 'x',
      }),
    );
    expect([error.retryable, error.message]).toEqual([true, 'the SMS provider at http://127.0.0.1:1 could not connect']);
  });
});
