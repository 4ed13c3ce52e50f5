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
  /** Parsed form bodies of the Checkout Session creations that reached the endpoint, in order (replays excluded). */
  readonly sessionRequests: Record<string, unknown>[];
  /**
   * The next `count` Checkout Session creations fail inside the endpoint with `status` (an
   * `api_error`), creating nothing. Stripe keeps such an answer under the request's
   * idempotency key like any other, so the same key gets it again.
   */
  failNextCreates(count: number, status?: number): void;
  /**
   * The next `count` answers to Checkout Session creations are lost on the way back: the
   * request is carried out (and its result kept under the key) but the connection drops.
   * Replays count too, so 2 also defeats the SDK's one automatic retry of a closed connection.
   */
  loseNextCreateAnswers(count: number): void;
}

export interface FakeStripeOptions {
  /**
   * Stripe's clock, for what it checks against the time (`expires_at` between 30 minutes and
   * 24 hours from creation, idempotency keys kept 24 hours). Give it termin's clock in tests
   * that move time; Date.now by default.
   */
  now?: () => number;
}

const SECRET_KEY = 'sk_test_51FakeTerminKey';
const WEBHOOK_SECRET = 'whsec_fakeTerminWebhookSecret';

const stripeError = (status: number, message: string, param?: string, code?: string): FakeReply => ({
  status,
  body: { error: { type: 'invalid_request_error', message, ...(param === undefined ? {} : { param }), ...(code === undefined ? {} : { code }) } },
});

/**
 * Plays Stripe's REST API as the stripe SDK calls it: form-encoded bodies, Bearer secret key,
 * Idempotency-Key.
 *
 * Idempotency as docs.stripe.com/api/idempotent_requests describes it: "Stripe saves the
 * status code and body of the first request made with a given idempotency key after endpoint
 * execution begins. Retries with the same key return the saved response, including 500
 * errors." A request that fails validation (or authentication) saves nothing. "The
 * idempotency layer compares incoming parameters to those of the original request and errors
 * if they're not the same": a reuse of a key with other parameters or on another endpoint is
 * a 400 `idempotency_error`. Keys may be pruned once 24 hours old; here they are, exactly then.
 */
export async function startFakeStripe(options: FakeStripeOptions = {}): Promise<FakeStripe> {
  const clock = options.now ?? (() => Date.now());
  const sessions = new Map<string, StripeSession>();
  const sessionRequests: Record<string, unknown>[] = [];
  const refunds: FakeRefund[] = [];
  const idempotent = new Map<string, { endpoint: string; parameters: string; reply: FakeReply; savedAt: number }>();
  const failures: number[] = [];
  let answersToLose = 0;

  const server = await startFakeServer((call: RecordedCall): FakeReply => {
    if (bearer(call) !== SECRET_KEY) return { status: 401, body: { error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_****' } } };
    const key = call.headers['idempotency-key'] as string | undefined;
    const endpoint = `${call.method} ${call.path}`;
    const parameters = canonicalParameters(call.body);
    const saved = key === undefined ? undefined : idempotent.get(key);
    if (saved !== undefined && clock() - saved.savedAt < 24 * 3_600_000) {
      if (saved.endpoint !== endpoint || saved.parameters !== parameters) {
        return {
          status: 400,
          body: {
            error: {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
            },
          },
        };
      }
      return loseIfAsked(call, { ...saved.reply, headers: { ...saved.reply.headers, 'idempotent-replayed': 'true' } });
    }
    const { reply, executed } = route(call);
    if (key !== undefined && executed) idempotent.set(key, { endpoint, parameters, reply, savedAt: clock() });
    return loseIfAsked(call, reply);
  });

  function loseIfAsked(call: RecordedCall, reply: FakeReply): FakeReply {
    if (answersToLose > 0 && call.method === 'POST' && call.path === '/v1/checkout/sessions') {
      answersToLose -= 1;
      return { ...reply, drop: true };
    }
    return reply;
  }

  /** The answer, and whether the endpoint began executing (so the answer is kept under the key). */
  function route(call: RecordedCall): { reply: FakeReply; executed: boolean } {
    if (call.method === 'POST' && call.path === '/v1/checkout/sessions') {
      const form = parseStripeForm(call.body);
      const item = (form.line_items as Record<string, unknown>[] | undefined)?.[0];
      const price = item?.price_data as Record<string, unknown> | undefined;
      const now = Math.floor(clock() / 1000);
      const invalid = (reply: FakeReply) => ({ reply, executed: false });
      if (form.mode !== 'payment') return invalid(stripeError(400, 'Invalid mode', 'mode'));
      if (typeof price?.currency !== 'string' || price.currency !== price.currency.toLowerCase())
        return invalid(stripeError(400, 'Invalid currency', 'line_items[0][price_data][currency]'));
      if (typeof price.unit_amount !== 'string' || !/^\d+$/.test(price.unit_amount)) return invalid(stripeError(400, 'Invalid integer', 'line_items[0][price_data][unit_amount]'));
      if (typeof form.success_url !== 'string') return invalid(stripeError(400, 'Missing required param: success_url.', 'success_url'));
      const expiresAt = form.expires_at === undefined ? now + 86_400 : Number(form.expires_at);
      if (expiresAt < now + 1800 || expiresAt > now + 86_400)
        return invalid(stripeError(400, 'The `expires_at` timestamp must be between 30 minutes and 24 hours from Checkout Session creation.', 'expires_at'));
      sessionRequests.push(form);
      const failure = failures.shift();
      if (failure !== undefined) return { reply: { status: failure, body: { error: { type: 'api_error', message: 'An unknown error occurred' } } }, executed: true };
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
      return { reply: { status: 200, body: view(session) }, executed: true };
    }
    const sessionPath = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(call.path);
    if (call.method === 'GET' && sessionPath?.[1] !== undefined) {
      const session = sessions.get(decodeURIComponent(sessionPath[1]));
      return { reply: session === undefined ? stripeError(404, 'No such checkout.session', 'session', 'resource_missing') : { status: 200, body: view(session) }, executed: true };
    }
    if (call.method === 'POST' && call.path === '/v1/refunds') {
      const form = parseStripeForm(call.body);
      const session = [...sessions.values()].find((s) => s.payment_intent !== null && s.payment_intent === form.payment_intent);
      if (session === undefined) return { reply: stripeError(404, 'No such payment_intent', 'payment_intent', 'resource_missing'), executed: false };
      const amount = form.amount === undefined ? session.amount_total - session.refunded : Number(form.amount);
      if (!Number.isSafeInteger(amount) || amount <= 0 || amount > session.amount_total - session.refunded)
        return { reply: stripeError(400, 'Refund amount is greater than unrefunded amount', 'amount', 'amount_too_large'), executed: false };
      session.refunded += amount;
      refunds.push({ transactionId: session.id, amount, currency: session.currency.toUpperCase() });
      return {
        executed: true,
        reply: {
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
        },
      };
    }
    return { reply: stripeError(404, `Unrecognized request URL (${call.method}: ${call.path})`), executed: false };
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
    failNextCreates(count, status = 500) {
      for (let i = 0; i < count; i += 1) failures.push(status);
    },
    loseNextCreateAnswers(count) {
      answersToLose += count;
    },
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

/** A request's parameters in one comparable form: the same parameters in any order give the same text. */
function canonicalParameters(body: string): string {
  const sorted = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sorted)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(
            Object.entries(value as Record<string, unknown>)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([name, inner]) => [name, sorted(inner)]),
          )
        : value;
  return JSON.stringify(sorted(parseStripeForm(body)));
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
