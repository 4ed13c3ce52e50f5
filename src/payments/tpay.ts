import type { VendorHttp } from '../net/vendor-http.js';
import {
  type CreatedTransaction,
  type GatewayAdapter,
  type GatewayCredentials,
  type IncomingNotification,
  type NotificationOutcome,
  type GatewayRefund,
  type PaymentOrder,
  type RefundRequest,
  type VerifiedNotification,
  GatewayError,
  NotificationRejectedError,
  type PaymentLookup,
} from './gateway.js';
import {
  asRecord,
  callGateway,
  DEFAULT_GATEWAY_TIMEOUT_MS,
  digestHex,
  failForStatus,
  malformedAnswer,
  requireSetting,
  safeEqual,
  stringField,
  createOAuthSession,
  type GatewayResponse,
} from './http.js';
import { expectPayment } from './notification-checks.js';
import { createTpayJwsVerifier } from './tpay-jws.js';
import { formatMinorUnits, parseDecimalAmount } from '../domain/money.js';

/**
 * Tpay Open API (docs-api.tpay.com): OAuth `POST /oauth/auth` (form client_id, client_secret)
 * → Bearer token; `POST /transactions` with a decimal `amount`, `hiddenDescription` (our
 * payment uuid, echoed as `tr_crc`), payer and callbacks → `transactionId`,
 * `transactionPaymentUrl`; refunds `POST /transactions/{transactionId}/refunds` (`{ amount }`,
 * or `{}` for the whole). The transaction notification is a form POST
 * (`id, tr_id, tr_date, tr_crc, tr_amount, tr_paid, tr_desc, tr_status, tr_error, tr_email,
 * test_mode, md5sum`) with `md5sum = md5(id + tr_id + tr_amount + tr_crc + security code)`;
 * it must be answered with the bare word `TRUE`.
 *
 * Tpay signs every notification with a detached JWS (`X-JWS-Signature`, RS256, the key in a
 * certificate at the `x5u` URL under Tpay's own origin, chained to Tpay's root CA) and calls
 * checking it mandatory; the md5sum covers neither `tr_status` nor `tr_paid`. Both are checked
 * (tpay-jws.ts), the JWS first.
 *
 * Tpay's transaction API has no currency field: every transaction is in PLN.
 */
export function createTpayAdapter(options: { baseUrl: string; jwsUrl: string; timeoutMs?: number; http: VendorHttp }): GatewayAdapter {
  const http = options.http;
  const { baseUrl } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_GATEWAY_TIMEOUT_MS;
  const jws = createTpayJwsVerifier({ jwsUrl: options.jwsUrl, timeoutMs, http });
  const withToken = createOAuthSession({
    http,
    gateway: 'tpay',
    operation: 'oauth/auth',
    baseUrl,
    timeoutMs,
    tokenRequest: (clientId, clientSecret) => ({ method: 'POST', path: '/oauth/auth', form: { client_id: clientId, client_secret: clientSecret } }),
    // `fail` (below, hoisted) reads Tpay's own error body.
    failure: (response) => fail('oauth/auth', response),
  });

  function fail(operation: string, response: GatewayResponse): GatewayError {
    const body = asRecord(response.body);
    const code = stringField(asRecord((body?.errors as unknown[] | undefined)?.[0]), 'errorCode') ?? stringField(body, 'result');
    return failForStatus('tpay', operation, response, code);
  }

  return {
    code: 'tpay',

    async createTransaction(credentials: GatewayCredentials, order: PaymentOrder): Promise<CreatedTransaction> {
      requirePln(order.currency);
      const body = {
        amount: '__AMOUNT__',
        description: order.description.slice(0, 128),
        hiddenDescription: order.paymentUuid,
        lang: order.customer.lang,
        payer: { email: order.customer.email, name: order.customer.name },
        callbacks: {
          payerUrls: { success: order.returnUrl, error: order.returnUrl },
          notification: { url: order.notifyUrl },
        },
      };
      // The documented amount is a JSON number with two decimals (e.g. 150.00); JSON.stringify
      // would print 150, so the decimal string is spliced in as the number literal.
      const rawJson = JSON.stringify(body).replace('"__AMOUNT__"', formatMinorUnits(order.amount, 'PLN'));
      return withToken(credentials, async (authorization) => {
        const response = await callGateway(http, 'tpay', 'transactions', baseUrl, { method: 'POST', path: '/transactions', headers: { authorization }, rawJson }, timeoutMs);
        const result = asRecord(response.body);
        if ((response.status !== 200 && response.status !== 201) || stringField(result, 'result') !== 'success') throw fail('transactions', response);
        const transactionId = stringField(result, 'transactionId');
        const url = stringField(result, 'transactionPaymentUrl');
        if (transactionId === undefined || url === undefined) throw malformedAnswer('tpay', 'transactions', 'transactionId and transactionPaymentUrl');
        return { gatewayTransactionId: transactionId, redirectUrl: url };
      });
    },

    async verifyNotification(credentials: GatewayCredentials, notification: IncomingNotification, lookup: PaymentLookup): Promise<VerifiedNotification> {
      const merchantId = requireSetting(credentials, 'tpay', 'merchantId');
      const securityCode = requireSetting(credentials, 'tpay', 'securityCode', true);
      if (notification.contentType !== undefined && !notification.contentType.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
        throw new NotificationRejectedError('tpay notification: not form-encoded');
      }
      await jws.verify(notification.headers['x-jws-signature'], notification.rawBody);
      const form = new URLSearchParams(notification.rawBody);
      const field = (name: string): string => {
        const value = form.get(name);
        if (value === null) throw new NotificationRejectedError(`tpay notification: ${name} missing`);
        return value;
      };
      const id = field('id');
      const trId = field('tr_id');
      const trAmount = field('tr_amount');
      const trCrc = field('tr_crc');
      const md5sum = field('md5sum');
      if (!safeEqual(md5sum.toLowerCase(), digestHex('md5', id + trId + trAmount + trCrc + securityCode))) {
        throw new NotificationRejectedError('tpay notification: md5sum does not match');
      }
      if (id !== merchantId) throw new NotificationRejectedError('tpay notification: for another merchant');
      const status = field('tr_status');
      const reply = { status: 200, contentType: 'text/plain; charset=utf-8', body: 'TRUE' };
      let outcome: NotificationOutcome;
      if (status === 'TRUE' || status === 'PAID') {
        let amount: number;
        try {
          // tr_paid is what the payer actually paid; both must be the expected amount.
          amount = parseDecimalAmount(trAmount, 'PLN');
          if (parseDecimalAmount(field('tr_paid'), 'PLN') !== amount) throw new NotificationRejectedError('tpay notification: paid amount differs from the transaction amount');
        } catch (error) {
          if (error instanceof NotificationRejectedError) throw error;
          throw new NotificationRejectedError('tpay notification: malformed amount');
        }
        const payment = await expectPayment(lookup, trCrc, { amount, currency: 'PLN' });
        // The notification names the transaction by its title (tr_id); refunds want the transactionId created earlier.
        outcome = { kind: 'paid', paymentUuid: trCrc, gatewayTransactionId: payment.gatewayTransactionId ?? trId, amount, currency: 'PLN' };
      } else {
        if ((await lookup(trCrc)) === null) throw new NotificationRejectedError('tpay notification: unknown payment');
        outcome = { kind: 'ignored', reason: `transaction status ${status}` };
      }
      return { outcome, reply };
    },

    /**
     * `GET /transactions/{transactionId}/refunds` (docs-api.tpay.com/refunds, "Retrieving refunds
     * for a transaction"). Tpay's refund call takes no idempotency key (its body is `{ amount }`
     * only), so this list is how a retry finds a refund whose answer was lost. Entries whose
     * status says they did not go through are left out.
     */
    async listRefunds(credentials: GatewayCredentials, transaction: { gatewayTransactionId: string; currency: string }): Promise<GatewayRefund[]> {
      requirePln(transaction.currency);
      const path = `/transactions/${encodeURIComponent(transaction.gatewayTransactionId)}/refunds`;
      return withToken(credentials, async (authorization) => {
        const response = await callGateway(http, 'tpay', 'refunds list', baseUrl, { method: 'GET', path, headers: { authorization } }, timeoutMs);
        const result = asRecord(response.body);
        if (response.status !== 200 || stringField(result, 'result') !== 'success') throw fail('refunds list', response);
        const entries = result?.refunds;
        if (!Array.isArray(entries)) throw malformedAnswer('tpay', 'refunds list', 'refunds');
        return entries.flatMap((entry, index): GatewayRefund[] => {
          const refund = asRecord(entry);
          const status = stringField(refund, 'status')?.toLowerCase();
          if (status !== undefined && UNMADE_REFUND_STATUSES.has(status)) return [];
          const amount = refund?.amount;
          if (typeof amount !== 'number' && typeof amount !== 'string') throw malformedAnswer('tpay', 'refunds list', 'each refund’s amount');
          let minor: number;
          try {
            minor = parseDecimalAmount(String(amount), 'PLN');
          } catch {
            throw malformedAnswer('tpay', 'refunds list', 'a decimal refund amount');
          }
          const refundId = stringField(refund, 'refundId') ?? stringField(refund, 'id') ?? `${transaction.gatewayTransactionId}:refund-${index + 1}`;
          return [{ refundId, amount: minor }];
        });
      });
    },

    async refund(credentials: GatewayCredentials, refund: RefundRequest): Promise<{ refundId: string }> {
      requirePln(refund.currency);
      const rawJson = `{"amount":${formatMinorUnits(refund.amount, 'PLN')}}`;
      const path = `/transactions/${encodeURIComponent(refund.gatewayTransactionId)}/refunds`;
      return withToken(credentials, async (authorization) => {
        const response = await callGateway(http, 'tpay', 'refunds', baseUrl, { method: 'POST', path, headers: { authorization }, rawJson }, timeoutMs);
        const result = asRecord(response.body);
        if ((response.status !== 200 && response.status !== 201) || stringField(result, 'result') !== 'success') throw fail('refunds', response);
        return { refundId: stringField(result, 'requestId') ?? `${refund.gatewayTransactionId}:${refund.idempotencyKey}` };
      });
    },

    /** Tpay's transactions are in PLN only. */
    amountRefusal(_amount: number, currency: string): string | null {
      return currency.toUpperCase() === 'PLN' ? null : `Tpay takes PLN only, not ${currency.toUpperCase()}`;
    },
  };
}

/** Refund statuses that mean no money went back (any other, or none, counts as made). */
const UNMADE_REFUND_STATUSES = new Set(['failed', 'rejected', 'cancelled', 'canceled', 'error']);

function requirePln(currency: string): void {
  if (currency.toUpperCase() !== 'PLN') throw new GatewayError(`tpay: transactions are in PLN only, not ${currency.toUpperCase()}`, false);
}
