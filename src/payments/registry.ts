import type { Gateway } from '../domain/account.js';
import type { PaymentGatewayUrls } from '../config.js';
import type { GatewayAdapter } from './gateway.js';
import { createP24Adapter } from './p24.js';
import { createPaypalAdapter } from './paypal.js';
import { createPayuAdapter } from './payu.js';
import { createStripeAdapter } from './stripe.js';
import { createTpayAdapter } from './tpay.js';

/**
 * The one place that maps gateway codes to adapters. Built once per context; each adapter
 * keeps its OAuth tokens (and Stripe clients) for the process's lifetime.
 * `createGatewayRegistry(config.payments).p24.createTransaction(credentials, order)`.
 */
export function createGatewayRegistry(urls: PaymentGatewayUrls, options: { timeoutMs?: number } = {}): Record<Gateway, GatewayAdapter> {
  const timeoutMs = options.timeoutMs;
  return {
    stripe: createStripeAdapter({ baseUrl: urls.stripe, timeoutMs }),
    p24: createP24Adapter({ baseUrl: urls.p24, timeoutMs }),
    payu: createPayuAdapter({ baseUrl: urls.payu, timeoutMs }),
    paypal: createPaypalAdapter({ baseUrl: urls.paypal, timeoutMs }),
    tpay: createTpayAdapter({ baseUrl: urls.tpay, jwsUrl: urls.tpayJws, timeoutMs }),
  };
}
