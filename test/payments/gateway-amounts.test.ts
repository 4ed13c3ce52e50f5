import { describe, expect, it } from 'vitest';
import { createVendorHttp } from '../../src/net/vendor-http.js';
import { createGatewayRegistry } from '../../src/payments/registry.js';

/**
 * What each gateway can take, from its own documentation (each adapter's `amountRefusal`
 * quotes its source). Amounts in termin's minor units (ISO 4217 exponents). No call is made.
 */
const registry = createGatewayRegistry(
  {
    stripe: 'http://stripe.invalid',
    p24: 'http://p24.invalid',
    payu: 'http://payu.invalid',
    paypal: 'http://paypal.invalid',
    tpay: 'http://tpay.invalid',
    tpayJws: 'http://tpay-jws.invalid',
  },
  createVendorHttp(),
);

describe('amountRefusal', () => {
  it.each([
    ['stripe', 15_000, 'PLN', null],
    ['stripe', 1_500, 'JPY', null],
    ['stripe', 5, 'ISK', null],
    ['stripe', 150_050, 'HUF', null],
    ['stripe', 5_120, 'KWD', null],
    ['stripe', 5_125, 'KWD', 'Stripe takes KWD amounts whose third decimal is 0'],
    ['stripe', 150_000, 'MGA', null],
    ['stripe', 150_050, 'MGA', 'Stripe takes MGA in whole units only'],
    ['stripe', 15_000, 'IQD', 'Stripe does not take payments in IQD'],
    ['paypal', 15_000, 'PLN', null],
    ['paypal', 150_000, 'HUF', null],
    ['paypal', 150_050, 'HUF', 'PayPal takes HUF in whole units only (no decimals)'],
    ['paypal', 1_550, 'TWD', 'PayPal takes TWD in whole units only (no decimals)'],
    ['paypal', 1_500, 'JPY', null],
    ['paypal', 5_120, 'KWD', 'PayPal does not take payments in KWD'],
    ['p24', 15_000, 'EUR', null],
    ['p24', 15_000, 'CZK', null],
    ['p24', 15_000, 'USD', 'Przelewy24 takes PLN, EUR, GBP and CZK only, not USD'],
    ['payu', 150_050, 'HUF', null],
    ['payu', 15_000, 'RON', null],
    ['payu', 1_500, 'JPY', 'PayU does not take payments in JPY'],
    ['tpay', 15_000, 'PLN', null],
    ['tpay', 15_000, 'EUR', 'Tpay takes PLN only, not EUR'],
  ] as const)('%s, %i %s → %s', (gateway, amount, currency, refusal) => {
    expect(registry[gateway].amountRefusal(amount, currency)).toBe(refusal);
    expect(registry[gateway].amountRefusal(amount, currency.toLowerCase())).toBe(refusal);
  });
});
