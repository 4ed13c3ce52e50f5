import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTpayAdapter } from '../../src/payments/tpay.js';
import { GatewayError } from '../../src/payments/gateway.js';
import { memoryLookup, sampleOrder } from '../fakes/common-gateway.js';
import { startFakeTpay, type FakeTpay } from '../fakes/tpay-gateway.js';

let fake: FakeTpay;
beforeAll(async () => {
  fake = await startFakeTpay();
});
afterAll(() => fake.close());

describe('Tpay adapter', () => {
  it('creates the transaction with amount 150.00, the payment uuid as hiddenDescription and the notification URL', async () => {
    const adapter = createTpayAdapter({ baseUrl: fake.baseUrl });
    const order = sampleOrder();
    const created = await adapter.createTransaction(fake.credentials, order);
    const auth = fake.calls.find((c) => c.path === '/oauth/auth');
    expect(auth?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const call = fake.calls.at(-1);
    expect(call?.path).toBe('/transactions');
    expect(call?.body).toContain('"amount":150.00');
    expect(JSON.parse(call?.body ?? '{}')).toMatchObject({
      hiddenDescription: order.paymentUuid,
      payer: { email: 'jan@example.com', name: 'Jan Kowalski' },
      callbacks: { notification: { url: order.notifyUrl }, payerUrls: { success: order.returnUrl, error: order.returnUrl } },
    });
    expect(created.redirectUrl).toBe(
      fake.transactions.get(created.gatewayTransactionId) && `${fake.baseUrl}/?title=${fake.transactions.get(created.gatewayTransactionId)?.title}&uid=01G6WAK`,
    );
  });

  it('answers a genuine form notification with TRUE and keeps the transactionId for refunds', async () => {
    const adapter = createTpayAdapter({ baseUrl: fake.baseUrl });
    const payments = memoryLookup();
    const order = sampleOrder();
    const created = await adapter.createTransaction(fake.credentials, order);
    payments.remember(order, created.gatewayTransactionId);
    const verified = await adapter.verifyNotification(fake.credentials, fake.notificationFor(created.gatewayTransactionId), payments.lookup);
    expect(verified.reply).toEqual({ status: 200, contentType: 'text/plain; charset=utf-8', body: 'TRUE' });
    expect(verified.outcome).toEqual({ kind: 'paid', paymentUuid: order.paymentUuid, gatewayTransactionId: created.gatewayTransactionId, amount: 15_000, currency: 'PLN' });
  });

  it('refunds a decimal amount at /transactions/{transactionId}/refunds', async () => {
    const adapter = createTpayAdapter({ baseUrl: fake.baseUrl });
    const order = sampleOrder();
    const created = await adapter.createTransaction(fake.credentials, order);
    await adapter.refund(fake.credentials, {
      paymentUuid: order.paymentUuid,
      gatewayTransactionId: created.gatewayTransactionId,
      amount: 15_000,
      currency: 'PLN',
      reason: 'cancelled',
      idempotencyKey: crypto.randomUUID(),
    });
    const call = fake.calls.at(-1);
    expect(call?.path).toBe(`/transactions/${created.gatewayTransactionId}/refunds`);
    expect(call?.body).toBe('{"amount":150.00}');
  });

  it('refuses currencies other than PLN before calling Tpay', async () => {
    const adapter = createTpayAdapter({ baseUrl: fake.baseUrl });
    const before = fake.calls.length;
    await expect(adapter.createTransaction(fake.credentials, sampleOrder({ currency: 'EUR' }))).rejects.toBeInstanceOf(GatewayError);
    expect(fake.calls.length).toBe(before);
  });
});
