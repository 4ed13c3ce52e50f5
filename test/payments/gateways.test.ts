import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVendorHttp } from '../../src/net/vendor-http.js';
import { GatewayError, NotificationRejectedError, type GatewayAdapter } from '../../src/payments/gateway.js';
import { createGatewayRegistry } from '../../src/payments/registry.js';
import { memoryLookup, sampleOrder, type FakeGateway } from '../fakes/common-gateway.js';
import { startFakeP24 } from '../fakes/p24-gateway.js';
import { startFakePaypal } from '../fakes/paypal-gateway.js';
import { startFakePayu } from '../fakes/payu-gateway.js';
import { startFakeStripe } from '../fakes/stripe-gateway.js';
import { startFakeTpay } from '../fakes/tpay-gateway.js';

/**
 * What every adapter must do, run against each gateway's fake through the registry,
 * the way termin's use cases reach them.
 */
const fakes: FakeGateway[] = [];
let registry: ReturnType<typeof createGatewayRegistry>;

beforeAll(async () => {
  fakes.push(await startFakeStripe(), await startFakeP24(), await startFakePayu(), await startFakePaypal(), await startFakeTpay());
  const url = (code: string) => fakes.find((fake) => fake.code === code)?.baseUrl ?? '';
  registry = createGatewayRegistry(
    { stripe: url('stripe'), p24: url('p24'), payu: url('payu'), paypal: url('paypal'), tpay: url('tpay'), tpayJws: url('tpay') },
    createVendorHttp(),
    { timeoutMs: 5_000 },
  );
});

afterAll(async () => {
  await Promise.all(fakes.map((fake) => fake.close()));
});

const CODES = ['stripe', 'p24', 'payu', 'paypal', 'tpay'] as const;

describe.each(CODES)('%s adapter', (code) => {
  const setup = async () => {
    const fake = fakes.find((candidate) => candidate.code === code) as FakeGateway;
    const adapter: GatewayAdapter = registry[code];
    const payments = memoryLookup();
    const order = sampleOrder();
    const created = await adapter.createTransaction(fake.credentials, order);
    payments.remember(order, created.gatewayTransactionId);
    return { fake, adapter, payments, order, created };
  };

  it('creates the transaction and returns the gateway page to redirect to', async () => {
    const { fake, created } = await setup();
    expect(created.gatewayTransactionId).not.toBe('');
    expect(created.redirectUrl.startsWith(fake.baseUrl)).toBe(true);
  });

  it('turns a genuine notification into paid, with the reply the gateway expects', async () => {
    const { fake, adapter, payments, order, created } = await setup();
    const verified = await adapter.verifyNotification(fake.credentials, fake.notificationFor(created.gatewayTransactionId), payments.lookup);
    expect(verified.outcome).toMatchObject({ kind: 'paid', paymentUuid: order.paymentUuid, amount: 15_000, currency: 'PLN' });
    expect(verified.reply.status).toBe(200);
  });

  it('rejects a forged notification', async () => {
    const { fake, adapter, payments, created } = await setup();
    await expect(adapter.verifyNotification(fake.credentials, fake.notificationFor(created.gatewayTransactionId, { forged: true }), payments.lookup)).rejects.toBeInstanceOf(
      NotificationRejectedError,
    );
  });

  it('rejects an unsigned notification', async () => {
    const { fake, adapter, payments, created } = await setup();
    const genuine = fake.notificationFor(created.gatewayTransactionId);
    // No signature header, and for the body-signed gateways the signature field emptied.
    const headers = { 'content-type': genuine.headers['content-type'] };
    const rawBody = genuine.rawBody.replace(/"sign":"[0-9a-f]+"/, '"sign":""').replace(/md5sum=[0-9a-f]+/, 'md5sum=');
    await expect(adapter.verifyNotification(fake.credentials, { headers, rawBody, contentType: genuine.contentType }, payments.lookup)).rejects.toBeInstanceOf(
      NotificationRejectedError,
    );
  });

  it('rejects a correctly signed notification for the wrong amount', async () => {
    const { fake, adapter, payments, created } = await setup();
    await expect(adapter.verifyNotification(fake.credentials, fake.notificationFor(created.gatewayTransactionId, { amount: 100 }), payments.lookup)).rejects.toThrow(
      /expects 15000 PLN/,
    );
  });

  it('rejects a notification about a payment termin does not know', async () => {
    const { fake, adapter, created } = await setup();
    await expect(adapter.verifyNotification(fake.credentials, fake.notificationFor(created.gatewayTransactionId), async () => null)).rejects.toBeInstanceOf(
      NotificationRejectedError,
    );
  });

  it('refunds part of a paid payment at the gateway', async () => {
    const { fake, adapter, payments, order, created } = await setup();
    const verified = await adapter.verifyNotification(fake.credentials, fake.notificationFor(created.gatewayTransactionId), payments.lookup);
    expect(verified.outcome.kind).toBe('paid');
    const gatewayTransactionId = verified.outcome.kind === 'paid' ? verified.outcome.gatewayTransactionId : created.gatewayTransactionId;
    const result = await adapter.refund(fake.credentials, {
      paymentUuid: order.paymentUuid,
      gatewayTransactionId,
      amount: 5_000,
      currency: 'PLN',
      reason: 'Meeting cancelled',
      idempotencyKey: crypto.randomUUID(),
    });
    expect(result.refundId).not.toBe('');
    expect(fake.refunds.at(-1)).toMatchObject({ amount: 5_000, currency: 'PLN' });
  });

  it.each([true, 'reset'] as const)('reports a gateway that is down (%s) as a retryable GatewayError', async (mode) => {
    const fake = fakes.find((candidate) => candidate.code === code) as FakeGateway;
    fake.setDown(mode);
    try {
      const error = await registry[code].createTransaction(fake.credentials, sampleOrder()).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).retryable).toBe(true);
    } finally {
      fake.setDown(false);
    }
  });

  it('keeps credentials out of error messages', async () => {
    const fake = fakes.find((candidate) => candidate.code === code) as FakeGateway;
    const wrong = { settings: fake.credentials.settings, secrets: Object.fromEntries(Object.keys(fake.credentials.secrets).map((name) => [name, `wrong-${name}-value`])) };
    const error = await registry[code].createTransaction(wrong, sampleOrder()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).retryable).toBe(false);
    for (const secret of [...Object.values(wrong.secrets), ...Object.values(fake.credentials.secrets)]) expect((error as Error).message).not.toContain(secret);
  });
});
