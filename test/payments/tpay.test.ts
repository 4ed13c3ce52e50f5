import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVendorHttp } from '../../src/net/vendor-http.js';
import { createTpayAdapter } from '../../src/payments/tpay.js';
import { GatewayError, NotificationRejectedError } from '../../src/payments/gateway.js';
import { memoryLookup, sampleOrder } from '../fakes/common-gateway.js';
import { startFakeTpay, type FakeTpay } from '../fakes/tpay-gateway.js';

const http = createVendorHttp();

let fake: FakeTpay;
beforeAll(async () => {
  fake = await startFakeTpay();
});
afterAll(() => fake.close());

describe('Tpay adapter', () => {
  it('creates the transaction with amount 150.00, the payment uuid as hiddenDescription and the notification URL', async () => {
    const adapter = createTpayAdapter({ baseUrl: fake.baseUrl, jwsUrl: fake.jwsUrl, http });
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
    const adapter = createTpayAdapter({ baseUrl: fake.baseUrl, jwsUrl: fake.jwsUrl, http });
    const payments = memoryLookup();
    const order = sampleOrder();
    const created = await adapter.createTransaction(fake.credentials, order);
    payments.remember(order, created.gatewayTransactionId);
    const verified = await adapter.verifyNotification(fake.credentials, fake.notificationFor(created.gatewayTransactionId), payments.lookup);
    expect(verified.reply).toEqual({ status: 200, contentType: 'text/plain; charset=utf-8', body: 'TRUE' });
    expect(verified.outcome).toEqual({ kind: 'paid', paymentUuid: order.paymentUuid, gatewayTransactionId: created.gatewayTransactionId, amount: 15_000, currency: 'PLN' });
  });

  describe('the X-JWS-Signature Tpay calls mandatory (docs-api.tpay.com/webhooks)', () => {
    const paidTransaction = async () => {
      const adapter = createTpayAdapter({ baseUrl: fake.baseUrl, jwsUrl: fake.jwsUrl, http });
      const payments = memoryLookup();
      const order = sampleOrder();
      const created = await adapter.createTransaction(fake.credentials, order);
      payments.remember(order, created.gatewayTransactionId);
      return { adapter, payments, transactionId: created.gatewayTransactionId };
    };

    it('refuses a notification with the right md5sum but no JWS', async () => {
      const { adapter, payments, transactionId } = await paidTransaction();
      const unsigned = fake.notificationFor(transactionId, { jws: 'none' });
      await expect(adapter.verifyNotification(fake.credentials, unsigned, payments.lookup)).rejects.toThrow(/X-JWS-Signature missing/);
    });

    it('refuses "not paid" turned into "paid" after signing, though the md5sum still matches', async () => {
      const { adapter, payments, transactionId } = await paidTransaction();
      // md5(id + tr_id + tr_amount + tr_crc + code) does not cover tr_status: only the JWS does.
      const altered = fake.notificationFor(transactionId, { status: 'FALSE', tamper: { tr_status: 'TRUE' } });
      await expect(adapter.verifyNotification(fake.credentials, altered, payments.lookup)).rejects.toThrow(/signature does not verify/);
    });

    it("refuses a certificate that names Tpay's root as issuer but was not signed by it", async () => {
      const { adapter, payments, transactionId } = await paidTransaction();
      const impostor = fake.notificationFor(transactionId, { jws: 'impostor' });
      await expect(adapter.verifyNotification(fake.credentials, impostor, payments.lookup)).rejects.toThrow(/not issued by Tpay/);
    });

    it("refuses an x5u outside Tpay's origin without fetching it", async () => {
      const { adapter, payments, transactionId } = await paidTransaction();
      const foreign = fake.notificationFor(transactionId, { jws: 'foreign-x5u' });
      await expect(adapter.verifyNotification(fake.credentials, foreign, payments.lookup)).rejects.toBeInstanceOf(NotificationRejectedError);
      // The genuine key, but the certificate elsewhere: with the production prefix configured, the stand-in's own x5u is foreign too.
      const production = createTpayAdapter({ baseUrl: fake.baseUrl, jwsUrl: 'https://secure.tpay.com', http });
      await expect(production.verifyNotification(fake.credentials, fake.notificationFor(transactionId), payments.lookup)).rejects.toThrow(/not under Tpay/);
    });

    it('fetches the signing and root certificates once, not per notification', async () => {
      const { adapter, payments, transactionId } = await paidTransaction();
      const before = fake.calls.filter((c) => c.path.startsWith('/x509/')).length;
      for (let i = 0; i < 3; i += 1) {
        const verified = await adapter.verifyNotification(fake.credentials, fake.notificationFor(transactionId), payments.lookup);
        expect(verified.outcome.kind).toBe('paid');
      }
      expect(fake.calls.filter((c) => c.path.startsWith('/x509/')).length - before).toBe(2);
    });

    it('answers a retryable GatewayError while the certificates cannot be fetched, so Tpay sends it again', async () => {
      const { adapter, payments, transactionId } = await paidTransaction();
      const notification = fake.notificationFor(transactionId);
      fake.setDown(true);
      try {
        await expect(adapter.verifyNotification(fake.credentials, notification, payments.lookup)).rejects.toMatchObject({ name: 'GatewayError', retryable: true });
      } finally {
        fake.setDown(false);
      }
      expect((await adapter.verifyNotification(fake.credentials, notification, payments.lookup)).outcome.kind).toBe('paid');
    });
  });

  it('refunds a decimal amount at /transactions/{transactionId}/refunds', async () => {
    const adapter = createTpayAdapter({ baseUrl: fake.baseUrl, jwsUrl: fake.jwsUrl, http });
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
    const adapter = createTpayAdapter({ baseUrl: fake.baseUrl, jwsUrl: fake.jwsUrl, http });
    const before = fake.calls.length;
    await expect(adapter.createTransaction(fake.credentials, sampleOrder({ currency: 'EUR' }))).rejects.toBeInstanceOf(GatewayError);
    expect(fake.calls.length).toBe(before);
  });
});
