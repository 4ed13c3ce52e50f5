import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
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

/**
 * Stripe keeps the first answer to an idempotency key (a 500 included) and refuses the key
 * with other parameters (docs.stripe.com/api/idempotent_requests). So a create is keyed by
 * its attempt (`uuid`, then `uuid:1`, …) and derives every parameter from what the attempt
 * stored, never from the clock; an answer Stripe will repeat for good spends the attempt.
 * Date is Stripe's clock here (the fake's default), moved instead of waited for.
 */
describe('Stripe Checkout Session creation across tries', () => {
  const T = Date.parse('2027-01-04T06:00:00.000Z');
  const at = (ms: number) => vi.setSystemTime(ms);
  afterEach(() => {
    vi.useRealTimers();
    fake.setDown(false);
  });
  const startClock = () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    at(T);
  };
  const sessionsOf = (paymentUuid: string) => [...fake.sessions.values()].filter((session) => session.client_reference_id === paymentUuid);
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: unknown) => error as GatewayError,
    );

  it('sends a repeated try the same request: minutes after a lost answer, it gets the session Stripe made', async () => {
    startClock();
    const adapter = createStripeAdapter({ baseUrl: fake.baseUrl });
    const order = sampleOrder({ expiresAt: T + 30 * 60_000, attempt: { number: 0, startedAt: T } });
    fake.loseNextCreateAnswers(2);
    const lost = await failure(adapter.createTransaction(fake.credentials, order));
    expect(lost).toBeInstanceOf(GatewayError);
    expect(lost).toMatchObject({ retryable: true, attemptSpent: false });
    expect(sessionsOf(order.paymentUuid)).toHaveLength(1);

    at(T + 5 * 60_000);
    const created = await adapter.createTransaction(fake.credentials, order);
    expect(sessionsOf(order.paymentUuid).map((session) => session.id)).toEqual([created.gatewayTransactionId]);
    expect(
      new Set(
        fake.calls
          .filter((c) => c.path === '/v1/checkout/sessions')
          .slice(-3)
          .map((c) => c.headers['idempotency-key']),
      ),
    ).toEqual(new Set([order.paymentUuid]));
  });

  it('spends the attempt on a 500 Stripe keeps under its key; the next attempt is a new key and gets a session', async () => {
    startClock();
    const adapter = createStripeAdapter({ baseUrl: fake.baseUrl });
    const order = sampleOrder({ expiresAt: T + 30 * 60_000, attempt: { number: 0, startedAt: T } });
    fake.failNextCreates(1);
    expect(await failure(adapter.createTransaction(fake.credentials, order))).toMatchObject({ retryable: true, attemptSpent: true, status: 500 });
    // Stripe answers that key the same way from now on.
    expect(await failure(adapter.createTransaction(fake.credentials, order))).toMatchObject({ attemptSpent: true, status: 500 });

    at(T + 60_000);
    const next = { ...order, attempt: { number: 1, startedAt: T + 60_000 } };
    const created = await adapter.createTransaction(fake.credentials, next);
    expect(fake.calls.at(-1)?.headers['idempotency-key']).toBe(`${order.paymentUuid}:1`);
    expect(sessionsOf(order.paymentUuid).map((session) => session.id)).toEqual([created.gatewayTransactionId]);
  });

  it('spends the attempt when Stripe refuses its key as used with other parameters', async () => {
    startClock();
    const adapter = createStripeAdapter({ baseUrl: fake.baseUrl });
    const order = sampleOrder({ expiresAt: T + 30 * 60_000, attempt: { number: 0, startedAt: T } });
    await adapter.createTransaction(fake.credentials, { ...order, description: 'Intro call with Anna Nowak (renamed since)' });
    const refused = await failure(adapter.createTransaction(fake.credentials, order));
    expect(refused).toMatchObject({ attemptSpent: true, status: 400 });
    expect(refused?.message).toMatch(/idempotency/i);
  });

  it('spends an attempt that never reached Stripe once its expires_at no longer fits Stripe’s window', async () => {
    startClock();
    const adapter = createStripeAdapter({ baseUrl: fake.baseUrl });
    const order = sampleOrder({ expiresAt: T + 30 * 60_000, attempt: { number: 0, startedAt: T } });
    fake.setDown('reset');
    expect(await failure(adapter.createTransaction(fake.credentials, order))).toMatchObject({ retryable: true, attemptSpent: false });
    fake.setDown(false);
    at(T + 5 * 60_000);
    expect(await failure(adapter.createTransaction(fake.credentials, order))).toMatchObject({ attemptSpent: true, status: 400 });
    const created = await adapter.createTransaction(fake.credentials, { ...order, attempt: { number: 1, startedAt: T + 5 * 60_000 } });
    expect(sessionsOf(order.paymentUuid).map((session) => session.id)).toEqual([created.gatewayTransactionId]);
    expect(Number(fake.sessionRequests.at(-1)?.expires_at)).toBeGreaterThanOrEqual((T + 5 * 60_000) / 1000 + 30 * 60);
  });
});
