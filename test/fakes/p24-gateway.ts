import { createHash } from 'node:crypto';
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

export interface FakeP24 extends FakeGateway {
  readonly transactions: Map<string, P24Transaction>;
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
  let nextOrderId = 300_000_000;

  const server = await startFakeServer((call: RecordedCall): FakeReply => {
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
      if (typeof body.requestId !== 'string' || typeof body.refundsUuid !== 'string' || !Array.isArray(list) || list.length === 0) return invalid;
      if (body.requestId.length > 45 || body.refundsUuid.length > 35) return invalid;
      const results = [];
      for (const item of list as Record<string, unknown>[]) {
        const transaction = [...transactions.values()].find((t) => t.orderId === item.orderId && t.sessionId === item.sessionId);
        const amount = item.amount;
        if (transaction === undefined || !transaction.verified || typeof amount !== 'number' || amount > transaction.amount - transaction.refunded) {
          return { status: 409, body: { error: [{ ...item, status: false, message: 'The amount of refund exceeds available amount for the transaction' }], code: 409 } };
        }
        transaction.refunded += amount;
        refunds.push({ transactionId: transaction.token, amount, currency: transaction.currency });
        results.push({ ...item, status: true, message: 'success' });
      }
      return { status: 201, body: { data: results, responseCode: 0 } };
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
    notificationFor(token, options = {}) {
      const transaction = transactions.get(token);
      if (transaction === undefined) throw new Error(`fake p24: no transaction ${token}`);
      const amount = options.amount ?? transaction.amount;
      const fields = {
        merchantId: MERCHANT_ID,
        posId: POS_ID,
        sessionId: transaction.sessionId,
        amount,
        originAmount: amount,
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
