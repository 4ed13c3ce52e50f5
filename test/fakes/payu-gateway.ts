import { createHash, randomUUID } from 'node:crypto';
import { bearer, nextId, parseJson, startFakeServer, type FakeGateway, type FakeRefund, type FakeReply, type RecordedCall } from './common-gateway.js';
import type { IncomingNotification } from '../../src/payments/gateway.js';

interface PayuOrder {
  orderId: string;
  extOrderId: string;
  totalAmount: string;
  currencyCode: string;
  notifyUrl: string;
  customerIp: string;
  description: string;
  refunded: number;
  /** Its place in PayU's order lifecycle: NEW, PENDING, WAITING_FOR_CONFIRMATION, COMPLETED, CANCELED. */
  status: string;
}

export interface FakePayu extends FakeGateway {
  readonly orders: Map<string, PayuOrder>;
  /**
   * A notification about the order in `status` (default: the status a paid order reaches,
   * COMPLETED, or WAITING_FOR_CONFIRMATION with auto-receive off); the order moves to it.
   */
  notificationFor(orderId: string, options?: { amount?: number; forged?: boolean; algorithm?: 'MD5' | 'SHA-256'; status?: string }): IncomingNotification;
  /** The next order is created, but the answer never reaches the caller. */
  loseNextOrderAnswer(): void;
  /** The POS's auto-receive setting (on by default): off, a paid order waits to be captured. */
  setAutoReceive(on: boolean): void;
}

const POS_ID = '300746';
const CLIENT_ID = '300746';
const CLIENT_SECRET = 'payu-client-secret';
const SECOND_KEY = 'payu-second-key';

const missing = (code = 'ERROR_VALUE_MISSING'): FakeReply => ({ status: 400, body: { status: { statusCode: code, statusDesc: 'Missing required field' } } });

/** Plays PayU's REST API 2.1: OAuth, orders (answered 302 with JSON; extOrderId unique per POS), order retrieval, capture by status update, refunds, signed notifications. */
export async function startFakePayu(): Promise<FakePayu> {
  const orders = new Map<string, PayuOrder>();
  const refunds: FakeRefund[] = [];
  const issuedTokens = new Set<string>();
  let loseOrderAnswer = false;
  let autoReceive = true;

  const server = await startFakeServer((call: RecordedCall): FakeReply => {
    if (call.method === 'POST' && call.path === '/pl/standard/user/oauth/authorize') {
      // PayU documents a 401 without this content type.
      if (!(call.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return { status: 401, body: { error: 'invalid_request' } };
      const form = new URLSearchParams(call.body);
      if (form.get('grant_type') !== 'client_credentials' || form.get('client_id') !== CLIENT_ID || form.get('client_secret') !== CLIENT_SECRET) {
        return { status: 401, body: { error: 'invalid_client', error_description: 'Bad client credentials' } };
      }
      const token = randomUUID();
      issuedTokens.add(token);
      return { status: 200, body: { access_token: token, token_type: 'bearer', expires_in: 43199, grant_type: 'client_credentials' } };
    }
    const token = bearer(call);
    if (token === undefined || !issuedTokens.has(token)) return { status: 401, body: { status: { statusCode: 'UNAUTHORIZED', statusDesc: 'Invalid access token' } } };

    // Order retrieve: GET /api/v2_1/orders/{orderId} → { orders: [order], status }.
    const orderPath = /^\/api\/v2_1\/orders\/([^/]+)$/.exec(call.path);
    if (call.method === 'GET' && orderPath?.[1] !== undefined) {
      const order = orders.get(decodeURIComponent(orderPath[1]));
      if (order === undefined) return { status: 404, body: { status: { statusCode: 'DATA_NOT_FOUND' } } };
      return { status: 200, body: { orders: [orderRepresentation(order)], status: { statusCode: 'SUCCESS', statusDesc: 'Request processing successful' } } };
    }

    const body = parseJson(call.body);
    if (body === undefined) return missing('ERROR_SYNTAX');

    if (call.method === 'POST' && call.path === '/api/v2_1/orders') {
      const { notifyUrl, customerIp, merchantPosId, description, currencyCode, totalAmount, extOrderId, products } = body;
      if (typeof customerIp !== 'string' || customerIp === '' || typeof description !== 'string' || typeof currencyCode !== 'string') return missing();
      if (typeof totalAmount !== 'string' || !/^\d+$/.test(totalAmount) || !Array.isArray(products) || products.length === 0) return missing('ERROR_VALUE_INVALID');
      if (merchantPosId !== POS_ID) return missing('ERROR_VALUE_INVALID');
      // Status codes (400): "ERROR_ORDER_NOT_UNIQUE - Order already exists. This error may be
      // caused by a not unique extOrderId parameter"; extOrderId "must be unique within a single POS".
      if (typeof extOrderId === 'string' && [...orders.values()].some((order) => order.extOrderId === extOrderId)) {
        return { status: 400, body: { status: { statusCode: 'ERROR_ORDER_NOT_UNIQUE', statusDesc: 'Order already exists' } } };
      }
      const orderId = nextId('WZHF5FFDRJ');
      orders.set(orderId, {
        orderId,
        extOrderId: String(extOrderId),
        totalAmount,
        currencyCode,
        notifyUrl: String(notifyUrl),
        customerIp,
        description,
        refunded: 0,
        status: 'NEW',
      });
      const redirectUri = `${server.baseUrl}/pl/standard/co/summary?orderId=${orderId}`;
      const reply: FakeReply = { status: 302, headers: { location: redirectUri }, body: { status: { statusCode: 'SUCCESS' }, redirectUri, orderId, extOrderId } };
      if (loseOrderAnswer) {
        loseOrderAnswer = false;
        return { ...reply, drop: true };
      }
      return reply;
    }

    // Order status update (capture with auto-receive off): PUT /api/v2_1/orders/{orderId}/status
    // with { orderId, orderStatus: "COMPLETED" }, only for an order WAITING_FOR_CONFIRMATION
    // ("You can capture or cancel orders with the WAITING_FOR_CONFIRMATION status"). The docs do
    // not say how another status is refused; this stand-in answers 400 ERROR_VALUE_INVALID.
    const statusPath = /^\/api\/v2_1\/orders\/([^/]+)\/status$/.exec(call.path);
    if (call.method === 'PUT' && statusPath?.[1] !== undefined) {
      const order = orders.get(decodeURIComponent(statusPath[1]));
      if (order === undefined) return { status: 404, body: { status: { statusCode: 'DATA_NOT_FOUND' } } };
      if (body.orderId !== order.orderId || body.orderStatus !== 'COMPLETED') return missing('ERROR_VALUE_INVALID');
      if (order.status !== 'WAITING_FOR_CONFIRMATION') return missing('ERROR_VALUE_INVALID');
      order.status = 'COMPLETED';
      return { status: 200, body: { status: { statusCode: 'SUCCESS', statusDesc: 'Status was updated' } } };
    }

    const refundPath = /^\/api\/v2_1\/orders\/([^/]+)\/refunds$/.exec(call.path);
    if (call.method === 'POST' && refundPath?.[1] !== undefined) {
      const order = orders.get(decodeURIComponent(refundPath[1]));
      if (order === undefined) return { status: 404, body: { status: { statusCode: 'DATA_NOT_FOUND' } } };
      const refund = body.refund as Record<string, unknown> | undefined;
      if (typeof refund?.description !== 'string') return missing();
      const amount = refund.amount === undefined ? Number(order.totalAmount) - order.refunded : Number(refund.amount);
      if (!Number.isSafeInteger(amount) || amount <= 0 || amount > Number(order.totalAmount) - order.refunded) return missing('ERROR_VALUE_INVALID');
      order.refunded += amount;
      refunds.push({ transactionId: order.orderId, amount, currency: order.currencyCode });
      const refundId = nextId('5000');
      return {
        status: 200,
        body: {
          orderId: order.orderId,
          refund: {
            refundId,
            extRefundId: refund.extRefundId,
            amount: String(amount),
            currencyCode: order.currencyCode,
            description: refund.description,
            creationDateTime: new Date().toISOString(),
            status: 'PENDING',
            statusDateTime: new Date().toISOString(),
          },
          status: { statusCode: 'SUCCESS', statusDesc: 'Refund queued for processing' },
        },
      };
    }
    return { status: 404, body: { status: { statusCode: 'DATA_NOT_FOUND' } } };
  });

  return {
    code: 'payu',
    baseUrl: server.baseUrl,
    credentials: { settings: { posId: POS_ID, clientId: CLIENT_ID }, secrets: { clientSecret: CLIENT_SECRET, secondKey: SECOND_KEY } },
    calls: server.calls,
    refunds,
    orders,
    notificationFor(orderId, options = {}) {
      const order = orders.get(orderId);
      if (order === undefined) throw new Error(`fake payu: no order ${orderId}`);
      order.status = options.status ?? (autoReceive ? 'COMPLETED' : 'WAITING_FOR_CONFIRMATION');
      const representation = orderRepresentation(order);
      const rawBody = JSON.stringify({
        order: { ...representation, totalAmount: options.amount === undefined ? order.totalAmount : String(options.amount) },
        localReceiptDateTime: new Date().toISOString(),
        properties: [{ name: 'PAYMENT_ID', value: '5000000001' }],
      });
      const algorithm = options.algorithm ?? 'MD5';
      const key = options.forged ? 'not-the-second-key' : SECOND_KEY;
      const signature = createHash(algorithm === 'MD5' ? 'md5' : 'sha256')
        .update(rawBody + key)
        .digest('hex');
      return {
        headers: { 'content-type': 'application/json;charset=UTF-8', 'openpayu-signature': `sender=checkout;signature=${signature};algorithm=${algorithm};content=DOCUMENT` },
        rawBody,
        contentType: 'application/json;charset=UTF-8',
      };
    },
    loseNextOrderAnswer() {
      loseOrderAnswer = true;
    },
    setAutoReceive(on) {
      autoReceive = on;
    },
    setDown: server.setDown,
    close: server.close,
  };
}

/** An order as PayU shows it in notifications and order retrieval. */
function orderRepresentation(order: PayuOrder) {
  return {
    orderId: order.orderId,
    extOrderId: order.extOrderId,
    orderCreateDate: new Date().toISOString(),
    notifyUrl: order.notifyUrl,
    customerIp: order.customerIp,
    merchantPosId: POS_ID,
    description: order.description,
    currencyCode: order.currencyCode,
    totalAmount: order.totalAmount,
    status: order.status,
    products: [{ name: order.description, unitPrice: order.totalAmount, quantity: '1' }],
  };
}
