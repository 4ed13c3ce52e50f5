import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVendorHttp } from '../../src/net/vendor-http.js';
import { createPaypalAdapter, toPaypalValue } from '../../src/payments/paypal.js';
import { memoryLookup, parseJson, sampleOrder } from '../fakes/common-gateway.js';
import { startFakePaypal, type FakePaypal } from '../fakes/paypal-gateway.js';

const http = createVendorHttp();

let fake: FakePaypal;
beforeAll(async () => {
  fake = await startFakePaypal();
});
afterAll(() => fake.close());

describe('PayPal adapter', () => {
  it('creates a CAPTURE order for "150.00" PLN with PayPal-Request-Id and redirects to the payer-action link', async () => {
    const adapter = createPaypalAdapter({ baseUrl: fake.baseUrl, http });
    const order = sampleOrder();
    const created = await adapter.createTransaction(fake.credentials, order);
    const call = fake.calls.at(-1);
    expect(call?.path).toBe('/v2/checkout/orders');
    expect(call?.headers['paypal-request-id']).toBe(`create-${order.paymentUuid}`);
    expect(parseJson(call?.body ?? '')).toMatchObject({
      intent: 'CAPTURE',
      purchase_units: [{ custom_id: order.paymentUuid, amount: { currency_code: 'PLN', value: '150.00' } }],
      payment_source: { paypal: { experience_context: { return_url: order.returnUrl, cancel_url: order.returnUrl } } },
    });
    expect(created.redirectUrl).toBe(`${fake.baseUrl}/checkoutnow?token=${created.gatewayTransactionId}`);
  });

  it.each([
    ['en', 'en-US'],
    ['pl', 'pl-PL'],
    ['de', 'de-DE'],
    ['uk', 'uk-UA'],
    ['es', 'es-ES'],
    ['fr', 'fr-FR'],
  ] as const)('opens PayPal’s checkout in the participant’s language (%s → %s)', async (lang, locale) => {
    const adapter = createPaypalAdapter({ baseUrl: fake.baseUrl, http });
    const order = sampleOrder();
    await adapter.createTransaction(fake.credentials, { ...order, customer: { ...order.customer, lang } });
    expect(parseJson(fake.calls.at(-1)?.body ?? '')).toMatchObject({ payment_source: { paypal: { experience_context: { locale } } } });
  });

  it('captures the approved order when the participant returns', async () => {
    const adapter = createPaypalAdapter({ baseUrl: fake.baseUrl, http });
    const order = sampleOrder();
    const created = await adapter.createTransaction(fake.credentials, order);
    const payment = { paymentUuid: order.paymentUuid, gatewayTransactionId: created.gatewayTransactionId, amount: 15_000, currency: 'PLN' };
    // Came back without approving (cancel): nothing to capture.
    expect(await adapter.completeOnReturn?.(fake.credentials, payment, { token: created.gatewayTransactionId })).toBeNull();
    fake.approve(created.gatewayTransactionId);
    const outcome = await adapter.completeOnReturn?.(fake.credentials, payment, { token: created.gatewayTransactionId, PayerID: 'QYR5Z8XDVJNXQ' });
    expect(outcome).toEqual({ kind: 'paid', paymentUuid: order.paymentUuid, gatewayTransactionId: created.gatewayTransactionId, amount: 15_000, currency: 'PLN' });
    expect(fake.calls.at(-1)?.path).toBe(`/v2/checkout/orders/${created.gatewayTransactionId}/capture`);
    // A second return (reload) reads the captured order instead of failing.
    expect(await adapter.completeOnReturn?.(fake.credentials, payment, { token: created.gatewayTransactionId, PayerID: 'QYR5Z8XDVJNXQ' })).toMatchObject({ kind: 'paid' });
  });

  it('has PayPal verify the webhook with the account’s webhookId and the event exactly as received', async () => {
    const adapter = createPaypalAdapter({ baseUrl: fake.baseUrl, http });
    const payments = memoryLookup();
    const order = sampleOrder();
    const created = await adapter.createTransaction(fake.credentials, order);
    payments.remember(order, created.gatewayTransactionId);
    const notification = fake.notificationFor(created.gatewayTransactionId);
    await adapter.verifyNotification(fake.credentials, notification, payments.lookup);
    const call = fake.calls.at(-1);
    expect(call?.path).toBe('/v1/notifications/verify-webhook-signature');
    expect(parseJson(call?.body ?? '')).toMatchObject({
      webhook_id: '1JE4291016473214C',
      transmission_id: notification.headers['paypal-transmission-id'],
      auth_algo: 'SHA256withRSA',
      webhook_event: JSON.parse(notification.rawBody),
    });
  });

  it('formats amounts as PayPal wants them', () => {
    expect(toPaypalValue(15_000, 'PLN')).toBe('150.00');
    expect(toPaypalValue(1_500, 'JPY')).toBe('1500');
    expect(toPaypalValue(15_000, 'TWD')).toBe('150');
  });
});
