import { randomBytes } from 'node:crypto';
import type { VendorHttp } from '../net/vendor-http.js';
import {
  type CreatedTransaction,
  type GatewayAdapter,
  type GatewayCredentials,
  type IncomingNotification,
  type NotificationOutcome,
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
  isRetryableStatus,
  malformedAnswer,
  requireSetting,
  safeEqual,
  stringField,
  createOAuthSession,
} from './http.js';
import { expectPayment, parseJsonObject } from './notification-checks.js';
import { currencyExponent, rescaleMinorUnits } from '../domain/money.js';

/**
 * PayU GPO Europe REST API 2.1 (developers.payu.com/europe):
 * - OAuth `POST /pl/standard/user/oauth/authorize` (form: grant_type=client_credentials,
 *   client_id, client_secret) → `access_token`, `expires_in`.
 * - `POST /api/v2_1/orders` with Bearer token; PayU answers **302 with a JSON body**
 *   (`status.statusCode: SUCCESS`, `redirectUri`, `orderId`), hence `redirect: 'manual'`.
 *   Amounts are strings in the lowest unit; HUF is documented as "multiply by 100".
 *   `extOrderId` must be unique within the POS: a second order with one PayU has seen is 400
 *   ERROR_ORDER_NOT_UNIQUE, even when the first order's answer never arrived. So each attempt
 *   sends an id of its own, `{paymentUuid}_{8 hex}`, which notifications map back.
 * - Notifications: JSON POSTed to `notifyUrl`, header
 *   `OpenPayu-Signature: sender=checkout;signature=…;algorithm=MD5|SHA-256;content=DOCUMENT`,
 *   signature = digest(body + second key). Any 200 acknowledges it. One counts only for the
 *   order termin stored for the payment (an earlier attempt's order was never shown to anyone).
 * - Auto-receive off (a POS setting): a paid order waits in WAITING_FOR_CONFIRMATION and PayU
 *   cancels it unless captured. termin captures it, once the notification's signature, amount,
 *   currency and order check out, with `PUT /api/v2_1/orders/{orderId}/status`
 *   `{"orderId","orderStatus":"COMPLETED"}`; the payment then counts as paid.
 * - Refunds: `POST /api/v2_1/orders/{orderId}/refunds` with `{ refund: { description, amount, extRefundId } }`.
 */
export function createPayuAdapter(options: { baseUrl: string; timeoutMs?: number; http: VendorHttp }): GatewayAdapter {
  const http = options.http;
  const { baseUrl } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_GATEWAY_TIMEOUT_MS;
  const withToken = createOAuthSession({
    http,
    gateway: 'payu',
    operation: 'oauth/authorize',
    baseUrl,
    timeoutMs,
    tokenRequest: (clientId, clientSecret) => ({
      method: 'POST',
      path: '/pl/standard/user/oauth/authorize',
      form: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
    }),
    failure: (response) => failForStatus('payu', 'oauth/authorize', response, stringField(asRecord(response.body), 'error')),
  });

  /**
   * Captures an order PayU holds for confirmation. An order that is no longer waiting may have
   * been captured by an earlier delivery of the same notification whose answer PayU lost: the
   * order's own status then says so.
   */
  async function captureOrder(authorization: string, orderId: string): Promise<void> {
    const path = `/api/v2_1/orders/${encodeURIComponent(orderId)}`;
    const response = await callGateway(
      http,
      'payu',
      'orders/status',
      baseUrl,
      { method: 'PUT', path: `${path}/status`, headers: { authorization }, json: { orderId, orderStatus: 'COMPLETED' } },
      timeoutMs,
    );
    const statusCode = stringField(asRecord(asRecord(response.body)?.status), 'statusCode');
    if (response.status === 200 && statusCode === 'SUCCESS') return;
    if (!isRetryableStatus(response.status) && response.status !== 401) {
      const current = await callGateway(http, 'payu', 'orders', baseUrl, { method: 'GET', path, headers: { authorization } }, timeoutMs);
      const orders = asRecord(current.body)?.orders;
      const order = Array.isArray(orders) ? asRecord(orders[0]) : undefined;
      if (current.status === 200 && stringField(order, 'orderId') === orderId && stringField(order, 'status') === 'COMPLETED') return;
    }
    throw failForStatus('payu', 'orders/status', response, statusCode);
  }

  return {
    code: 'payu',

    async createTransaction(credentials: GatewayCredentials, order: PaymentOrder): Promise<CreatedTransaction> {
      const posId = requireSetting(credentials, 'payu', 'posId');
      const currency = order.currency.toUpperCase();
      const amount = String(toPayuAmount(order.amount, currency));
      const validitySeconds = Math.max(1, Math.floor((order.expiresAt - Date.now()) / 1000));
      const [firstName, ...rest] = order.customer.name.trim().split(/\s+/);
      const body = {
        notifyUrl: order.notifyUrl,
        continueUrl: order.returnUrl,
        customerIp: order.customerIp ?? '127.0.0.1',
        merchantPosId: posId,
        description: order.description,
        currencyCode: currency,
        totalAmount: amount,
        extOrderId: extOrderIdFor(order.paymentUuid),
        validityTime: String(validitySeconds),
        buyer: { email: order.customer.email, firstName: firstName ?? '', lastName: rest.join(' '), language: order.customer.lang },
        products: [{ name: order.description, unitPrice: amount, quantity: '1' }],
      };
      return withToken(credentials, async (authorization) => {
        const response = await callGateway(http, 'payu', 'orders', baseUrl, { method: 'POST', path: '/api/v2_1/orders', headers: { authorization }, json: body }, timeoutMs);
        const result = asRecord(response.body);
        const statusCode = stringField(asRecord(result?.status), 'statusCode');
        if ((response.status !== 302 && response.status !== 201 && response.status !== 200) || statusCode !== 'SUCCESS') {
          throw failForStatus('payu', 'orders', response, statusCode);
        }
        const orderId = stringField(result, 'orderId');
        const redirectUri = stringField(result, 'redirectUri');
        if (orderId === undefined || redirectUri === undefined) throw malformedAnswer('payu', 'orders', 'orderId and redirectUri');
        return { gatewayTransactionId: orderId, redirectUrl: redirectUri };
      });
    },

    async verifyNotification(credentials: GatewayCredentials, notification: IncomingNotification, lookup: PaymentLookup): Promise<VerifiedNotification> {
      const secondKey = requireSetting(credentials, 'payu', 'secondKey', true);
      const header = notification.headers['openpayu-signature'];
      if (header === undefined) throw new NotificationRejectedError('payu notification: no OpenPayu-Signature header');
      const parts = parseSignatureHeader(header);
      const signature = parts.get('signature');
      const algorithm = (parts.get('algorithm') ?? 'MD5').toUpperCase();
      if (signature === undefined) throw new NotificationRejectedError('payu notification: OpenPayu-Signature has no signature');
      const digest = algorithm === 'MD5' ? 'md5' : algorithm === 'SHA-256' || algorithm === 'SHA256' ? 'sha256' : undefined;
      if (digest === undefined) throw new NotificationRejectedError(`payu notification: unsupported signature algorithm`);
      if (!safeEqual(signature.toLowerCase(), digestHex(digest, notification.rawBody + secondKey))) {
        throw new NotificationRejectedError('payu notification: signature does not match');
      }

      const body = parseJsonObject(notification.rawBody);
      const order = asRecord(body.order);
      const reply = { status: 200, contentType: 'application/json', body: '{}' };
      // Refund notifications carry `refund`, not `order`: authentic, nothing for termin to act on.
      if (order === undefined) return { outcome: { kind: 'ignored', reason: 'not an order status notification' }, reply };
      const orderId = stringField(order, 'orderId');
      const extOrderId = stringField(order, 'extOrderId');
      const status = stringField(order, 'status');
      const currency = stringField(order, 'currencyCode');
      const totalAmount = stringField(order, 'totalAmount');
      if (orderId === undefined || extOrderId === undefined || status === undefined || currency === undefined || totalAmount === undefined || !/^\d{1,15}$/.test(totalAmount)) {
        throw new NotificationRejectedError('payu notification: order without orderId, extOrderId, status, currencyCode or totalAmount');
      }
      const paymentUuid = paymentUuidOf(extOrderId);
      let outcome: NotificationOutcome;
      if (status === 'COMPLETED' || status === 'WAITING_FOR_CONFIRMATION') {
        const amount = fromPayuAmount(Number(totalAmount), currency);
        const payment = await expectPayment(lookup, paymentUuid, { amount, currency, gatewayTransactionId: orderId });
        if (payment.gatewayTransactionId === null) throw new NotificationRejectedError('payu notification: no order is stored for this payment');
        // Checked first: an order for a wrong amount or another payment is never captured.
        if (status === 'WAITING_FOR_CONFIRMATION') await withToken(credentials, (authorization) => captureOrder(authorization, orderId));
        outcome = { kind: 'paid', paymentUuid, gatewayTransactionId: orderId, amount, currency: currency.toUpperCase() };
      } else if (status === 'CANCELED') {
        const payment = await lookup(paymentUuid);
        if (payment === null) throw new NotificationRejectedError('payu notification: unknown payment');
        // An earlier attempt's order (its answer lost, nobody sent to it) lapsing says nothing about this payment.
        outcome =
          payment.gatewayTransactionId === orderId
            ? { kind: 'failed', paymentUuid, gatewayTransactionId: orderId }
            : { kind: 'ignored', reason: 'a cancelled order that is not the one stored for the payment' };
      } else {
        outcome = { kind: 'ignored', reason: `order status ${status}` };
      }
      return { outcome, reply };
    },

    async refund(credentials: GatewayCredentials, refund: RefundRequest): Promise<{ refundId: string }> {
      const body = {
        refund: {
          description: refund.reason.slice(0, 100) || 'Refund',
          amount: String(toPayuAmount(refund.amount, refund.currency.toUpperCase())),
          currencyCode: refund.currency.toUpperCase(),
          extRefundId: refund.idempotencyKey,
        },
      };
      const path = `/api/v2_1/orders/${encodeURIComponent(refund.gatewayTransactionId)}/refunds`;
      return withToken(credentials, async (authorization) => {
        const response = await callGateway(http, 'payu', 'refunds', baseUrl, { method: 'POST', path, headers: { authorization }, json: body }, timeoutMs);
        const result = asRecord(response.body);
        const statusCode = stringField(asRecord(result?.status), 'statusCode');
        if (response.status !== 200 || statusCode !== 'SUCCESS') throw failForStatus('payu', 'refunds', response, statusCode);
        const refundId = stringField(asRecord(result?.refund), 'refundId');
        if (refundId === undefined) throw malformedAnswer('payu', 'refunds', 'refund.refundId');
        return { refundId };
      });
    },

    /**
     * The transaction currencies a PayU POS can have (developers.payu.com, Integration
     * References: CHF, CZK, DKK, EUR, GBP, HUF, NOK, PLN, RON, SEK, USD), each in 1/100: every amount fits.
     */
    amountRefusal(_amount: number, currency: string): string | null {
      const code = currency.toUpperCase();
      return ['CHF', 'CZK', 'DKK', 'EUR', 'GBP', 'HUF', 'NOK', 'PLN', 'RON', 'SEK', 'USD'].includes(code) ? null : `PayU does not take payments in ${code}`;
    },
  };
}

/**
 * A fresh extOrderId for each attempt to create the payment's order:
 * `extOrderIdFor('0193b0c2-…')` → `'0193b0c2-…_9f86d081'`.
 */
export function extOrderIdFor(paymentUuid: string): string {
  return `${paymentUuid}_${randomBytes(4).toString('hex')}`;
}

/**
 * The payment an extOrderId belongs to: `'0193b0c2-…_9f86d081'` → `'0193b0c2-…'`; a bare
 * payment uuid (orders created before per-attempt ids) maps to itself.
 */
export function paymentUuidOf(extOrderId: string): string {
  const separator = extOrderId.lastIndexOf('_');
  return separator < 0 ? extOrderId : extOrderId.slice(0, separator);
}

/** PayU's lowest unit is 1/100 for every currency it takes, HUF included ("multiply by 100"). */
function toPayuAmount(amount: number, currency: string): number {
  try {
    return rescaleMinorUnits(amount, currencyExponent(currency), payuExponent(currency));
  } catch (error) {
    throw new GatewayError(`payu: ${error instanceof Error ? error.message : 'amount not expressible'}`, false);
  }
}

function fromPayuAmount(amount: number, currency: string): number {
  try {
    return rescaleMinorUnits(amount, payuExponent(currency), currencyExponent(currency));
  } catch {
    throw new NotificationRejectedError('payu notification: amount not expressible in the currency');
  }
}

function payuExponent(currency: string): number {
  return currency.toUpperCase() === 'HUF' ? 2 : currencyExponent(currency);
}

/** `sender=checkout;signature=abc;algorithm=MD5;content=DOCUMENT` → a map of its parts. */
export function parseSignatureHeader(header: string): Map<string, string> {
  const parts = new Map<string, string>();
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index > 0) parts.set(part.slice(0, index).trim().toLowerCase(), part.slice(index + 1).trim());
  }
  return parts;
}
