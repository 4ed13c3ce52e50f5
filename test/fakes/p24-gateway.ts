import { createHash } from 'node:crypto';
import type { IncomingNotification } from '../../src/payments/gateway.js';
import { basicCredentials, nextId, parseJson, startFakeServer, type FakeGateway, type FakeRefund, type RecordedCall, type FakeReply } from './common-gateway.js';

interface P24Transaction {
  token: string;
  sessionId: string;
  amount: number;
  currency: string;
  orderId: number;
  verified: boolean;
  refunded: number;
}

/** A refund as `GET /api/v1/refund/by/orderId/{orderId}` lists it. */
interface P24Refund {
  orderId: number;
  requestId: string;
  amount: number;
  description: string;
  date: string;
  /** 1 completed, 2 pending, 3 awaiting P24's acceptance, 4 rejected. */
  status: 1 | 2 | 3 | 4;
}

export interface FakeP24 extends FakeGateway {
  readonly transactions: Map<string, P24Transaction>;
  /**
   * As the REST API's notification: `amount` is what was paid, `originAmount` what the
   * transaction was registered for (each overridable, in minor units).
   */
  notificationFor(token: string, options?: { amount?: number; originAmount?: number; forged?: boolean }): IncomingNotification;
  /** Every refund created, by request, as P24 lists them per order. */
  readonly refundRecords: P24Refund[];
  /** The next refund request is carried out, but its answer never reaches the caller. */
  loseNextRefundAnswer(): void;
  /**
   * Refund requests arriving from now on stay in flight (received, not yet answered) until
   * `release()`; `arrived` resolves when the first one is in. For a duplicate in flight.
   */
  holdRefunds(): { arrived: Promise<void>; release(): void };
}

const MERCHANT_ID = 100_200;
const POS_ID = 100_200;
const API_KEY = 'p24-api-key-secret';
const CRC = 'p24-crc-secret';

const sign = (fields: Record<string, string | number>): string => createHash('sha384').update(JSON.stringify(fields)).digest('hex');
const invalid: FakeReply = { status: 400, body: { error: 'Invalid input data', code: 400 } };

/** Plays Przelewy24's REST API (/api/v1/...) as its OpenAPI document describes it. */
export async function startFakeP24(): Promise<FakeP24> {
  const transactions = new Map<string, P24Transaction>();
  const refunds: FakeRefund[] = [];
  const refundRecords: P24Refund[] = [];
  // Refund requests P24 has seen, by requestId.
  const requests = new Map<string, 'in flight' | 'done'>();
  let loseNextAnswer = false;
  let hold: { arrive(): void; released: Promise<void> } | undefined;
  let nextOrderId = 300_000_000;

  const server = await startFakeServer(async (call: RecordedCall): Promise<FakeReply> => {
    const auth = basicCredentials(call);
    if (auth?.user !== String(POS_ID) || auth.password !== API_KEY) return { status: 401, body: { error: 'Incorrect authentication', code: 401 } };
    const body = parseJson(call.body) ?? {};

    if (call.method === 'POST' && call.path === '/api/v1/transaction/register') {
      const { merchantId, posId, sessionId, amount, currency, description, email, country, language, urlReturn } = body;
      if (merchantId !== MERCHANT_ID || posId !== POS_ID || typeof sessionId !== 'string' || !Number.isSafeInteger(amount) || typeof currency !== 'string') return invalid;
      if (typeof description !== 'string' || typeof email !== 'string' || typeof country !== 'string' || typeof language !== 'string' || typeof urlReturn !== 'string')
        return invalid;
      if (body.sign !== sign({ sessionId, merchantId, amount: amount as number, currency, crc: CRC })) return invalid;
      const token = nextId('TOKEN-');
      nextOrderId += 1;
      transactions.set(token, { token, sessionId, amount: amount as number, currency, orderId: nextOrderId, verified: false, refunded: 0 });
      return { status: 200, body: { data: { token }, responseCode: 0 } };
    }

    if (call.method === 'PUT' && call.path === '/api/v1/transaction/verify') {
      const { sessionId, orderId, amount, currency } = body;
      const transaction = [...transactions.values()].find((t) => t.orderId === orderId);
      if (transaction === undefined || typeof sessionId !== 'string' || typeof currency !== 'string' || typeof amount !== 'number' || typeof orderId !== 'number') return invalid;
      if (body.merchantId !== MERCHANT_ID || body.posId !== POS_ID) return invalid;
      if (body.sign !== sign({ sessionId, orderId, amount, currency, crc: CRC })) return invalid;
      if (transaction.sessionId !== sessionId || transaction.amount !== amount || transaction.currency !== currency) return invalid;
      transaction.verified = true;
      return { status: 200, body: { data: { status: 'success' }, responseCode: 0 } };
    }

    const bySession = /^\/api\/v1\/transaction\/by\/sessionId\/(.+)$/.exec(call.path);
    if (call.method === 'GET' && bySession?.[1] !== undefined) {
      const sessionId = decodeURIComponent(bySession[1]);
      const transaction = [...transactions.values()].find((t) => t.sessionId === sessionId);
      if (transaction === undefined) return { status: 404, body: { error: 'Transaction not found', code: 404 } };
      return {
        status: 200,
        body: {
          data: { orderId: transaction.orderId, sessionId, amount: transaction.amount, currency: transaction.currency, status: transaction.verified ? 2 : 0 },
          responseCode: 0,
        },
      };
    }

    if (call.method === 'POST' && call.path === '/api/v1/transaction/refund') {
      const list = body.refunds;
      const { requestId } = body;
      if (typeof requestId !== 'string' || typeof body.refundsUuid !== 'string' || !Array.isArray(list) || list.length === 0) return invalid;
      if (requestId.length > 45 || body.refundsUuid.length > 35) return invalid;
      // The REST API's InvalidInputDataRefund (400): "Request already exists" - in case the
      // refund was already created, "Concurrent call" - in case the refund is multiplied.
      const known = requests.get(requestId);
      if (known === 'in flight') return { status: 400, body: { error: 'Concurrent call', code: 400 } };
      if (known === 'done') return { status: 400, body: { error: 'Request already exists', code: 400 } };
      requests.set(requestId, 'in flight');
      if (hold !== undefined) {
        hold.arrive();
        await hold.released;
      }
      const items = list as Record<string, unknown>[];
      const found = items.map((item) => [...transactions.values()].find((t) => t.orderId === item.orderId && t.sessionId === item.sessionId));
      for (const [index, item] of items.entries()) {
        const transaction = found[index];
        const amount = item.amount;
        if (transaction === undefined || !transaction.verified || typeof amount !== 'number' || amount > transaction.amount - transaction.refunded) {
          // Nothing was created: the request may be made again.
          requests.delete(requestId);
          return { status: 409, body: { error: [{ ...item, status: false, message: 'The amount of refund exceeds available amount for the transaction' }], code: 409 } };
        }
      }
      const results = [];
      for (const [index, item] of items.entries()) {
        const transaction = found[index]!;
        const amount = item.amount as number;
        transaction.refunded += amount;
        refunds.push({ transactionId: transaction.token, amount, currency: transaction.currency });
        refundRecords.push({ orderId: transaction.orderId, requestId, amount, description: String(item.description ?? ''), date: new Date().toISOString(), status: 1 });
        results.push({ ...item, status: true, message: 'success' });
      }
      requests.set(requestId, 'done');
      const reply: FakeReply = { status: 201, body: { data: results, responseCode: 0 } };
      if (loseNextAnswer) {
        loseNextAnswer = false;
        return { ...reply, drop: true };
      }
      return reply;
    }

    // GET /api/v1/refund/by/orderId/{orderId} ("Refund by OrderID"): the order's refunds with
    // each one's requestId and status; 404 when the order has none.
    const refundsOf = /^\/api\/v1\/refund\/by\/orderId\/(\d+)$/.exec(call.path);
    if (call.method === 'GET' && refundsOf?.[1] !== undefined) {
      const orderId = Number(refundsOf[1]);
      const transaction = [...transactions.values()].find((t) => t.orderId === orderId);
      const listed = refundRecords.filter((r) => r.orderId === orderId);
      if (transaction === undefined || listed.length === 0) return { status: 404, body: { error: 'Transaction not found', responseCode: 0 } };
      return {
        status: 200,
        body: {
          data: {
            orderId,
            sessionId: transaction.sessionId,
            amount: transaction.amount,
            currency: transaction.currency,
            refunds: listed.map((r, index) => ({
              batchId: 700_000 + index,
              requestId: r.requestId,
              date: r.date,
              login: 'api',
              description: r.description,
              status: r.status,
              amount: r.amount,
            })),
          },
          responseCode: 0,
        },
      };
    }
    return { status: 404, body: { error: 'Not found', code: 404 } };
  });

  return {
    code: 'p24',
    baseUrl: server.baseUrl,
    credentials: { settings: { merchantId: MERCHANT_ID, posId: POS_ID }, secrets: { apiKey: API_KEY, crc: CRC } },
    calls: server.calls,
    refunds,
    transactions,
    refundRecords,
    loseNextRefundAnswer() {
      loseNextAnswer = true;
    },
    holdRefunds() {
      let arrive = () => {};
      const arrived = new Promise<void>((resolve) => {
        arrive = resolve;
      });
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      hold = { arrive, released };
      return {
        arrived,
        release: () => {
          hold = undefined;
          release();
        },
      };
    },
    notificationFor(token, options = {}) {
      const transaction = transactions.get(token);
      if (transaction === undefined) throw new Error(`fake p24: no transaction ${token}`);
      const amount = options.amount ?? transaction.amount;
      const fields = {
        merchantId: MERCHANT_ID,
        posId: POS_ID,
        sessionId: transaction.sessionId,
        amount,
        originAmount: options.originAmount ?? transaction.amount,
        currency: transaction.currency,
        orderId: transaction.orderId,
        methodId: 154,
        statement: `p24-K${transaction.orderId}`,
      };
      const rawBody = JSON.stringify({ ...fields, sign: sign({ ...fields, crc: options.forged ? 'not-the-crc' : CRC }) });
      return { headers: { 'content-type': 'application/json' }, rawBody, contentType: 'application/json' };
    },
    setDown: server.setDown,
    close: server.close,
  };
}
