import { createHash, randomUUID } from 'node:crypto';
import { bearer, nextId, parseJson, startFakeServer, type FakeGateway, type FakeRefund, type FakeReply, type RecordedCall } from './common-gateway.js';
import { formatMinorUnits, parseDecimalAmount } from '../../src/domain/money.js';

interface TpayTransaction {
  transactionId: string;
  title: string;
  amount: number;
  description: string;
  hiddenDescription: string;
  payerEmail: string;
  refunded: number;
}

export interface FakeTpay extends FakeGateway {
  readonly transactions: Map<string, TpayTransaction>;
}

const CLIENT_ID = '01G6WAKS5NHRVMYQ0ZS4SN4M0S-01HA0SPB24A2T0BNEX6W9CM0JJ';
const CLIENT_SECRET = 'tpay-client-secret';
const MERCHANT_ID = '55382';
const SECURITY_CODE = 'tpay-security-code';

const invalid = (errorCode: string, fieldName: string): FakeReply => ({
  status: 400,
  body: { result: 'failed', requestId: randomUUID(), errors: [{ errorCode, errorMessage: `${fieldName} is invalid`, fieldName }] },
});

/** Plays Tpay's Open API: OAuth, transactions, refunds, and the md5sum-signed form notification. */
export async function startFakeTpay(): Promise<FakeTpay> {
  const transactions = new Map<string, TpayTransaction>();
  const refunds: FakeRefund[] = [];
  const issuedTokens = new Set<string>();

  const server = await startFakeServer((call: RecordedCall): FakeReply => {
    if (call.method === 'POST' && call.path === '/oauth/auth') {
      if (!(call.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return { status: 400, body: { error: 'invalid_request' } };
      const form = new URLSearchParams(call.body);
      if (form.get('client_id') !== CLIENT_ID || form.get('client_secret') !== CLIENT_SECRET) return { status: 401, body: { error: 'invalid_client' } };
      const token = randomUUID().replace(/-/g, '');
      issuedTokens.add(token);
      return { status: 200, body: { issued_at: Math.floor(Date.now() / 1000), scope: 'read', token_type: 'Bearer', expires_in: 7200, client_id: CLIENT_ID, access_token: token } };
    }
    const token = bearer(call);
    if (token === undefined || !issuedTokens.has(token)) return { status: 401, body: { result: 'failed', errors: [{ errorCode: 'unauthorized', errorMessage: 'Unauthorized' }] } };
    const body = parseJson(call.body);
    if (body === undefined) return invalid('field_invalid', 'body');

    if (call.method === 'POST' && call.path === '/transactions') {
      const payer = body.payer as Record<string, unknown> | undefined;
      if (typeof body.amount !== 'number' || body.amount <= 0) return invalid('field_invalid', 'amount');
      if (typeof body.description !== 'string' || body.description === '') return invalid('field_required', 'description');
      if (typeof payer?.email !== 'string' || typeof payer.name !== 'string') return invalid('field_required', 'payer');
      const transactionId = nextId('01K5BK4HEPB0WBCGT5');
      const title = nextId('TR-1CEN-');
      const transaction: TpayTransaction = {
        transactionId,
        title,
        // The number as written, "150.00" → 15000, so a float never rounds the test's way.
        amount: parseDecimalAmount(/"amount":\s*([0-9.]+)/.exec(call.body)?.[1] ?? String(body.amount), 'PLN'),
        description: body.description,
        hiddenDescription: String(body.hiddenDescription ?? ''),
        payerEmail: payer.email,
        refunded: 0,
      };
      transactions.set(transactionId, transaction);
      return {
        status: 200,
        body: {
          result: 'success',
          requestId: randomUUID(),
          transactionId,
          title,
          posId: 'ps_NyRBLvE8lWMvzalX',
          status: 'pending',
          date: { creation: new Date().toISOString(), realization: null },
          amount: body.amount,
          currency: 'PLN',
          description: body.description,
          hiddenDescription: transaction.hiddenDescription,
          payer: { payerId: 'py_1', email: payer.email, name: payer.name },
          payments: { status: 'pending', method: null, amountPaid: 0, date: { realization: null } },
          transactionPaymentUrl: `${server.baseUrl}/?title=${title}&uid=01G6WAK`,
        },
      };
    }

    const refundPath = /^\/transactions\/([^/]+)\/refunds$/.exec(call.path);
    if (call.method === 'POST' && refundPath?.[1] !== undefined) {
      const transaction = transactions.get(decodeURIComponent(refundPath[1]));
      if (transaction === undefined) return { status: 404, body: { result: 'failed', errors: [{ errorCode: 'transaction_not_found', errorMessage: 'Not found' }] } };
      const amountText = /"amount":\s*([0-9.]+)/.exec(call.body)?.[1];
      const amount = amountText === undefined ? transaction.amount - transaction.refunded : parseDecimalAmount(amountText, 'PLN');
      if (amount <= 0 || amount > transaction.amount - transaction.refunded) return invalid('field_invalid', 'amount');
      transaction.refunded += amount;
      refunds.push({ transactionId: transaction.transactionId, amount, currency: 'PLN' });
      return { status: 200, body: { result: 'success', requestId: randomUUID(), transactionId: transaction.transactionId, title: transaction.title, status: 'refund' } };
    }
    return { status: 404, body: { result: 'failed', errors: [{ errorCode: 'not_found', errorMessage: 'Not found' }] } };
  });

  return {
    code: 'tpay',
    baseUrl: server.baseUrl,
    credentials: { settings: { clientId: CLIENT_ID, merchantId: MERCHANT_ID }, secrets: { clientSecret: CLIENT_SECRET, securityCode: SECURITY_CODE } },
    calls: server.calls,
    refunds,
    transactions,
    notificationFor(transactionId, options = {}) {
      const transaction = transactions.get(transactionId);
      if (transaction === undefined) throw new Error(`fake tpay: no transaction ${transactionId}`);
      const amount = formatMinorUnits(options.amount ?? transaction.amount, 'PLN');
      const fields = {
        id: MERCHANT_ID,
        tr_id: transaction.title,
        tr_date: new Date().toISOString().slice(0, 19).replace('T', ' '),
        tr_crc: transaction.hiddenDescription,
        tr_amount: amount,
        tr_paid: amount,
        tr_desc: transaction.description,
        tr_status: 'TRUE',
        tr_error: 'none',
        tr_email: transaction.payerEmail,
        test_mode: '1',
      };
      const code = options.forged ? 'not-the-security-code' : SECURITY_CODE;
      const md5sum = createHash('md5')
        .update(fields.id + fields.tr_id + fields.tr_amount + fields.tr_crc + code)
        .digest('hex');
      const rawBody = new URLSearchParams({ ...fields, md5sum }).toString();
      return { headers: { 'content-type': 'application/x-www-form-urlencoded' }, rawBody, contentType: 'application/x-www-form-urlencoded' };
    },
    setDown: server.setDown,
    close: server.close,
  };
}
