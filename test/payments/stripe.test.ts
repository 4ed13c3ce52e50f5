import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStripeAdapter, toStripeAmount } from '../../src/payments/stripe.js';
import { GatewayError } from '../../src/payments/gateway.js';
import { memoryLookup, sampleOrder } from '../fakes/common-gateway.js';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe-gateway.js';

let fake: FakeStripe;
beforeAll(async () => {
  fake = await startFakeStripe();
});
afterAll(() => fake.close());

describe('Stripe adapter', () => {
  it('creates a payment-mode Checkout Session carrying the payment uuid, keyed by it for idempotency', async () => {
    const adapter = createStripeAdapter({ baseUrl: fake.baseUrl });
    const order = sampleOrder();
    const created = await adapter.createTransaction(fake.credentials, order);
    expect(created.gatewayTransactionId).toMatch(/^cs_test_/);
    expect(created.redirectUrl).toBe(`${fake.baseUrl}/c/pay/${created.gatewayTransactionId}`);
    const request = fake.sessionRequests.at(-1) as Record<string, any>;
    expect(request).toMatchObject({
      mode: 'payment',
      client_reference_id: order.paymentUuid,
      metadata: { paymentUuid: order.paymentUuid },
      customer_email: 'jan@example.com',
      locale: 'pl',
      success_url: order.returnUrl,
      cancel_url: order.returnUrl,
      line_items: [{ quantity: '1', price_data: { currency: 'pln', unit_amount: '15000', product_data: { name: order.description } } }],
    });
    expect(Number(request.expires_at)).toBe(Math.ceil(order.expiresAt / 1000));
    expect(fake.calls.at(-1)?.headers['idempotency-key']).toBe(order.paymentUuid);
  });

  it('asks for at least Stripe’s 30 minutes when the hold lapses sooner', async () => {
    const adapter = createStripeAdapter({ baseUrl: fake.baseUrl });
    await adapter.createTransaction(fake.credentials, sampleOrder({ expiresAt: Date.now() + 10 * 60 * 1000 }));
    expect(Number(fake.sessionRequests.at(-1)?.expires_at)).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + 30 * 60);
  });

  it('sends a JPY price as whole yen and reads it back the same', async () => {
    const adapter = createStripeAdapter({ baseUrl: fake.baseUrl });
    const payments = memoryLookup();
    const order = sampleOrder({ amount: 1_500, currency: 'JPY' });
    const created = await adapter.createTransaction(fake.credentials, order);
    payments.remember(order, created.gatewayTransactionId);
    expect((fake.sessionRequests.at(-1) as Record<string, any>).line_items[0].price_data).toMatchObject({ currency: 'jpy', unit_amount: '1500' });
    const verified = await adapter.verifyNotification(fake.credentials, fake.notificationFor(created.gatewayTransactionId), payments.lookup);
    expect(verified.outcome).toMatchObject({ kind: 'paid', amount: 1_500, currency: 'JPY' });
    expect(verified.reply).toEqual({ status: 200, contentType: 'application/json', body: '{"received":true}' });
  });

  it('follows Stripe’s special cases: two-decimal ISK, three-decimal amounts ending in 0', () => {
    expect(toStripeAmount(5, 'ISK')).toBe(500);
    expect(toStripeAmount(5_120, 'KWD')).toBe(5_120);
    expect(() => toStripeAmount(5_124, 'KWD')).toThrow(GatewayError);
  });

  it('refunds through the session’s PaymentIntent with the idempotency key', async () => {
    const adapter = createStripeAdapter({ baseUrl: fake.baseUrl });
    const payments = memoryLookup();
    const order = sampleOrder();
    const created = await adapter.createTransaction(fake.credentials, order);
    payments.remember(order, created.gatewayTransactionId);
    await adapter.verifyNotification(fake.credentials, fake.notificationFor(created.gatewayTransactionId), payments.lookup);
    const key = crypto.randomUUID();
    await adapter.refund(fake.credentials, {
      paymentUuid: order.paymentUuid,
      gatewayTransactionId: created.gatewayTransactionId,
      amount: 15_000,
      currency: 'PLN',
      reason: 'cancelled',
      idempotencyKey: key,
    });
    const call = fake.calls.at(-1);
    expect(call?.path).toBe('/v1/refunds');
    expect(call?.headers['idempotency-key']).toBe(key);
    expect(fake.refunds.at(-1)).toEqual({ transactionId: created.gatewayTransactionId, amount: 15_000, currency: 'PLN' });
  });

  it('ignores authentic events termin does not use', async () => {
    const adapter = createStripeAdapter({ baseUrl: fake.baseUrl });
    const created = await adapter.createTransaction(fake.credentials, sampleOrder());
    const genuine = fake.notificationFor(created.gatewayTransactionId);
    // Re-sign a different event type with the same secret, the way Stripe would send it.
    const { createHmac } = await import('node:crypto');
    const rawBody = genuine.rawBody.replace('"checkout.session.completed"', '"checkout.session.expired"');
    const t = Math.floor(Date.now() / 1000);
    const v1 = createHmac('sha256', fake.credentials.secrets.webhookSecret ?? '')
      .update(`${t}.${rawBody}`)
      .digest('hex');
    const verified = await adapter.verifyNotification(
      fake.credentials,
      { headers: { 'stripe-signature': `t=${t},v1=${v1}` }, rawBody, contentType: 'application/json' },
      async () => null,
    );
    expect(verified.outcome).toEqual({ kind: 'ignored', reason: 'event checkout.session.expired' });
  });
});
