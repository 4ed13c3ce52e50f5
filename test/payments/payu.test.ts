import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVendorHttp } from '../../src/net/vendor-http.js';
import { createPayuAdapter } from '../../src/payments/payu.js';
import { NotificationRejectedError } from '../../src/payments/gateway.js';
import { memoryLookup, parseJson, sampleOrder } from '../fakes/common-gateway.js';
import { startFakePayu, type FakePayu } from '../fakes/payu-gateway.js';

const http = createVendorHttp();

let fake: FakePayu;
beforeAll(async () => {
  fake = await startFakePayu();
});
afterAll(() => fake.close());

describe('PayU adapter', () => {
  it('authorizes with client_credentials, creates the order (answered 302 + JSON) and redirects to redirectUri', async () => {
    const adapter = createPayuAdapter({ baseUrl: fake.baseUrl, http });
    const order = sampleOrder();
    const created = await adapter.createTransaction(fake.credentials, order);
    const auth = fake.calls.find((c) => c.path === '/pl/standard/user/oauth/authorize');
    expect(Object.fromEntries(new URLSearchParams(auth?.body))).toEqual({ grant_type: 'client_credentials', client_id: '300746', client_secret: 'payu-client-secret' });
    const call = fake.calls.at(-1);
    expect(call?.path).toBe('/api/v2_1/orders');
    expect(parseJson(call?.body ?? '')?.extOrderId).toMatch(new RegExp(`^${order.paymentUuid}_[0-9a-f]{8}$`));
    expect(parseJson(call?.body ?? '')).toMatchObject({
      totalAmount: '15000',
      currencyCode: 'PLN',
      customerIp: '203.0.113.7',
      merchantPosId: '300746',
      notifyUrl: order.notifyUrl,
      continueUrl: order.returnUrl,
    });
    expect(created.redirectUrl).toBe(`${fake.baseUrl}/pl/standard/co/summary?orderId=${created.gatewayTransactionId}`);
  });

  it('reuses the OAuth token for later calls', async () => {
    const adapter = createPayuAdapter({ baseUrl: fake.baseUrl, http });
    const before = fake.calls.filter((c) => c.path === '/pl/standard/user/oauth/authorize').length;
    await adapter.createTransaction(fake.credentials, sampleOrder());
    await adapter.createTransaction(fake.credentials, sampleOrder());
    expect(fake.calls.filter((c) => c.path === '/pl/standard/user/oauth/authorize').length).toBe(before + 1);
  });

  it('accepts SHA-256 as well as MD5 signatures, and ignores statuses before COMPLETED', async () => {
    const adapter = createPayuAdapter({ baseUrl: fake.baseUrl, http });
    const payments = memoryLookup();
    const order = sampleOrder();
    const created = await adapter.createTransaction(fake.credentials, order);
    payments.remember(order, created.gatewayTransactionId);
    const pending = await adapter.verifyNotification(fake.credentials, fake.notificationFor(created.gatewayTransactionId, { status: 'PENDING' }), payments.lookup);
    expect(pending.outcome).toEqual({ kind: 'ignored', reason: 'order status PENDING' });
    const paid = await adapter.verifyNotification(fake.credentials, fake.notificationFor(created.gatewayTransactionId, { algorithm: 'SHA-256' }), payments.lookup);
    expect(paid.outcome).toEqual({ kind: 'paid', paymentUuid: order.paymentUuid, gatewayTransactionId: created.gatewayTransactionId, amount: 15000, currency: 'PLN' });
    expect(paid.reply.status).toBe(200);
  });

  it('refunds at /api/v2_1/orders/{orderId}/refunds with the amount as a string', async () => {
    const adapter = createPayuAdapter({ baseUrl: fake.baseUrl, http });
    const order = sampleOrder();
    const created = await adapter.createTransaction(fake.credentials, order);
    const key = crypto.randomUUID();
    await adapter.refund(fake.credentials, {
      paymentUuid: order.paymentUuid,
      gatewayTransactionId: created.gatewayTransactionId,
      amount: 7_500,
      currency: 'PLN',
      reason: 'Meeting cancelled',
      idempotencyKey: key,
    });
    const call = fake.calls.at(-1);
    expect(call?.path).toBe(`/api/v2_1/orders/${created.gatewayTransactionId}/refunds`);
    expect(parseJson(call?.body ?? '')).toEqual({ refund: { description: 'Meeting cancelled', amount: '7500', currencyCode: 'PLN', extRefundId: key } });
  });

  it('creates a second order after a lost answer under a new extOrderId, and maps each back to the payment; only the stored order settles it', async () => {
    const adapter = createPayuAdapter({ baseUrl: fake.baseUrl, http });
    const payments = memoryLookup();
    const order = sampleOrder();
    fake.loseNextOrderAnswer();
    await expect(adapter.createTransaction(fake.credentials, order)).rejects.toMatchObject({ name: 'GatewayError', retryable: true });
    const created = await adapter.createTransaction(fake.credentials, order);
    payments.remember(order, created.gatewayTransactionId);
    const mine = [...fake.orders.values()].filter((o) => o.extOrderId.startsWith(order.paymentUuid));
    expect(mine).toHaveLength(2);
    const orphan = mine.find((o) => o.orderId !== created.gatewayTransactionId)!;

    const lapsed = await adapter.verifyNotification(fake.credentials, fake.notificationFor(orphan.orderId, { status: 'CANCELED' }), payments.lookup);
    expect(lapsed.outcome.kind).toBe('ignored');
    await expect(adapter.verifyNotification(fake.credentials, fake.notificationFor(orphan.orderId), payments.lookup)).rejects.toBeInstanceOf(NotificationRejectedError);
    const paid = await adapter.verifyNotification(fake.credentials, fake.notificationFor(created.gatewayTransactionId), payments.lookup);
    expect(paid.outcome).toEqual({ kind: 'paid', paymentUuid: order.paymentUuid, gatewayTransactionId: created.gatewayTransactionId, amount: 15000, currency: 'PLN' });
    const cancelled = await adapter.verifyNotification(fake.credentials, fake.notificationFor(created.gatewayTransactionId, { status: 'CANCELED' }), payments.lookup);
    expect(cancelled.outcome).toEqual({ kind: 'failed', paymentUuid: order.paymentUuid, gatewayTransactionId: created.gatewayTransactionId });
  });

  it('captures a WAITING_FOR_CONFIRMATION order with PUT …/status COMPLETED after the amount check, and never one for a wrong amount', async () => {
    const adapter = createPayuAdapter({ baseUrl: fake.baseUrl, http });
    const payments = memoryLookup();
    const order = sampleOrder();
    const created = await adapter.createTransaction(fake.credentials, order);
    payments.remember(order, created.gatewayTransactionId);
    const statusCalls = () => fake.calls.filter((c) => c.path === `/api/v2_1/orders/${created.gatewayTransactionId}/status`);
    await expect(
      adapter.verifyNotification(fake.credentials, fake.notificationFor(created.gatewayTransactionId, { status: 'WAITING_FOR_CONFIRMATION', amount: 14_999 }), payments.lookup),
    ).rejects.toBeInstanceOf(NotificationRejectedError);
    expect(statusCalls()).toHaveLength(0);
    const verified = await adapter.verifyNotification(
      fake.credentials,
      fake.notificationFor(created.gatewayTransactionId, { status: 'WAITING_FOR_CONFIRMATION' }),
      payments.lookup,
    );
    expect(statusCalls()).toHaveLength(1);
    expect(statusCalls()[0]?.method).toBe('PUT');
    expect(parseJson(statusCalls()[0]?.body ?? '')).toEqual({ orderId: created.gatewayTransactionId, orderStatus: 'COMPLETED' });
    expect(fake.orders.get(created.gatewayTransactionId)?.status).toBe('COMPLETED');
    expect(verified.outcome).toMatchObject({ kind: 'paid', gatewayTransactionId: created.gatewayTransactionId, amount: 15000 });
  });
});
