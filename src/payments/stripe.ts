import Stripe from 'stripe';
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
import { DEFAULT_GATEWAY_TIMEOUT_MS, digestHex, requireSetting } from './http.js';
import { expectPayment } from './notification-checks.js';
import { currencyExponent, MoneyFormatError, rescaleMinorUnits } from '../domain/money.js';

/**
 * Stripe through its official SDK, pointed at the configured base URL. Checkout Sessions
 * (`POST /v1/checkout/sessions`) carry the payment uuid as `client_reference_id` and
 * `metadata.paymentUuid`; webhooks are checked with `stripe.webhooks.constructEvent`
 * (HMAC-SHA256 `Stripe-Signature`, 5-minute tolerance); refunds go to the session's
 * PaymentIntent (`POST /v1/refunds`).
 *
 * A session is created under the idempotency key of its creation attempt: the payment uuid,
 * then `uuid:1`, `uuid:2`… Stripe "saves the status code and body of the first request made
 * with a given idempotency key … including 500 errors", and answers a key reused with other
 * parameters with an `idempotency_error` (docs.stripe.com/api/idempotent_requests). So every
 * parameter comes from the order and its stored attempt (`expires_at` from the attempt's
 * start, not the clock): a try repeated after a lost answer is the same request and gets the
 * session Stripe made. An answer Stripe will repeat for good — a 5xx, an idempotency error,
 * or an `expires_at` that no longer fits because the attempt never reached Stripe and is now
 * too old — spends the attempt, and the next try is a new one.
 *
 * Stripe's amounts are in "the currency's smallest unit" with its own table of exceptions
 * (docs.stripe.com/currencies): the zero-decimal list below is sent as whole units, the
 * three-decimal currencies must end in 0, and everything else is two-decimal for Stripe,
 * ISK included where ISO 4217 says 0 (5 ISK is sent as 500).
 * The SDK makes no retries of its own (beyond its one retry of a closed connection, with the
 * same key): a failed refund surfaces as a retryable GatewayError and the durable queue
 * retries it with the same idempotency key.
 */
const STRIPE_ZERO_DECIMAL = new Set(['BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF']);
const STRIPE_THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);
/**
 * Stripe's presentment currencies: the ones a Checkout Session may charge in (docs.stripe.com/
 * currencies, "Supported presentment currencies", three-decimal ones included), less codes
 * ISO 4217 has withdrawn (termin prices only in active ones).
 */
const STRIPE_CURRENCIES = new Set(
  (
    'USD AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BHD BIF BMD BND BOB BRL BSD BWP BYN BZD CAD CDF CHF CLP CNY COP CRC CVE CZK DJF DKK ' +
    'DOP DZD EGP ETB EUR FJD FKP GBP GEL GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR ISK JMD JOD JPY KES KGS KHR KMF KRW KWD KYD KZT LAK LBP ' +
    'LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF ' +
    'SAR SBD SCR SEK SGD SHP SLE SOS SRD SZL THB TJS TND TOP TRY TTD TWD TZS UAH UGX UYU UZS VND VUV WST XAF XCD XOF XPF YER ZAR ZMW'
  ).split(' '),
);

/** Checkout Sessions must expire between 30 minutes and 24 hours after creation. */
const MIN_SESSION_SECONDS = 30 * 60;
const MAX_SESSION_SECONDS = 24 * 60 * 60;

export function createStripeAdapter(options: { baseUrl: string; timeoutMs?: number }): GatewayAdapter {
  const url = new URL(options.baseUrl);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  const timeout = options.timeoutMs ?? DEFAULT_GATEWAY_TIMEOUT_MS;
  const clients = new Map<string, Stripe>();

  function client(secretKey: string): Stripe {
    const key = digestHex('sha256', secretKey);
    let stripe = clients.get(key);
    if (stripe === undefined) {
      stripe = new Stripe(secretKey, {
        host: url.hostname,
        port: url.port === '' ? (protocol === 'http' ? 80 : 443) : Number(url.port),
        protocol,
        timeout,
        maxNetworkRetries: 0,
        telemetry: false,
      });
      clients.set(key, stripe);
    }
    return stripe;
  }

  return {
    code: 'stripe',

    async createTransaction(credentials: GatewayCredentials, order: PaymentOrder): Promise<CreatedTransaction> {
      const stripe = client(requireSetting(credentials, 'stripe', 'secretKey', true));
      const startedAt = Math.floor(order.attempt.startedAt / 1000);
      // The hold may lapse sooner than Stripe's 30-minute floor; a late payment is handled by termin (confirmed if free, else refunded).
      const expiresAt = Math.min(Math.max(Math.ceil(order.expiresAt / 1000), startedAt + MIN_SESSION_SECONDS + 60), startedAt + MAX_SESSION_SECONDS - 60);
      const idempotencyKey = order.attempt.number === 0 ? order.paymentUuid : `${order.paymentUuid}:${order.attempt.number}`;
      const session = await call('checkout.sessions.create', () =>
        stripe.checkout.sessions.create(
          {
            mode: 'payment',
            line_items: [
              {
                quantity: 1,
                price_data: { currency: order.currency.toLowerCase(), unit_amount: toStripeAmount(order.amount, order.currency), product_data: { name: order.description } },
              },
            ],
            client_reference_id: order.paymentUuid,
            metadata: { paymentUuid: order.paymentUuid, accountUuid: order.accountUuid },
            payment_intent_data: { metadata: { paymentUuid: order.paymentUuid } },
            customer_email: order.customer.email,
            locale: order.customer.lang,
            success_url: order.returnUrl,
            cancel_url: order.returnUrl,
            expires_at: expiresAt,
          },
          { idempotencyKey },
        ),
      );
      if (session.url === null || session.url === undefined) throw new GatewayError('stripe checkout.sessions.create: answer without url', false);
      return { gatewayTransactionId: session.id, redirectUrl: session.url };
    },

    async verifyNotification(credentials: GatewayCredentials, notification: IncomingNotification, lookup: PaymentLookup): Promise<VerifiedNotification> {
      const stripe = client(requireSetting(credentials, 'stripe', 'secretKey', true));
      const webhookSecret = requireSetting(credentials, 'stripe', 'webhookSecret', true);
      const signature = notification.headers['stripe-signature'];
      if (signature === undefined) throw new NotificationRejectedError('stripe webhook: no Stripe-Signature header');
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(notification.rawBody, signature, webhookSecret);
      } catch {
        throw new NotificationRejectedError('stripe webhook: signature does not verify');
      }
      const reply = { status: 200, contentType: 'application/json', body: '{"received":true}' };
      let outcome: NotificationOutcome;
      switch (event.type) {
        case 'checkout.session.completed':
        case 'checkout.session.async_payment_succeeded': {
          const session = event.data.object;
          if (session.payment_status !== 'paid') {
            outcome = { kind: 'ignored', reason: `checkout session ${session.payment_status}` };
            break;
          }
          const paymentUuid = sessionPaymentUuid(session);
          if (session.amount_total === null || session.currency === null) throw new NotificationRejectedError('stripe webhook: session without amount');
          const currency = session.currency.toUpperCase();
          const amount = fromStripeAmount(session.amount_total, currency);
          await expectPayment(lookup, paymentUuid, { amount, currency, gatewayTransactionId: session.id });
          outcome = { kind: 'paid', paymentUuid, gatewayTransactionId: session.id, amount, currency };
          break;
        }
        case 'checkout.session.async_payment_failed': {
          const session = event.data.object;
          const paymentUuid = sessionPaymentUuid(session);
          if ((await lookup(paymentUuid)) === null) throw new NotificationRejectedError('stripe webhook: unknown payment');
          outcome = { kind: 'failed', paymentUuid, gatewayTransactionId: session.id };
          break;
        }
        default:
          outcome = { kind: 'ignored', reason: `event ${event.type}` };
      }
      return { outcome, reply };
    },

    async refund(credentials: GatewayCredentials, refund: RefundRequest): Promise<{ refundId: string }> {
      const stripe = client(requireSetting(credentials, 'stripe', 'secretKey', true));
      const session = await call('checkout.sessions.retrieve', () => stripe.checkout.sessions.retrieve(refund.gatewayTransactionId));
      const paymentIntent = typeof session.payment_intent === 'string' ? session.payment_intent : session.payment_intent?.id;
      if (paymentIntent === undefined) throw new GatewayError('stripe refunds.create: the session has no payment to refund', false);
      const created = await call('refunds.create', () =>
        stripe.refunds.create(
          { payment_intent: paymentIntent, amount: toStripeAmount(refund.amount, refund.currency), reason: 'requested_by_customer', metadata: { paymentUuid: refund.paymentUuid } },
          { idempotencyKey: refund.idempotencyKey },
        ),
      );
      return { refundId: created.id };
    },

    amountRefusal(amount: number, currency: string): string | null {
      return stripeAmountRefusal(amount, currency.toUpperCase());
    },
  };
}

/**
 * Why Stripe cannot charge `amount` (termin's minor units) in `code`: a currency it does not
 * present, a zero-decimal currency (for Stripe) given a fraction (MGA is two-decimal in
 * ISO 4217), or a three-decimal amount whose last digit is not 0 ("to ensure compatibility
 * with Stripe's payments partners … the least-significant (last) digit [must] be 0").
 */
function stripeAmountRefusal(amount: number, code: string): string | null {
  if (!STRIPE_CURRENCIES.has(code)) return `Stripe does not take payments in ${code}`;
  const surplus = currencyExponent(code) - stripeExponent(code);
  if (surplus > 0 && amount % 10 ** surplus !== 0) return `Stripe takes ${code} in whole units only`;
  if (STRIPE_THREE_DECIMAL.has(code) && rescaleMinorUnits(amount, currencyExponent(code), 3) % 10 !== 0) return `Stripe takes ${code} amounts whose third decimal is 0`;
  return null;
}

function sessionPaymentUuid(session: Stripe.Checkout.Session): string {
  const paymentUuid = session.client_reference_id ?? session.metadata?.paymentUuid;
  if (paymentUuid === undefined || paymentUuid === null) throw new NotificationRejectedError('stripe webhook: session without client_reference_id');
  return paymentUuid;
}

export function stripeExponent(currency: string): number {
  const code = currency.toUpperCase();
  return STRIPE_ZERO_DECIMAL.has(code) ? 0 : STRIPE_THREE_DECIMAL.has(code) ? 3 : 2;
}

/** termin's minor units → Stripe's: 1500 JPY → 1500, 5 ISK → 500, 15000 PLN → 15000. */
export function toStripeAmount(amount: number, currency: string): number {
  try {
    const code = currency.toUpperCase();
    const stripeAmount = rescaleMinorUnits(amount, currencyExponent(code), stripeExponent(code));
    if (STRIPE_THREE_DECIMAL.has(code) && stripeAmount % 10 !== 0) throw new MoneyFormatError(`Stripe needs ${code} amounts ending in 0, got ${stripeAmount}`);
    return stripeAmount;
  } catch (error) {
    if (error instanceof MoneyFormatError) throw new GatewayError(`stripe: ${error.message}`, false);
    throw error;
  }
}

export function fromStripeAmount(amount: number, currency: string): number {
  try {
    return rescaleMinorUnits(amount, stripeExponent(currency), currencyExponent(currency));
  } catch {
    throw new NotificationRejectedError('stripe webhook: amount not expressible in the currency');
  }
}

/** Runs an SDK call and maps Stripe's errors to GatewayError without their messages (which may quote request data). */
async function call<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    if (error instanceof Stripe.errors.StripeError) {
      const status = error.statusCode;
      const retryable =
        error instanceof Stripe.errors.StripeConnectionError ||
        error instanceof Stripe.errors.StripeRateLimitError ||
        (status !== undefined && status >= 500) ||
        (status === undefined && error instanceof Stripe.errors.StripeAPIError);
      const code = error.code !== undefined && /^[\w-]{1,60}$/.test(error.code) ? ` (${error.code})` : '';
      // Answers Stripe gives this key again for good: a 5xx it kept, a key it refuses, and an
      // expires_at derived from an attempt too old to be sent afresh.
      const attemptSpent =
        (status !== undefined && status >= 500) ||
        error instanceof Stripe.errors.StripeIdempotencyError ||
        (error instanceof Stripe.errors.StripeInvalidRequestError && error.param === 'expires_at');
      throw new GatewayError(`stripe ${operation}: ${error.type}${status !== undefined ? ` HTTP ${status}` : ''}${code}`, retryable, status, { attemptSpent });
    }
    throw new GatewayError(`stripe ${operation}: gateway unreachable`, true);
  }
}
