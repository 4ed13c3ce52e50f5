import type { SmsSettings } from '../config.js';
import type { VendorHttp } from '../net/vendor-http.js';
import type { SmsProvider, SmsSender } from './sender.js';
import { createSmsapiSender } from './smsapi.js';
import { createTwilioSender } from './twilio.js';

const ADAPTERS: { [Provider in SmsSettings['provider']]: (settings: Extract<SmsSettings, { provider: Provider }>, http: VendorHttp) => SmsProvider } = {
  smsapi: createSmsapiSender,
  twilio: createTwilioSender,
};

/** The operator's SMS provider (SMS_PROVIDER), or null when none is configured: SMS reminders cannot then be chosen. */
export function createSmsSender(settings: SmsSettings | null, http: VendorHttp): SmsSender | null {
  if (settings === null) return null;
  const sender = settings.provider === 'smsapi' ? ADAPTERS.smsapi(settings, http) : ADAPTERS.twilio(settings, http);
  return { ...sender, defaultCountry: settings.defaultCountry, allowedCountries: settings.allowedCountries, maxPerNumberPerDay: settings.maxPerNumberPerDay };
}
