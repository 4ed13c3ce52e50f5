import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVendorHttp } from '../../src/net/vendor-http.js';
import { createP24Adapter } from '../../src/payments/p24.js';
import { GatewayError, NotificationRejectedError, type RefundRequest } from '../../src/payments/gateway.js';
import { memoryLookup, parseJson, sampleOrder } from '../fakes/common-gateway.js';
import { startFakeP24, type FakeP24 } from '../fakes/p24-gateway.js';

const http = createVendorHttp();

let fake: FakeP24;
beforeAll(async () => {
  fake = await startFakeP24();
});
afterAll(() => fake.close());

const sha384 = (value: unknown) => createHash('sha384').update(JSON.stringify(value)).digest('hex');

async function paidSetup() {
  const adapter = createP24Adapter({ baseUrl: fake.baseUrl, http });
  const payments = memoryLookup();
  const order = sampleOrder();
  const created = await adapter.createTransaction(fake.credentials, order);
  payments.remember(order, created.gatewayTransactionId);
  return { adapter, payments, order, created };
}

describe('Przelewy24 adapter', () => {
  it('registers the transaction with Basic posId:apiKey and the documented sha384 sign, then redirects to /trnRequest/{token}', async () => {
    const { order, created } = await paidSetup();
    const call = fake.calls.find((c) => c.path === '/api/v1/transaction/register' && parseJson(c.body)?.sessionId === order.paymentUuid);
    expect(call?.method).toBe('POST');
    expect(call?.headers.authorization).toBe(`Basic ${Buffer.from('100200:p24-api-key-secret').toString('base64')}`);
    const body = parseJson(call?.body ?? '');
    expect(body).toMatchObject({
      merchantId: 100200,
      posId: 100200,
      amount: 15000,
      currency: 'PLN',
      email: 'jan@example.com',
      country: 'PL',
      language: 'pl',
      urlReturn: order.returnUrl,
      urlStatus: order.notifyUrl,
    });
    expect(body?.sign).toBe(sha384({ sessionId: order.paymentUuid, merchantId: 100200, amount: 15000, currency: 'PLN', crc: 'p24-crc-secret' }));
    expect(created.redirectUrl).toBe(`${fake.baseUrl}/trnRequest/${created.gatewayTransactionId}`);
  });

  it('confirms a genuine notification with PUT transaction/verify and its own sign', async () => {
    const { adapter, payments, order, created } = await paidSetup();
    const verified = await adapter.verifyNotification(fake.credentials, fake.notificationFor(created.gatewayTransactionId), payments.lookup);
    const transaction = fake.transactions.get(created.gatewayTransactionId);
    expect(transaction?.verified).toBe(true);
    const verify = fake.calls.find((c) => c.path === '/api/v1/transaction/verify' && parseJson(c.body)?.sessionId === order.paymentUuid);
    expect(verify?.method).toBe('PUT');
    expect(parseJson(verify?.body ?? '')?.sign).toBe(
      sha384({ sessionId: order.paymentUuid, orderId: transaction?.orderId, amount: 15000, currency: 'PLN', crc: 'p24-crc-secret' }),
    );
    expect(verified.outcome).toEqual({ kind: 'paid', paymentUuid: order.paymentUuid, gatewayTransactionId: String(transaction?.orderId), amount: 15000, currency: 'PLN' });
  });

  it('never calls transaction/verify for a wrong amount or a forged sign', async () => {
    const { adapter, payments, order, created } = await paidSetup();
    await expect(adapter.verifyNotification(fake.credentials, fake.notificationFor(created.gatewayTransactionId, { amount: 14_999 }), payments.lookup)).rejects.toBeInstanceOf(
      NotificationRejectedError,
    );
    await expect(adapter.verifyNotification(fake.credentials, fake.notificationFor(created.gatewayTransactionId, { forged: true }), payments.lookup)).rejects.toBeInstanceOf(
      NotificationRejectedError,
    );
    expect(fake.calls.filter((c) => c.path === '/api/v1/transaction/verify' && parseJson(c.body)?.sessionId === order.paymentUuid)).toHaveLength(0);
    expect(fake.transactions.get(created.gatewayTransactionId)?.verified).toBe(false);
  });

  it('refunds by the P24 orderId, found by sessionId when termin holds the token', async () => {
    const { adapter, payments, order, created } = await paidSetup();
    await adapter.verifyNotification(fake.credentials, fake.notificationFor(created.gatewayTransactionId), payments.lookup);
    await adapter.refund(fake.credentials, {
      paymentUuid: order.paymentUuid,
      gatewayTransactionId: created.gatewayTransactionId,
      amount: 2_500,
      currency: 'PLN',
      reason: 'Meeting cancelled',
      idempotencyKey: crypto.randomUUID(),
    });
    const refundCall = fake.calls.at(-1);
    expect(refundCall?.path).toBe('/api/v1/transaction/refund');
    expect(parseJson(refundCall?.body ?? '')?.refunds).toEqual([
      { orderId: fake.transactions.get(created.gatewayTransactionId)?.orderId, sessionId: order.paymentUuid, amount: 2500, description: 'Meeting cancelled' },
    ]);
    expect(fake.refunds.at(-1)).toEqual({ transactionId: created.gatewayTransactionId, amount: 2500, currency: 'PLN' });
  });

  async function paidRefund(): Promise<{ adapter: ReturnType<typeof createP24Adapter>; request: RefundRequest; token: string }> {
    const { adapter, payments, order, created } = await paidSetup();
    const verified = await adapter.verifyNotification(fake.credentials, fake.notificationFor(created.gatewayTransactionId), payments.lookup);
    if (verified.outcome.kind !== 'paid') throw new Error('not paid');
    const request = {
      paymentUuid: order.paymentUuid,
      gatewayTransactionId: verified.outcome.gatewayTransactionId,
      amount: 15_000,
      currency: 'PLN',
      reason: 'Meeting cancelled',
      idempotencyKey: crypto.randomUUID(),
    };
    return { adapter, request, token: created.gatewayTransactionId };
  }
  const refundsOf = (token: string) => fake.refunds.filter((refund) => refund.transactionId === token);

  it('takes "Request already exists" for a refund P24 lists under that requestId as made; one it rejected stays refused; one not listed yet is tried again later', async () => {
    const { adapter, request, token } = await paidRefund();
    fake.loseNextRefundAnswer();
    const lost = await adapter.refund(fake.credentials, request).catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(GatewayError);
    expect((lost as GatewayError).retryable).toBe(true);

    const requestKey = request.idempotencyKey.replace(/-/g, '');
    expect(await adapter.refund(fake.credentials, request)).toEqual({ refundId: requestKey });
    expect(fake.calls.at(-1)?.path).toBe(`/api/v1/refund/by/orderId/${request.gatewayTransactionId}`);
    expect(refundsOf(token)).toEqual([{ transactionId: token, amount: 15_000, currency: 'PLN' }]);

    const record = fake.refundRecords.find((r) => r.requestId === requestKey)!;
    record.status = 4;
    await expect(adapter.refund(fake.credentials, request)).rejects.toMatchObject({ name: 'GatewayError', retryable: false });
    fake.refundRecords.splice(fake.refundRecords.indexOf(record), 1);
    await expect(adapter.refund(fake.credentials, request)).rejects.toMatchObject({ name: 'GatewayError', retryable: true });
    expect(refundsOf(token)).toHaveLength(1);
  });

  it('treats "Concurrent call" (the same refund still in flight) as worth trying again, and the first request completes', async () => {
    const { adapter, request, token } = await paidRefund();
    const held = fake.holdRefunds();
    const first = adapter.refund(fake.credentials, request);
    await held.arrived;
    await expect(adapter.refund(fake.credentials, request)).rejects.toMatchObject({
      name: 'GatewayError',
      retryable: true,
      message: 'p24 transaction/refund: HTTP 400 (Concurrent call)',
    });
    held.release();
    expect(await first).toEqual({ refundId: request.idempotencyKey.replace(/-/g, '') });
    expect(refundsOf(token)).toHaveLength(1);
  });

  it('refuses a notification whose originAmount (the registered amount) is not the amount paid, before transaction/verify', async () => {
    const { adapter, payments, order, created } = await paidSetup();
    await expect(
      adapter.verifyNotification(fake.credentials, fake.notificationFor(created.gatewayTransactionId, { originAmount: 12_000 }), payments.lookup),
    ).rejects.toBeInstanceOf(NotificationRejectedError);
    expect(fake.calls.filter((c) => c.path === '/api/v1/transaction/verify' && parseJson(c.body)?.sessionId === order.paymentUuid)).toHaveLength(0);
  });
});
