import { createHash, randomUUID } from 'node:crypto';
import { basicCredentials, bearer, nextId, parseJson, startFakeServer, type FakeGateway, type FakeRefund, type FakeReply, type RecordedCall } from './common-gateway.js';
import { formatMinorUnits, parseDecimalAmount } from '../../src/domain/money.js';

interface PaypalCapture {
  id: string;
  status: 'COMPLETED';
  amount: { currency_code: string; value: string };
  custom_id: string;
  refunded: number;
}

interface PaypalOrder {
  id: string;
  status: 'PAYER_ACTION_REQUIRED' | 'APPROVED' | 'COMPLETED';
  customId: string;
  amount: { currency_code: string; value: string };
  requestId: string | undefined;
  capture: PaypalCapture | undefined;
}

export interface FakePaypal extends FakeGateway {
  readonly orders: Map<string, PaypalOrder>;
  /** The payer approves the order on PayPal's page (what makes a capture possible). */
  approve(orderId: string): void;
}

const CLIENT_ID = 'paypal-client-id';
const CLIENT_SECRET = 'paypal-client-secret';
const WEBHOOK_ID = '1JE4291016473214C';

const problem = (status: number, name: string, issue: string): FakeReply => ({
  status,
  body: { name, message: issue, debug_id: 'f00d', details: [{ issue, description: issue }] },
});

/** Plays PayPal's OAuth, Orders v2, Payments v2 refunds and webhook signature verification. */
export async function startFakePaypal(): Promise<FakePaypal> {
  const orders = new Map<string, PaypalOrder>();
  const refunds: FakeRefund[] = [];
  const issuedTokens = new Set<string>();
  /** transmission id → the signature and event body the fake sent with it. */
  const transmissions = new Map<string, { signature: string; event: string }>();

  const orderView = (order: PaypalOrder) => ({
    id: order.id,
    intent: 'CAPTURE',
    status: order.status,
    purchase_units: [
      {
        reference_id: order.customId,
        custom_id: order.customId,
        amount: order.amount,
        ...(order.capture === undefined
          ? {}
          : { payments: { captures: [{ id: order.capture.id, status: order.capture.status, amount: order.capture.amount, custom_id: order.customId }] } }),
      },
    ],
    links: [{ href: `${server.baseUrl}/v2/checkout/orders/${order.id}`, rel: 'self', method: 'GET' }],
  });

  const capture = (order: PaypalOrder): PaypalCapture => {
    order.status = 'COMPLETED';
    order.capture ??= { id: nextId('CAP'), status: 'COMPLETED', amount: order.amount, custom_id: order.customId, refunded: 0 };
    return order.capture;
  };

  const server = await startFakeServer((call: RecordedCall): FakeReply => {
    if (call.method === 'POST' && call.path === '/v1/oauth2/token') {
      const auth = basicCredentials(call);
      if (auth?.user !== CLIENT_ID || auth.password !== CLIENT_SECRET) return { status: 401, body: { error: 'invalid_client', error_description: 'Client Authentication failed' } };
      if (new URLSearchParams(call.body).get('grant_type') !== 'client_credentials') return { status: 400, body: { error: 'unsupported_grant_type' } };
      const token = `A21AA${randomUUID().replace(/-/g, '')}`;
      issuedTokens.add(token);
      return {
        status: 200,
        body: {
          scope: 'https://uri.paypal.com/services/payments/payment',
          access_token: token,
          token_type: 'Bearer',
          app_id: 'APP-80W284485P519543T',
          expires_in: 32400,
          nonce: 'n',
        },
      };
    }
    const token = bearer(call);
    if (token === undefined || !issuedTokens.has(token)) return { status: 401, body: { error: 'invalid_token', error_description: 'Token signature verification failed' } };
    const body = call.method === 'GET' ? {} : parseJson(call.body);
    if (body === undefined) return problem(400, 'INVALID_REQUEST', 'MALFORMED_REQUEST_JSON');

    if (call.method === 'POST' && call.path === '/v2/checkout/orders') {
      const requestId = call.headers['paypal-request-id'] as string | undefined;
      const existing = [...orders.values()].find((o) => requestId !== undefined && o.requestId === requestId);
      if (existing !== undefined) return { status: 200, body: { ...orderView(existing), links: payerLinks(existing.id) } };
      const unit = (body.purchase_units as Record<string, unknown>[] | undefined)?.[0];
      const amount = unit?.amount as { currency_code?: unknown; value?: unknown } | undefined;
      if (body.intent !== 'CAPTURE' || typeof amount?.currency_code !== 'string' || typeof amount.value !== 'string')
        return problem(400, 'INVALID_REQUEST', 'MISSING_REQUIRED_PARAMETER');
      if (!/^\d+(\.\d{1,2})?$/.test(amount.value)) return problem(422, 'UNPROCESSABLE_ENTITY', 'DECIMAL_PRECISION');
      const order: PaypalOrder = {
        id: nextId('5O190127TN'),
        status: 'PAYER_ACTION_REQUIRED',
        customId: String(unit?.custom_id),
        amount: { currency_code: amount.currency_code, value: amount.value },
        requestId,
        capture: undefined,
      };
      orders.set(order.id, order);
      return { status: 200, body: { id: order.id, status: order.status, payment_source: { paypal: {} }, links: payerLinks(order.id) } };
    }

    const orderPath = /^\/v2\/checkout\/orders\/([^/]+)(\/capture)?$/.exec(call.path);
    if (orderPath?.[1] !== undefined) {
      const order = orders.get(decodeURIComponent(orderPath[1]));
      if (order === undefined) return problem(404, 'RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID');
      if (call.method === 'GET' && orderPath[2] === undefined) return { status: 200, body: orderView(order) };
      if (call.method === 'POST' && orderPath[2] === '/capture') {
        if (order.status === 'COMPLETED') return problem(422, 'UNPROCESSABLE_ENTITY', 'ORDER_ALREADY_CAPTURED');
        if (order.status !== 'APPROVED') return problem(422, 'UNPROCESSABLE_ENTITY', 'ORDER_NOT_APPROVED');
        capture(order);
        return { status: 201, body: orderView(order) };
      }
    }

    if (call.method === 'POST' && call.path === '/v1/notifications/verify-webhook-signature') {
      const sent = transmissions.get(String(body.transmission_id));
      const genuine =
        sent !== undefined &&
        body.webhook_id === WEBHOOK_ID &&
        body.transmission_sig === sent.signature &&
        typeof body.auth_algo === 'string' &&
        typeof body.cert_url === 'string' &&
        typeof body.transmission_time === 'string' &&
        JSON.stringify(body.webhook_event) === JSON.stringify(JSON.parse(sent.event));
      return { status: 200, body: { verification_status: genuine ? 'SUCCESS' : 'FAILURE' } };
    }

    const refundPath = /^\/v2\/payments\/captures\/([^/]+)\/refund$/.exec(call.path);
    if (call.method === 'POST' && refundPath?.[1] !== undefined) {
      const order = [...orders.values()].find((o) => o.capture?.id === decodeURIComponent(refundPath[1] ?? ''));
      if (order?.capture === undefined) return problem(404, 'RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID');
      const amount = body.amount as { currency_code?: unknown; value?: unknown } | undefined;
      const currency = order.capture.amount.currency_code;
      const minor =
        typeof amount?.value === 'string' ? parseDecimalAmount(amount.value, currency) : parseDecimalAmount(order.capture.amount.value, currency) - order.capture.refunded;
      if (amount !== undefined && amount.currency_code !== currency) return problem(422, 'UNPROCESSABLE_ENTITY', 'CURRENCY_MISMATCH');
      if (minor > parseDecimalAmount(order.capture.amount.value, currency) - order.capture.refunded) return problem(422, 'UNPROCESSABLE_ENTITY', 'REFUND_AMOUNT_EXCEEDED');
      order.capture.refunded += minor;
      refunds.push({ transactionId: order.id, amount: minor, currency });
      return { status: 201, body: { id: nextId('1JU08902781'), status: 'COMPLETED', links: [] } };
    }
    return problem(404, 'RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID');
  });

  function payerLinks(id: string) {
    return [
      { href: `${server.baseUrl}/v2/checkout/orders/${id}`, rel: 'self', method: 'GET' },
      { href: `${server.baseUrl}/checkoutnow?token=${id}`, rel: 'payer-action', method: 'GET' },
    ];
  }

  return {
    code: 'paypal',
    baseUrl: server.baseUrl,
    credentials: { settings: { clientId: CLIENT_ID, webhookId: WEBHOOK_ID }, secrets: { clientSecret: CLIENT_SECRET } },
    calls: server.calls,
    refunds,
    orders,
    approve(orderId) {
      const order = orders.get(orderId);
      if (order === undefined) throw new Error(`fake paypal: no order ${orderId}`);
      if (order.status === 'PAYER_ACTION_REQUIRED') order.status = 'APPROVED';
    },
    notificationFor(orderId, options = {}) {
      const order = orders.get(orderId);
      if (order === undefined) throw new Error(`fake paypal: no order ${orderId}`);
      const captured = capture(order);
      const amount =
        options.amount === undefined ? captured.amount : { currency_code: captured.amount.currency_code, value: formatMinorUnits(options.amount, captured.amount.currency_code) };
      const event = JSON.stringify({
        id: nextId('WH-'),
        event_version: '1.0',
        create_time: new Date().toISOString(),
        resource_type: 'capture',
        resource_version: '2.0',
        event_type: 'PAYMENT.CAPTURE.COMPLETED',
        summary: `Payment completed for ${amount.value} ${amount.currency_code}`,
        resource: {
          id: captured.id,
          status: 'COMPLETED',
          amount,
          final_capture: true,
          custom_id: order.customId,
          supplementary_data: { related_ids: { order_id: order.id } },
          create_time: new Date().toISOString(),
        },
      });
      const transmissionId = randomUUID();
      const signature = createHash('sha256').update(`${transmissionId}|${event}`).digest('base64');
      transmissions.set(transmissionId, { signature, event });
      return {
        headers: {
          'content-type': 'application/json',
          'paypal-auth-algo': 'SHA256withRSA',
          'paypal-cert-url': `${server.baseUrl}/v1/notifications/certs/CERT-360caa42-fca2a594-a5cafa77`,
          'paypal-transmission-id': transmissionId,
          'paypal-transmission-sig': options.forged ? Buffer.from('forged signature').toString('base64') : signature,
          'paypal-transmission-time': new Date().toISOString(),
        },
        rawBody: event,
        contentType: 'application/json',
      };
    },
    setDown: server.setDown,
    close: server.close,
  };
}
