import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Gateway } from '../../src/domain/account.js';
import type { GatewayCredentials, IncomingNotification, PaymentLookup, PaymentOrder } from '../../src/payments/gateway.js';

/** One request the fake received, as it arrived. */
export interface RecordedCall {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface FakeReply {
  status: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON, a string as is. */
  body?: unknown;
  /**
   * The gateway did the work but its answer is lost on the way back: the connection is cut
   * instead of answering, as a proxy or network failure would, so the caller cannot tell.
   */
  drop?: boolean;
}

/** A refund the fake accepted, in termin's minor units. */
export interface FakeRefund {
  transactionId: string;
  amount: number;
  currency: string;
}

/**
 * What every fake gateway offers, so an end-to-end test can loop over all five:
 * point the adapter at `baseUrl`, configure the account with `credentials`, drive the
 * payment with `notificationFor`, and check `calls` / `refunds`.
 */
export interface FakeGateway {
  readonly code: Gateway;
  readonly baseUrl: string;
  /** Settings and secrets the fake accepts (what an operator would copy from the gateway's panel). */
  readonly credentials: GatewayCredentials;
  readonly calls: RecordedCall[];
  readonly refunds: FakeRefund[];
  /**
   * A notification the gateway would send about a transaction it created (by the id
   * createTransaction returned), signed as the gateway signs it. `amount` (minor units)
   * overrides the paid amount; `forged` signs it with a wrong key.
   */
  notificationFor(transactionId: string, options?: { amount?: number; forged?: boolean }): IncomingNotification;
  /** true: answer every call with 503; 'reset': drop connections without answering; false: back up. */
  setDown(down: boolean | 'reset'): void;
  close(): Promise<void>;
}

export interface FakeServer {
  baseUrl: string;
  calls: RecordedCall[];
  setDown(down: boolean | 'reset'): void;
  close(): Promise<void>;
}

/** A Node http server on 127.0.0.1, port 0, that records each call and lets `handle` answer it. */
export async function startFakeServer(handle: (call: RecordedCall) => FakeReply | Promise<FakeReply>): Promise<FakeServer> {
  const calls: RecordedCall[] = [];
  let down: boolean | 'reset' = false;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://fake');
      const call: RecordedCall = {
        method: request.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      calls.push(call);
      if (down === 'reset') {
        request.socket.destroy();
        return;
      }
      if (down) {
        response.writeHead(503, { 'content-type': 'text/plain' }).end('Service Unavailable');
        return;
      }
      Promise.resolve()
        .then(() => handle(call))
        .then(
          (reply) => send(response, reply),
          (error: unknown) => send(response, { status: 500, body: { error: String(error) } }),
        );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    calls,
    setDown(value) {
      down = value;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

function send(response: http.ServerResponse, reply: FakeReply): void {
  if (reply.drop) {
    response.socket?.destroy();
    return;
  }
  const headers: Record<string, string> = { ...reply.headers };
  let body = '';
  if (typeof reply.body === 'string') body = reply.body;
  else if (reply.body !== undefined) {
    body = JSON.stringify(reply.body);
    headers['content-type'] ??= 'application/json';
  }
  response.writeHead(reply.status, headers).end(body);
}

export function parseJson(body: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The bearer token of a call, or undefined. */
export function bearer(call: RecordedCall): string | undefined {
  const match = /^Bearer (.+)$/.exec(call.headers.authorization ?? '');
  return match?.[1];
}

/** user and password of a Basic authorization header, or undefined. */
export function basicCredentials(call: RecordedCall): { user: string; password: string } | undefined {
  const match = /^Basic (.+)$/.exec(call.headers.authorization ?? '');
  if (match?.[1] === undefined) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const index = decoded.indexOf(':');
  return index < 0 ? undefined : { user: decoded.slice(0, index), password: decoded.slice(index + 1) };
}

let counter = 0;
/** Ids unique within a test run, prefixed like the gateway's own. */
export function nextId(prefix: string): string {
  counter += 1;
  return `${prefix}${Date.now().toString(36).toUpperCase()}${counter.toString().padStart(4, '0')}`;
}

/** A payment as `GET /pay/{uuid}` would hand it to an adapter; overrides for the case at hand. */
export function sampleOrder(overrides: Partial<PaymentOrder> = {}): PaymentOrder {
  const paymentUuid = overrides.paymentUuid ?? randomUUID();
  const accountUuid = overrides.accountUuid ?? randomUUID();
  return {
    paymentUuid,
    accountUuid,
    amount: 15_000,
    currency: 'PLN',
    description: 'Intro call with Anna Nowak',
    customer: { name: 'Jan Kowalski', email: 'jan@example.com', lang: 'pl' },
    returnUrl: `https://termin.example/pay/${paymentUuid}/return`,
    notifyUrl: `https://termin.example/api/v1/payments/gateway/notifications/${accountUuid}`,
    expiresAt: Date.now() + 60 * 60 * 1000,
    customerIp: '203.0.113.7',
    attempt: { number: 0, startedAt: Date.now() },
    ...overrides,
  };
}

/** termin's side of `lookup`: the payments it created, with the gateway ids it stored. */
export function memoryLookup(): { lookup: PaymentLookup; remember(order: PaymentOrder, gatewayTransactionId: string): void } {
  const payments = new Map<string, { amount: number; currency: string; gatewayTransactionId: string | null }>();
  return {
    lookup: async (paymentUuid) => payments.get(paymentUuid) ?? null,
    remember(order, gatewayTransactionId) {
      payments.set(order.paymentUuid, { amount: order.amount, currency: order.currency, gatewayTransactionId });
    },
  };
}
