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
  basicAuth,
  callGateway,
  DEFAULT_GATEWAY_TIMEOUT_MS,
  failForStatus,
  malformedAnswer,
  requireSetting,
  stringField,
  createOAuthSession,
  type GatewayResponse,
} from './http.js';
import { expectPayment, parseJsonObject } from './notification-checks.js';
import { currencyExponent, formatWithExponent, MoneyFormatError, parseWithExponent, rescaleMinorUnits } from '../domain/money.js';
import type { Lang } from '../domain/lang.js';

/** PayPal's checkout speaks a language with its country (BCP 47 `ll-CC`); one per language termin speaks. */
const PAYPAL_LOCALES: Record<Lang, string> = { en: 'en-US', pl: 'pl-PL', de: 'de-DE', uk: 'uk-UA', es: 'es-ES', fr: 'fr-FR' };

/**
 * PayPal REST (developer.paypal.com): OAuth `POST /v1/oauth2/token` (Basic clientId:secret,
 * grant_type=client_credentials); Orders v2 `POST /v2/checkout/orders` (intent CAPTURE,
 * `PayPal-Request-Id` for idempotency, return/cancel URLs in
 * `payment_source.paypal.experience_context`) → the `payer-action` link (`approve` for
 * integrations without payment_source); `POST /v2/checkout/orders/{id}/capture` when the
 * participant returns; webhooks authenticated by `POST /v1/notifications/verify-webhook-signature`
 * (`verification_status: SUCCESS`); refunds `POST /v2/payments/captures/{id}/refund`.
 *
 * Amounts are decimal strings. PayPal documents HUF, JPY and TWD as taking no decimals, so
 * those are sent as whole units (and refused when they are not whole).
 */
export function createPaypalAdapter(options: { baseUrl: string; timeoutMs?: number; http: VendorHttp }): GatewayAdapter {
  const http = options.http;
  const { baseUrl } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_GATEWAY_TIMEOUT_MS;
  const withToken = createOAuthSession({
    http,
    gateway: 'paypal',
    operation: 'oauth2/token',
    baseUrl,
    timeoutMs,
    tokenRequest: (clientId, clientSecret) => ({
      method: 'POST',
      path: '/v1/oauth2/token',
      headers: { authorization: basicAuth(clientId, clientSecret) },
      form: { grant_type: 'client_credentials' },
    }),
    failure: (response) => failForStatus('paypal', 'oauth2/token', response, stringField(asRecord(response.body), 'error')),
  });

  function fail(operation: string, response: GatewayResponse): GatewayError {
    const body = asRecord(response.body);
    const issue = stringField(asRecord((body?.details as unknown[] | undefined)?.[0]), 'issue');
    return failForStatus('paypal', operation, response, issue ?? stringField(body, 'name'));
  }

  async function capture(credentials: GatewayCredentials, orderId: string, requestId: string) {
    return withToken(credentials, async (authorization) => {
      const path = `/v2/checkout/orders/${encodeURIComponent(orderId)}/capture`;
      const response = await callGateway(
        http,
        'paypal',
        'orders capture',
        baseUrl,
        { method: 'POST', path, headers: { authorization, 'paypal-request-id': requestId, prefer: 'return=representation' }, rawJson: '{}' },
        timeoutMs,
      );
      // Already captured (a second return, or the webhook won the race): read the order instead.
      if (response.status === 422 && stringField(asRecord((asRecord(response.body)?.details as unknown[] | undefined)?.[0]), 'issue') === 'ORDER_ALREADY_CAPTURED') {
        return getOrder(authorization, orderId);
      }
      if (response.status !== 201 && response.status !== 200) throw fail('orders capture', response);
      return asRecord(response.body);
    });
  }

  async function getOrder(authorization: string, orderId: string) {
    const response = await callGateway(
      http,
      'paypal',
      'orders get',
      baseUrl,
      { method: 'GET', path: `/v2/checkout/orders/${encodeURIComponent(orderId)}`, headers: { authorization } },
      timeoutMs,
    );
    if (response.status !== 200) throw fail('orders get', response);
    return asRecord(response.body);
  }

  return {
    code: 'paypal',

    async createTransaction(credentials: GatewayCredentials, order: PaymentOrder): Promise<CreatedTransaction> {
      const currency = order.currency.toUpperCase();
      const body = {
        intent: 'CAPTURE',
        purchase_units: [
          {
            reference_id: order.paymentUuid,
            custom_id: order.paymentUuid,
            description: order.description.slice(0, 127),
            amount: { currency_code: currency, value: toPaypalValue(order.amount, currency) },
          },
        ],
        payment_source: {
          paypal: {
            email_address: order.customer.email,
            experience_context: {
              return_url: order.returnUrl,
              cancel_url: order.returnUrl,
              user_action: 'PAY_NOW',
              shipping_preference: 'NO_SHIPPING',
              locale: PAYPAL_LOCALES[order.customer.lang],
            },
          },
        },
      };
      return withToken(credentials, async (authorization) => {
        const response = await callGateway(
          http,
          'paypal',
          'orders create',
          baseUrl,
          { method: 'POST', path: '/v2/checkout/orders', headers: { authorization, 'paypal-request-id': `create-${order.paymentUuid}` }, json: body },
          timeoutMs,
        );
        if (response.status !== 200 && response.status !== 201) throw fail('orders create', response);
        const result = asRecord(response.body);
        const id = stringField(result, 'id');
        const links = Array.isArray(result?.links) ? (result.links as unknown[]).map(asRecord) : [];
        const link = links.find((l) => l?.rel === 'payer-action') ?? links.find((l) => l?.rel === 'approve');
        const href = stringField(link, 'href');
        if (id === undefined || href === undefined) throw malformedAnswer('paypal', 'orders create', 'id and payer-action link');
        return { gatewayTransactionId: id, redirectUrl: href };
      });
    },

    async completeOnReturn(credentials, payment, query): Promise<NotificationOutcome | null> {
      // PayPal appends ?token={orderId}&PayerID=… on approval; a cancelled approval has no PayerID.
      if (query.token !== payment.gatewayTransactionId || query.PayerID === undefined) return null;
      const captured = await capture(credentials, payment.gatewayTransactionId, `capture-${payment.paymentUuid}`);
      const captureRecord = firstCapture(captured);
      const status = stringField(captureRecord, 'status');
      if (status === 'COMPLETED') {
        const amount = asRecord(captureRecord?.amount);
        const currency = stringField(amount, 'currency_code');
        const value = stringField(amount, 'value');
        if (currency === undefined || value === undefined) throw malformedAnswer('paypal', 'orders capture', 'capture amount');
        const minor = fromPaypalValue(value, currency);
        if (minor !== payment.amount || currency.toUpperCase() !== payment.currency.toUpperCase()) {
          throw new NotificationRejectedError(`paypal capture: captured ${value} ${currency}, the payment expects another amount`);
        }
        return { kind: 'paid', paymentUuid: payment.paymentUuid, gatewayTransactionId: payment.gatewayTransactionId, amount: minor, currency: currency.toUpperCase() };
      }
      if (status === 'DECLINED' || status === 'FAILED') return { kind: 'failed', paymentUuid: payment.paymentUuid, gatewayTransactionId: payment.gatewayTransactionId };
      return null;
    },

    async verifyNotification(credentials: GatewayCredentials, notification: IncomingNotification, lookup: PaymentLookup): Promise<VerifiedNotification> {
      const webhookId = requireSetting(credentials, 'paypal', 'webhookId');
      const header = (name: string): string => {
        const value = notification.headers[name];
        if (value === undefined || value === '') throw new NotificationRejectedError(`paypal webhook: no ${name} header`);
        return value;
      };
      const verification = {
        auth_algo: header('paypal-auth-algo'),
        cert_url: header('paypal-cert-url'),
        transmission_id: header('paypal-transmission-id'),
        transmission_sig: header('paypal-transmission-sig'),
        transmission_time: header('paypal-transmission-time'),
        webhook_id: webhookId,
      };
      const event = parseJsonObject(notification.rawBody);
      // The event goes back to PayPal as received: spliced in as raw text, not re-serialised,
      // so number formatting or key order cannot change what PayPal verifies.
      const rawJson = `${JSON.stringify(verification).slice(0, -1)},"webhook_event":${notification.rawBody.trim()}}`;
      const verified = await withToken(credentials, async (authorization) => {
        const response = await callGateway(
          http,
          'paypal',
          'verify-webhook-signature',
          baseUrl,
          { method: 'POST', path: '/v1/notifications/verify-webhook-signature', headers: { authorization }, rawJson },
          timeoutMs,
        );
        if (response.status !== 200) throw fail('verify-webhook-signature', response);
        return stringField(asRecord(response.body), 'verification_status');
      });
      if (verified !== 'SUCCESS') throw new NotificationRejectedError('paypal webhook: PayPal did not confirm the signature');

      const reply = { status: 200, contentType: 'text/plain; charset=utf-8', body: '' };
      const eventType = stringField(event, 'event_type');
      const resource = asRecord(event.resource);
      if (eventType !== 'PAYMENT.CAPTURE.COMPLETED' && eventType !== 'PAYMENT.CAPTURE.DENIED') {
        return { outcome: { kind: 'ignored', reason: `event ${eventType ?? 'without a type'}` }, reply };
      }
      const paymentUuid = stringField(resource, 'custom_id');
      const orderId = stringField(asRecord(asRecord(resource?.supplementary_data)?.related_ids), 'order_id');
      if (paymentUuid === undefined || orderId === undefined) throw new NotificationRejectedError('paypal webhook: capture without custom_id or order id');
      if (eventType === 'PAYMENT.CAPTURE.DENIED') {
        if ((await lookup(paymentUuid)) === null) throw new NotificationRejectedError('paypal webhook: unknown payment');
        return { outcome: { kind: 'failed', paymentUuid, gatewayTransactionId: orderId }, reply };
      }
      const amount = asRecord(resource?.amount);
      const currency = stringField(amount, 'currency_code');
      const value = stringField(amount, 'value');
      if (currency === undefined || value === undefined) throw new NotificationRejectedError('paypal webhook: capture without amount');
      let minor: number;
      try {
        minor = fromPaypalValue(value, currency);
      } catch {
        throw new NotificationRejectedError('paypal webhook: malformed amount');
      }
      await expectPayment(lookup, paymentUuid, { amount: minor, currency, gatewayTransactionId: orderId });
      return { outcome: { kind: 'paid', paymentUuid, gatewayTransactionId: orderId, amount: minor, currency: currency.toUpperCase() }, reply };
    },

    async refund(credentials: GatewayCredentials, refund: RefundRequest): Promise<{ refundId: string }> {
      const currency = refund.currency.toUpperCase();
      return withToken(credentials, async (authorization) => {
        // termin holds the order id; the refund is of the order's capture.
        const order = await getOrder(authorization, refund.gatewayTransactionId);
        const captureId = stringField(firstCapture(order), 'id');
        if (captureId === undefined) throw new GatewayError('paypal refund: the order has no capture to refund', false);
        const body = { amount: { currency_code: currency, value: toPaypalValue(refund.amount, currency) }, note_to_payer: refund.reason.slice(0, 255) };
        const path = `/v2/payments/captures/${encodeURIComponent(captureId)}/refund`;
        const response = await callGateway(
          http,
          'paypal',
          'captures refund',
          baseUrl,
          { method: 'POST', path, headers: { authorization, 'paypal-request-id': refund.idempotencyKey }, json: body },
          timeoutMs,
        );
        if (response.status !== 201 && response.status !== 200) throw fail('captures refund', response);
        const refundId = stringField(asRecord(response.body), 'id');
        if (refundId === undefined) throw malformedAnswer('paypal', 'captures refund', 'id');
        return { refundId };
      });
    },

    amountRefusal(amount: number, currency: string): string | null {
      const code = currency.toUpperCase();
      if (!PAYPAL_CURRENCIES.has(code)) return `PayPal does not take payments in ${code}`;
      const exponent = paypalExponent(code);
      if (amount % 10 ** (currencyExponent(code) - exponent) !== 0) return `PayPal takes ${code} in whole units only (no decimals)`;
      return null;
    },
  };
}

/**
 * The currencies PayPal takes payments in (developer.paypal.com/reference/currency-codes/,
 * "PayPal-supported currencies"); BRL, CNY and MYR only for PayPal accounts in that country,
 * which termin cannot see, so they are offered.
 */
const PAYPAL_CURRENCIES = new Set([
  'AUD',
  'BRL',
  'CAD',
  'CNY',
  'CZK',
  'DKK',
  'EUR',
  'HKD',
  'HUF',
  'ILS',
  'JPY',
  'MYR',
  'MXN',
  'TWD',
  'NZD',
  'NOK',
  'PHP',
  'PLN',
  'GBP',
  'SGD',
  'SEK',
  'CHF',
  'THB',
  'USD',
]);
/** "This currency does not support decimals. If you pass a decimal amount, an error occurs." (same page). */
const PAYPAL_WHOLE_UNIT_CURRENCIES = new Set(['HUF', 'JPY', 'TWD']);

function paypalExponent(currency: string): number {
  return PAYPAL_WHOLE_UNIT_CURRENCIES.has(currency.toUpperCase()) ? 0 : currencyExponent(currency);
}

/** 15000 PLN → "150.00"; 1500 JPY → "1500"; 15000 TWD → "150" (PayPal takes no TWD decimals). */
export function toPaypalValue(amount: number, currency: string): string {
  try {
    const exponent = paypalExponent(currency);
    return formatWithExponent(rescaleMinorUnits(amount, currencyExponent(currency), exponent), exponent);
  } catch (error) {
    if (error instanceof MoneyFormatError) throw new GatewayError(`paypal: ${error.message}`, false);
    throw error;
  }
}

export function fromPaypalValue(value: string, currency: string): number {
  return rescaleMinorUnits(parseWithExponent(value, paypalExponent(currency)), paypalExponent(currency), currencyExponent(currency));
}

function firstCapture(order: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const unit = asRecord((order?.purchase_units as unknown[] | undefined)?.[0]);
  return asRecord((asRecord(unit?.payments)?.captures as unknown[] | undefined)?.[0]);
}
