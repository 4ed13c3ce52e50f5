import { execFileSync } from 'node:child_process';
import { createHash, createPrivateKey, randomUUID, sign, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { IncomingNotification } from '../../src/payments/gateway.js';
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
  refunds: { refundId: string; amount: number; date: string }[];
}

/**
 * How the stand-in signs a notification's `X-JWS-Signature`: `valid` as Tpay does; `none`
 * without the header; `impostor` with a certificate that names Tpay's root as issuer but was
 * signed by another key; `foreign-x5u` with the genuine key but an x5u outside Tpay's origin.
 */
export type TpayJws = 'valid' | 'none' | 'impostor' | 'foreign-x5u';

export interface TpayNotificationOptions {
  amount?: number;
  forged?: boolean;
  /** tr_status as Tpay reports it (TRUE when paid, FALSE when not). */
  status?: string;
  jws?: TpayJws;
  /** Fields changed after Tpay signed the body (md5sum and JWS left as they were). */
  tamper?: Record<string, string>;
}

export interface FakeTpay extends FakeGateway {
  readonly transactions: Map<string, TpayTransaction>;
  /** Where the stand-in serves its certificates (TPAY_JWS_URL). */
  readonly jwsUrl: string;
  notificationFor(transactionId: string, options?: TpayNotificationOptions): IncomingNotification;
  /**
   * The next refund is made and then its answer is lost: `reset` drops the connection,
   * `500` answers Internal Server Error.
   */
  loseNextRefundAnswer(how: 'reset' | 500): void;
}

interface TpayCertificates {
  rootPem: string;
  signingPem: string;
  signingKey: KeyObject;
  impostorPem: string;
  impostorKey: KeyObject;
}

let certificates: TpayCertificates | undefined;

/**
 * The stand-in's own PKI, made once per test process with openssl: a root CA playing
 * tpay-jws-root.pem, a signing certificate it issued (notifications-jws.pem), and an impostor
 * certificate naming the same issuer but signed by another root's key.
 */
function tpayCertificates(): TpayCertificates {
  if (certificates) return certificates;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-tpay-pki-'));
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  try {
    const root = (name: string) =>
      openssl(
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        file(`${name}.key`),
        '-out',
        file(`${name}.pem`),
        '-days',
        '30',
        '-subj',
        '/C=PL/O=Krajowy Integrator Platnosci S.A./CN=Tpay JWS Root (test stand-in)',
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-addext',
        'keyUsage=critical,keyCertSign,cRLSign',
      );
    const leaf = (name: string, issuer: string) => {
      openssl(
        'req',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        file(`${name}.key`),
        '-out',
        file(`${name}.csr`),
        '-subj',
        '/C=PL/O=Krajowy Integrator Platnosci S.A./CN=notifications-jws',
      );
      openssl(
        'x509',
        '-req',
        '-in',
        file(`${name}.csr`),
        '-CA',
        file(`${issuer}.pem`),
        '-CAkey',
        file(`${issuer}.key`),
        '-CAcreateserial',
        '-out',
        file(`${name}.pem`),
        '-days',
        '30',
      );
    };
    root('root');
    root('impostor-root');
    leaf('signing', 'root');
    leaf('impostor', 'impostor-root');
    const read = (name: string) => fs.readFileSync(file(name), 'utf8');
    certificates = {
      rootPem: read('root.pem'),
      signingPem: read('signing.pem'),
      signingKey: createPrivateKey(read('signing.key')),
      impostorPem: read('impostor.pem'),
      impostorKey: createPrivateKey(read('impostor.key')),
    };
    return certificates;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const CLIENT_ID = '01G6WAKS5NHRVMYQ0ZS4SN4M0S-01HA0SPB24A2T0BNEX6W9CM0JJ';
const CLIENT_SECRET = 'tpay-client-secret';
const MERCHANT_ID = '55382';
const SECURITY_CODE = 'tpay-security-code';

const invalid = (errorCode: string, fieldName: string): FakeReply => ({
  status: 400,
  body: { result: 'failed', requestId: randomUUID(), errors: [{ errorCode, errorMessage: `${fieldName} is invalid`, fieldName }] },
});

/**
 * Plays Tpay's Open API: OAuth, transactions, refunds, and the form notification signed with
 * the md5sum and, as docs-api.tpay.com/webhooks ("Security") describes, a detached JWS in
 * `X-JWS-Signature` (RS256, `x5u` naming the signing certificate under Tpay's origin, which
 * also serves the root CA at /x509/tpay-jws-root.pem). The stand-in is both the API and that
 * origin: point TPAY_API_URL and TPAY_JWS_URL at it.
 */
export async function startFakeTpay(): Promise<FakeTpay> {
  const transactions = new Map<string, TpayTransaction>();
  const refunds: FakeRefund[] = [];
  const issuedTokens = new Set<string>();
  const pki = tpayCertificates();
  let loseRefundAnswer: 'reset' | 500 | null = null;

  const server = await startFakeServer((call: RecordedCall): FakeReply => {
    // The certificates are public (docs-api.tpay.com/webhooks lists their URLs): no token.
    const pem = { '/x509/tpay-jws-root.pem': pki.rootPem, '/x509/notifications-jws.pem': pki.signingPem, '/x509/impostor-jws.pem': pki.impostorPem }[call.path];
    if (call.method === 'GET' && pem !== undefined) return { status: 200, headers: { 'content-type': 'application/x-x509-ca-cert' }, body: pem };
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

    // docs-api.tpay.com/refunds, "Retrieving refunds for a transaction": GET on the same path
    // lists the refunds made of the transaction. The list's field names are this stand-in's
    // reading (refundId, amount as a decimal number, date, status); only the sandbox can confirm them.
    const listPath = /^\/transactions\/([^/]+)\/refunds$/.exec(call.path);
    if (call.method === 'GET' && listPath?.[1] !== undefined) {
      const transaction = transactions.get(decodeURIComponent(listPath[1]));
      if (transaction === undefined) return { status: 404, body: { result: 'failed', errors: [{ errorCode: 'transaction_not_found', errorMessage: 'Not found' }] } };
      const list = transaction.refunds.map(
        (refund) => `{"refundId":${JSON.stringify(refund.refundId)},"amount":${formatMinorUnits(refund.amount, 'PLN')},"date":${JSON.stringify(refund.date)},"status":"correct"}`,
      );
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: `{"result":"success","requestId":"${randomUUID()}","transactionId":${JSON.stringify(transaction.transactionId)},"refunds":[${list.join(',')}]}`,
      };
    }
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
        refunds: [],
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
      transaction.refunds.push({ refundId: nextId('RF-'), amount, date: new Date().toISOString().slice(0, 19).replace('T', ' ') });
      refunds.push({ transactionId: transaction.transactionId, amount, currency: 'PLN' });
      // Tpay's refunds carry no idempotency key (docs-api.tpay.com/refunds: the body is `{}` or
      // `{ "amount" }`), so a refund whose answer is lost is made again if simply retried.
      const lost = loseRefundAnswer;
      loseRefundAnswer = null;
      if (lost === 'reset') return { status: 200, drop: true };
      if (lost === 500) return { status: 500, body: { result: 'failed', errors: [{ errorCode: 'internal_error', errorMessage: 'Internal Server Error' }] } };
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
    jwsUrl: server.baseUrl,
    loseNextRefundAnswer(how) {
      loseRefundAnswer = how;
    },
    notificationFor(transactionId, options: TpayNotificationOptions = {}) {
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
        tr_status: options.status ?? 'TRUE',
        tr_error: 'none',
        tr_email: transaction.payerEmail,
        test_mode: '1',
      };
      const code = options.forged ? 'not-the-security-code' : SECURITY_CODE;
      const md5sum = createHash('md5')
        .update(fields.id + fields.tr_id + fields.tr_amount + fields.tr_crc + code)
        .digest('hex');
      const signed = new URLSearchParams({ ...fields, md5sum }).toString();
      const jws = options.jws ?? (options.forged ? 'impostor' : 'valid');
      const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
      if (jws !== 'none') headers['x-jws-signature'] = signJws(signed, jws, server.baseUrl, pki);
      const rawBody = options.tamper ? new URLSearchParams({ ...fields, ...options.tamper, md5sum }).toString() : signed;
      return { headers, rawBody, contentType: 'application/x-www-form-urlencoded' };
    },
    setDown: server.setDown,
    close: server.close,
  };
}

/**
 * `X-JWS-Signature` as tpay-openapi-php's tests build it: base64url({"alg":"RS256","x5u":…}),
 * an empty payload part (detached), and the RS256 signature over header.base64url(body).
 */
function signJws(body: string, jws: Exclude<TpayJws, 'none'>, origin: string, pki: TpayCertificates): string {
  const x5u = {
    valid: `${origin}/x509/notifications-jws.pem`,
    impostor: `${origin}/x509/impostor-jws.pem`,
    'foreign-x5u': `http://127.0.0.1:9/x509/notifications-jws.pem`,
  }[jws];
  const header = Buffer.from(JSON.stringify({ alg: 'RS256', x5u }), 'utf8').toString('base64url');
  const input = `${header}.${Buffer.from(body, 'utf8').toString('base64url')}`;
  const signature = sign('sha256', Buffer.from(input, 'utf8'), jws === 'impostor' ? pki.impostorKey : pki.signingKey).toString('base64url');
  return `${header}..${signature}`;
}
