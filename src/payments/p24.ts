import type { VendorHttp } from '../net/vendor-http.js';
import {
  type CreatedTransaction,
  type GatewayAdapter,
  type GatewayCredentials,
  type IncomingNotification,
  type PaymentOrder,
  type RefundRequest,
  type VerifiedNotification,
  GatewayError,
  NotificationRejectedError,
  type PaymentLookup,
} from './gateway.js';
import { asRecord, basicAuth, callGateway, DEFAULT_GATEWAY_TIMEOUT_MS, digestHex, failForStatus, malformedAnswer, requireSetting, safeEqual, stringField } from './http.js';
import { expectPayment, parseJsonObject } from './notification-checks.js';

/**
 * Przelewy24 REST API (developers.przelewy24.pl, "Transaction service API"):
 * - `POST /api/v1/transaction/register` with HTTP Basic posId:apiKey and a `sign` =
 *   sha384 of the JSON `{"sessionId","merchantId","amount","currency","crc"}` → `data.token`;
 *   the participant goes to `/trnRequest/{token}`.
 * - P24 POSTs a JSON notification to `urlStatus` with `sign` = sha384 of
 *   `{"merchantId","posId","sessionId","amount","originAmount","currency","orderId","methodId","statement","crc"}`.
 * - Money counts only after `PUT /api/v1/transaction/verify` with `sign` = sha384 of
 *   `{"sessionId","orderId","amount","currency","crc"}`; P24 keeps re-sending the notification
 *   until a verification succeeds, so the reply body itself carries no meaning.
 * - Refunds: `POST /api/v1/transaction/refund` (201, `data[].status` per refund). A request
 *   whose `requestId` P24 has seen is answered 400 "Request already exists" (the refund was
 *   created: a retry after a lost answer) or 400 "Concurrent call" (the first request is still
 *   in flight); `GET /api/v1/refund/by/orderId/{orderId}` lists the order's refunds with their
 *   `requestId` and status (1 completed, 2 pending, 3 awaiting P24's acceptance, 4 rejected).
 *
 * Signed JSON is built with the documented key order and JSON.stringify, which escapes
 * neither "/" nor non-ASCII characters, as P24's JSON_UNESCAPED_UNICODE|JSON_UNESCAPED_SLASHES.
 */
export function createP24Adapter(options: { baseUrl: string; timeoutMs?: number; http: VendorHttp }): GatewayAdapter {
  const http = options.http;
  const { baseUrl } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_GATEWAY_TIMEOUT_MS;

  function account(credentials: GatewayCredentials) {
    const merchantId = Number(requireSetting(credentials, 'p24', 'merchantId'));
    const posId = Number(requireSetting(credentials, 'p24', 'posId'));
    const apiKey = requireSetting(credentials, 'p24', 'apiKey', true);
    const crc = requireSetting(credentials, 'p24', 'crc', true);
    return { merchantId, posId, crc, authorization: basicAuth(String(posId), apiKey) };
  }

  function errorCode(body: unknown): string | undefined {
    const record = asRecord(body);
    const error = record?.error;
    return typeof error === 'string' ? error : undefined;
  }

  /**
   * Refunds need P24's orderId. The paid outcome reports it as the gateway transaction id;
   * if termin still holds the registration token instead, `GET /api/v1/transaction/by/sessionId/{sessionId}`
   * finds it.
   */
  async function findOrderId(authorization: string, refund: RefundRequest): Promise<number> {
    if (/^\d{1,15}$/.test(refund.gatewayTransactionId)) return Number(refund.gatewayTransactionId);
    const path = `/api/v1/transaction/by/sessionId/${encodeURIComponent(refund.paymentUuid)}`;
    const response = await callGateway(http, 'p24', 'transaction/by/sessionId', baseUrl, { method: 'GET', path, headers: { authorization } }, timeoutMs);
    if (response.status !== 200) throw failForStatus('p24', 'transaction/by/sessionId', response, errorCode(response.body));
    const orderId = asRecord(asRecord(response.body)?.data)?.orderId;
    if (typeof orderId !== 'number' || !Number.isSafeInteger(orderId)) throw malformedAnswer('p24', 'transaction/by/sessionId', 'data.orderId');
    return orderId;
  }

  /**
   * P24 says a refund under this requestId already exists: the answer to an earlier attempt
   * was lost. It counts as made only once P24 lists it under that requestId, for this amount
   * and not rejected, so the operator is never told to refund by hand what P24 refunded.
   */
  async function confirmRefundExists(authorization: string, orderId: number, requestKey: string, amount: number): Promise<void> {
    const operation = 'refund/by/orderId';
    const response = await callGateway(http, 'p24', operation, baseUrl, { method: 'GET', path: `/api/v1/refund/by/orderId/${orderId}`, headers: { authorization } }, timeoutMs);
    // Not listed (yet): try again later rather than call a made refund failed.
    if (response.status === 404) throw new GatewayError(`p24 ${operation}: the refund P24 says exists is not listed yet`, true, response.status);
    if (response.status !== 200) throw failForStatus('p24', operation, response, errorCode(response.body));
    const listed = asRecord(asRecord(response.body)?.data)?.refunds;
    if (!Array.isArray(listed)) throw malformedAnswer('p24', operation, 'data.refunds');
    const ours = listed.map(asRecord).filter((entry) => stringField(entry, 'requestId') === requestKey);
    if (ours.length === 0) throw new GatewayError(`p24 ${operation}: the refund P24 says exists is not listed yet`, true, response.status);
    if (ours.some((entry) => entry?.status === 4)) throw new GatewayError('p24 transaction/refund: P24 rejected the refund', false);
    const listedAmount = ours.reduce((sum, entry) => sum + (typeof entry?.amount === 'number' ? entry.amount : Number.NaN), 0);
    if (listedAmount !== amount) throw new GatewayError(`p24 ${operation}: the refund under this request is listed for another amount`, false);
  }

  return {
    code: 'p24',

    async createTransaction(credentials: GatewayCredentials, order: PaymentOrder): Promise<CreatedTransaction> {
      const { merchantId, posId, crc, authorization } = account(credentials);
      const currency = order.currency.toUpperCase();
      const minutesLeft = Math.ceil((order.expiresAt - Date.now()) / 60_000);
      const body = {
        merchantId,
        posId,
        sessionId: order.paymentUuid,
        amount: order.amount,
        currency,
        description: order.description.slice(0, 1024),
        email: order.customer.email,
        client: order.customer.name.slice(0, 40),
        country: 'PL',
        language: order.customer.lang,
        urlReturn: order.returnUrl,
        urlStatus: order.notifyUrl,
        // Minutes, 1..99 (0 would mean "no limit"): the page closes when the hold lapses.
        timeLimit: Math.min(99, Math.max(1, minutesLeft)),
        sign: p24Sign({ sessionId: order.paymentUuid, merchantId, amount: order.amount, currency, crc }),
      };
      const response = await callGateway(
        http,
        'p24',
        'transaction/register',
        baseUrl,
        { method: 'POST', path: '/api/v1/transaction/register', headers: { authorization }, json: body },
        timeoutMs,
      );
      if (response.status !== 200) throw failForStatus('p24', 'transaction/register', response, errorCode(response.body));
      const token = stringField(asRecord(asRecord(response.body)?.data), 'token');
      if (token === undefined || !/^[\w-]+$/.test(token)) throw malformedAnswer('p24', 'transaction/register', 'data.token');
      return { gatewayTransactionId: token, redirectUrl: `${baseUrl}/trnRequest/${token}` };
    },

    async verifyNotification(credentials: GatewayCredentials, notification: IncomingNotification, lookup: PaymentLookup): Promise<VerifiedNotification> {
      const { merchantId, posId, crc, authorization } = account(credentials);
      const body = parseJsonObject(notification.rawBody);
      const field = {
        merchantId: integerField(body, 'merchantId'),
        posId: integerField(body, 'posId'),
        sessionId: textField(body, 'sessionId'),
        amount: integerField(body, 'amount'),
        originAmount: integerField(body, 'originAmount'),
        currency: textField(body, 'currency'),
        orderId: integerField(body, 'orderId'),
        methodId: integerField(body, 'methodId'),
        statement: textField(body, 'statement'),
      };
      const sign = textField(body, 'sign');
      if (!safeEqual(sign.toLowerCase(), p24Sign({ ...field, crc }))) throw new NotificationRejectedError('p24 notification: sign does not match');
      if (field.merchantId !== merchantId || field.posId !== posId) throw new NotificationRejectedError('p24 notification: for another merchant or shop');
      // Checked before transaction/verify: P24 must never hear that a wrong amount is accepted.
      await expectPayment(lookup, field.sessionId, { amount: field.amount, currency: field.currency });
      if (field.originAmount !== field.amount) throw new NotificationRejectedError('p24 notification: paid amount differs from the registered one');

      const verify = {
        merchantId,
        posId,
        sessionId: field.sessionId,
        amount: field.amount,
        currency: field.currency,
        orderId: field.orderId,
        sign: p24Sign({ sessionId: field.sessionId, orderId: field.orderId, amount: field.amount, currency: field.currency, crc }),
      };
      const response = await callGateway(
        http,
        'p24',
        'transaction/verify',
        baseUrl,
        { method: 'PUT', path: '/api/v1/transaction/verify', headers: { authorization }, json: verify },
        timeoutMs,
      );
      if (response.status !== 200) throw failForStatus('p24', 'transaction/verify', response, errorCode(response.body));
      const status = stringField(asRecord(asRecord(response.body)?.data), 'status');
      if (status !== 'success') throw new GatewayError('p24 transaction/verify: verification not confirmed', false, response.status);
      return {
        // The P24 order id is what refunds need; the token stays the id of the created transaction.
        outcome: { kind: 'paid', paymentUuid: field.sessionId, gatewayTransactionId: String(field.orderId), amount: field.amount, currency: field.currency.toUpperCase() },
        reply: { status: 200, contentType: 'text/plain; charset=utf-8', body: 'OK' },
      };
    },

    async refund(credentials: GatewayCredentials, refund: RefundRequest): Promise<{ refundId: string }> {
      const { authorization } = account(credentials);
      const orderId = await findOrderId(authorization, refund);
      // requestId ≤ 45 and refundsUuid ≤ 35 characters; the idempotency key (a uuid) fits both once its dashes go.
      const requestKey = refund.idempotencyKey.replace(/-/g, '').slice(0, 35);
      const body = {
        requestId: requestKey,
        refunds: [{ orderId, sessionId: refund.paymentUuid, amount: refund.amount, description: refund.reason.slice(0, 35) }],
        refundsUuid: requestKey,
      };
      const response = await callGateway(
        http,
        'p24',
        'transaction/refund',
        baseUrl,
        { method: 'POST', path: '/api/v1/transaction/refund', headers: { authorization }, json: body },
        timeoutMs,
      );
      const code = errorCode(response.body);
      if (response.status === 400 && code === 'Request already exists') {
        await confirmRefundExists(authorization, orderId, requestKey, refund.amount);
        return { refundId: requestKey };
      }
      // The same request is still in flight: its own answer settles it; this attempt waits and sees.
      if (response.status === 400 && code === 'Concurrent call') throw new GatewayError('p24 transaction/refund: HTTP 400 (Concurrent call)', true, response.status);
      if (response.status !== 201) throw failForStatus('p24', 'transaction/refund', response, code);
      const first = asRecord((asRecord(response.body)?.data as unknown[] | undefined)?.[0]);
      if (first?.status !== true) throw new GatewayError('p24 transaction/refund: refund refused', false, response.status);
      return { refundId: requestKey };
    },

    /** P24's REST API (transaction/register `currency`) takes PLN, EUR, GBP and CZK, each in 1/100: every amount fits. */
    amountRefusal(_amount: number, currency: string): string | null {
      const code = currency.toUpperCase();
      return ['PLN', 'EUR', 'GBP', 'CZK'].includes(code) ? null : `Przelewy24 takes PLN, EUR, GBP and CZK only, not ${code}`;
    },
  };
}

/** sha384 hex of the fields as a JSON object, in the order given (the order P24 documents). */
export function p24Sign(fields: Record<string, string | number>): string {
  return digestHex('sha384', JSON.stringify(fields));
}

function integerField(body: Record<string, unknown>, name: string): number {
  const value = body[name];
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new NotificationRejectedError(`p24 notification: ${name} missing or not an integer`);
  return value;
}

function textField(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value !== 'string') throw new NotificationRejectedError(`p24 notification: ${name} missing`);
  return value;
}
