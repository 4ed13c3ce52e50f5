import { createHmac, randomBytes } from 'node:crypto';
import { bearer, nextId, startFakeServer, type FakeGateway, type FakeRefund, type FakeReply, type RecordedCall } from './common-gateway.js';

interface StripeSession {
  id: string;
  object: 'checkout.session';
  url: string;
  mode: string;
  status: 'open' | 'complete';
  payment_status: 'unpaid' | 'paid';
  amount_total: number;
  currency: string;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  customer_email: string | null;
  locale: string | null;
  expires_at: number;
  success_url: string;
  payment_intent: string | null;
  refunded: number;
}

export interface FakeStripe extends FakeGateway {
  readonly sessions: Map<string, StripeSession>;
  /** Parsed form bodies of the Checkout Session creations, in order. */
  readonly sessionRequests: Record<string, unknown>[];
}

const SECRET_KEY = 'sk_test_51FakeTerminKey';
const WEBHOOK_SECRET = 'whsec_fakeTerminWebhookSecret';

const stripeError = (status: number, message: string, param?: string, code?: string): FakeReply => ({
  status,
  body: { error: { type: 'invalid_request_error', message, ...(param === undefined ? {} : { param }), ...(code === undefined ? {} : { code }) } },
});

/** Plays Stripe's REST API as the stripe SDK calls it: form-encoded bodies, Bearer secret key, Idempotency-Key. */
export async function startFakeStripe(): Promise<FakeStripe> {
  const sessions = new Map<string, StripeSession>();
  const sessionRequests: Record<string, unknown>[] = [];
  const refunds: FakeRefund[] = [];
  const idempotent = new Map<string, FakeReply>();

  const server = await startFakeServer((call: RecordedCall): FakeReply => {
    if (bearer(call) !== SECRET_KEY) return { status: 401, body: { error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_****' } } };
    const key = call.headers['idempotency-key'] as string | undefined;
    const replay = key === undefined ? undefined : idempotent.get(`${call.path}\u0000${key}`);
    if (replay !== undefined) return replay;
    const reply = route(call);
    if (key !== undefined && reply.status < 500) idempotent.set(`${call.path}\u0000${key}`, reply);
    return reply;
  });

  function route(call: RecordedCall): FakeReply {
    if (call.method === 'POST' && call.path === '/v1/checkout/sessions') {
      const form = parseStripeForm(call.body);
      sessionRequests.push(form);
      const item = (form.line_items as Record<string, unknown>[] | undefined)?.[0];
      const price = item?.price_data as Record<string, unknown> | undefined;
      const now = Math.floor(Date.now() / 1000);
      if (form.mode !== 'payment') return stripeError(400, 'Invalid mode', 'mode');
      if (typeof price?.currency !== 'string' || price.currency !== price.currency.toLowerCase())
        return stripeError(400, 'Invalid currency', 'line_items[0][price_data][currency]');
      if (typeof price.unit_amount !== 'string' || !/^\d+$/.test(price.unit_amount)) return stripeError(400, 'Invalid integer', 'line_items[0][price_data][unit_amount]');
      if (typeof form.success_url !== 'string') return stripeError(400, 'Missing required param: success_url.', 'success_url');
      const expiresAt = form.expires_at === undefined ? now + 86_400 : Number(form.expires_at);
      if (expiresAt < now + 1800 || expiresAt > now + 86_400)
        return stripeError(400, 'The `expires_at` timestamp must be between 30 minutes and 24 hours from Checkout Session creation.', 'expires_at');
      const id = `cs_test_${randomBytes(12).toString('hex')}`;
      const session: StripeSession = {
        id,
        object: 'checkout.session',
        url: `${server.baseUrl}/c/pay/${id}`,
        mode: 'payment',
        status: 'open',
        payment_status: 'unpaid',
        amount_total: Number(price.unit_amount) * Number(item?.quantity ?? 1),
        currency: price.currency,
        client_reference_id: typeof form.client_reference_id === 'string' ? form.client_reference_id : null,
        metadata: (form.metadata as Record<string, string> | undefined) ?? {},
        customer_email: typeof form.customer_email === 'string' ? form.customer_email : null,
        locale: typeof form.locale === 'string' ? form.locale : null,
        expires_at: expiresAt,
        success_url: form.success_url,
        payment_intent: null,
        refunded: 0,
      };
      sessions.set(id, session);
      return { status: 200, body: view(session) };
    }
    const sessionPath = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(call.path);
    if (call.method === 'GET' && sessionPath?.[1] !== undefined) {
      const session = sessions.get(decodeURIComponent(sessionPath[1]));
      return session === undefined ? stripeError(404, 'No such checkout.session', 'session', 'resource_missing') : { status: 200, body: view(session) };
    }
    if (call.method === 'POST' && call.path === '/v1/refunds') {
      const form = parseStripeForm(call.body);
      const session = [...sessions.values()].find((s) => s.payment_intent !== null && s.payment_intent === form.payment_intent);
      if (session === undefined) return stripeError(404, 'No such payment_intent', 'payment_intent', 'resource_missing');
      const amount = form.amount === undefined ? session.amount_total - session.refunded : Number(form.amount);
      if (!Number.isSafeInteger(amount) || amount <= 0 || amount > session.amount_total - session.refunded)
        return stripeError(400, 'Refund amount is greater than unrefunded amount', 'amount', 'amount_too_large');
      session.refunded += amount;
      refunds.push({ transactionId: session.id, amount, currency: session.currency.toUpperCase() });
      return {
        status: 200,
        body: {
          id: nextId('re_'),
          object: 'refund',
          amount,
          currency: session.currency,
          payment_intent: session.payment_intent,
          status: 'succeeded',
          metadata: form.metadata ?? {},
        },
      };
    }
    return stripeError(404, `Unrecognized request URL (${call.method}: ${call.path})`);
  }

  function view(session: StripeSession): Omit<StripeSession, 'refunded'> {
    const { refunded: _refunded, ...rest } = session;
    return rest;
  }

  return {
    code: 'stripe',
    baseUrl: server.baseUrl,
    credentials: { settings: {}, secrets: { secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET } },
    calls: server.calls,
    refunds,
    sessions,
    sessionRequests,
    notificationFor(sessionId, options = {}) {
      const session = sessions.get(sessionId);
      if (session === undefined) throw new Error(`fake stripe: no session ${sessionId}`);
      session.status = 'complete';
      session.payment_status = 'paid';
      session.payment_intent ??= nextId('pi_');
      const rawBody = JSON.stringify({
        id: nextId('evt_'),
        object: 'event',
        api_version: '2025-01-27.acacia',
        created: Math.floor(Date.now() / 1000),
        type: 'checkout.session.completed',
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        data: { object: { ...view(session), amount_total: options.amount ?? session.amount_total } },
      });
      const timestamp = Math.floor(Date.now() / 1000);
      const secret = options.forged ? 'whsec_forged' : WEBHOOK_SECRET;
      const signature = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');
      return {
        headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': `t=${timestamp},v1=${signature}` },
        rawBody,
        contentType: 'application/json; charset=utf-8',
      };
    },
    setDown: server.setDown,
    close: server.close,
  };
}

/** `a[b][0][c]=1&d=2` → `{ a: { b: [{ c: '1' }] }, d: '2' }`: Stripe's form encoding read back. */
export function parseStripeForm(body: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [rawKey, value] of new URLSearchParams(body)) {
    const parts = rawKey.split(/[[\]]+/).filter((part) => part !== '');
    let node: Record<string, unknown> | unknown[] = root;
    parts.forEach((part, index) => {
      const last = index === parts.length - 1;
      const container = node as Record<string, unknown>;
      if (last) {
        container[part] = value;
        return;
      }
      const nextIsIndex = /^\d+$/.test(parts[index + 1] ?? '');
      container[part] ??= nextIsIndex ? [] : {};
      node = container[part] as Record<string, unknown>;
    });
  }
  return root;
}
