import type { Gateway } from '../domain/account.js';
import type { PaymentGatewayUrls } from '../config.js';
import type { VendorHttp } from '../net/vendor-http.js';
import type { GatewayAdapter } from './gateway.js';
import { createP24Adapter } from './p24.js';
import { createPaypalAdapter } from './paypal.js';
import { createPayuAdapter } from './payu.js';
import { createStripeAdapter } from './stripe.js';
import { createTpayAdapter } from './tpay.js';

/**
 * The one place that maps gateway codes to adapters. Built once per context; each adapter
 * keeps its OAuth tokens (and Stripe clients) for the process's lifetime. Every call but
 * Stripe's (its own SDK) goes through `http`, the service's one vendor client.
 * `createGatewayRegistry(config.payments, http).p24.createTransaction(credentials, order)`.
 */
export function createGatewayRegistry(urls: PaymentGatewayUrls, http: VendorHttp, options: { timeoutMs?: number } = {}): Record<Gateway, GatewayAdapter> {
  const timeoutMs = options.timeoutMs;
  return {
    stripe: createStripeAdapter({ baseUrl: urls.stripe, timeoutMs }),
    p24: createP24Adapter({ baseUrl: urls.p24, timeoutMs, http }),
    payu: createPayuAdapter({ baseUrl: urls.payu, timeoutMs, http }),
    paypal: createPaypalAdapter({ baseUrl: urls.paypal, timeoutMs, http }),
    tpay: createTpayAdapter({ baseUrl: urls.tpay, jwsUrl: urls.tpayJws, timeoutMs, http }),
  };
}
