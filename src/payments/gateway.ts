import type { Gateway } from '../domain/account.js';
import type { Lang } from '../domain/meeting.js';
import type { CreationAttempt } from '../domain/payment.js';

/**
 * The port every payment adapter implements. Use cases call these and never branch on a
 * vendor; `registry.ts` maps codes to adapters in one place. Adapters turn vendor shapes
 * into these types at the edge, call only the gateway's documented REST paths under their
 * configured base URL, give every call a timeout, and never log a credential.
 *
 * Amounts are integers in the currency's minor units (ISO 4217 exponent: 15000 PLN =
 * 150.00 zł, 1500 JPY = ¥1,500), as everywhere in termin.
 */
export interface GatewayCredentials {
  /** The non-secret settings (merchantId, posId, clientId, …; src/domain/gateway-settings.ts). */
  settings: Record<string, string | number>;
  /** The decrypted secrets (secretKey, crc, clientSecret, …); only adapters see them. */
  secrets: Record<string, string>;
}

export interface PaymentOrder {
  /**
   * termin's payment uuid: the gateway's session / external order id, so a retry is recognised
   * (PayU, which refuses a repeated extOrderId even after a lost answer, adds a per-attempt suffix).
   */
  paymentUuid: string;
  accountUuid: string;
  amount: number;
  currency: string;
  /** One line for the gateway's page and statement, e.g. "Intro call with Anna Nowak". */
  description: string;
  customer: { name: string; email: string; lang: Lang };
  /** `{PUBLIC_URL}/pay/{paymentUuid}/return` */
  returnUrl: string;
  /** `{PUBLIC_URL}/api/v1/payments/{gateway}/notifications/{accountUuid}` */
  notifyUrl: string;
  /** When the slot hold lapses; adapters that can limit the gateway's page do so. */
  expiresAt: number;
  /** The participant's address, where a gateway requires it (PayU's customerIp). */
  customerIp?: string | undefined;
  /**
   * Which try at creating this transaction this is, as stored with the payment. A gateway that
   * keeps answers per idempotency key (Stripe) keys the call by it and derives every
   * time-bound parameter from `startedAt`, never from the clock, so a repeated try is the same
   * request; others may ignore it.
   */
  attempt: CreationAttempt;
}

export interface CreatedTransaction {
  /** The gateway's own id (Checkout Session id, P24 token, PayU orderId, PayPal order id, Tpay transactionId). */
  gatewayTransactionId: string;
  /** The gateway's payment page, where the participant is sent with 303. */
  redirectUrl: string;
}

export interface IncomingNotification {
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  /** The body exactly as received: signatures are computed over these bytes. */
  rawBody: string;
  contentType: string | undefined;
}

export type NotificationOutcome =
  /** The gateway says the money is in. Amount and currency as the gateway reports them. */
  | { kind: 'paid'; paymentUuid: string; gatewayTransactionId: string; amount: number; currency: string }
  | { kind: 'failed'; paymentUuid: string; gatewayTransactionId: string }
  /** Authentic but nothing to act on (a pending status, an event termin does not use). */
  | { kind: 'ignored'; reason: string };

export interface VerifiedNotification {
  outcome: NotificationOutcome;
  /** What this gateway expects back on success ("OK", "TRUE", {"received":true}, …). */
  reply: { status: number; contentType: string; body: string };
}

/** A notification whose signature or shape does not check out: answered 400, nothing changes. */
export class NotificationRejectedError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'NotificationRejectedError';
  }
}

/**
 * The gateway could not be reached or refused a call; `retryable` when trying later may help.
 * `attemptSpent`: the gateway will give this same answer to the same creation attempt from
 * now on (it kept the answer under the attempt's idempotency key, or refuses the key), so the
 * next try must be a new attempt (`PaymentOrder.attempt`).
 */
export class GatewayError extends Error {
  readonly attemptSpent: boolean;
  /** The gateway's `Retry-After` with a refusal, in ms from then (null: it named no wait), for a caller that paces its next try. */
  readonly retryAfterMs: number | null;

  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    options: { attemptSpent?: boolean; retryAfterMs?: number | null } = {},
  ) {
    super(message);
    this.name = 'GatewayError';
    this.attemptSpent = options.attemptSpent ?? false;
    this.retryAfterMs = options.retryAfterMs ?? null;
  }
}

export type PaymentLookup = (paymentUuid: string) => Promise<{ amount: number; currency: string; gatewayTransactionId: string | null } | null>;

export interface RefundRequest {
  paymentUuid: string;
  gatewayTransactionId: string;
  amount: number;
  currency: string;
  reason: string;
  /** Makes a retried refund a no-op at gateways that support it. */
  idempotencyKey: string;
}

/** A refund the gateway lists as made of a transaction; amount in minor units. */
export interface GatewayRefund {
  refundId: string;
  amount: number;
}

export interface GatewayAdapter {
  readonly code: Gateway;
  /** Creates the transaction on the gateway (first visit of /pay/{uuid}). */
  createTransaction(credentials: GatewayCredentials, order: PaymentOrder): Promise<CreatedTransaction>;
  /**
   * Authenticates a notification by the gateway's own scheme and says what it means.
   * Where the gateway wants a confirming call before money counts as received (P24's
   * transaction/verify), this makes it. Throws NotificationRejectedError for anything
   * forged, unsigned or malformed, and for a notification whose amount or currency is not
   * what `lookup` says the payment expects (checked before any confirming call, so the
   * gateway is never told a wrong amount is accepted). `lookup` answers null for a payment
   * termin does not know (also rejected).
   */
  verifyNotification(credentials: GatewayCredentials, notification: IncomingNotification, lookup: PaymentLookup): Promise<VerifiedNotification>;
  /**
   * The participant came back to the return URL. PayPal captures the approved order here;
   * others may look the transaction up. Returns null when the return says nothing new
   * (the notification is what counts).
   */
  completeOnReturn?(
    credentials: GatewayCredentials,
    payment: { paymentUuid: string; gatewayTransactionId: string; amount: number; currency: string },
    query: Record<string, string>,
  ): Promise<NotificationOutcome | null>;
  /**
   * The refunds the gateway has made of the transaction. Only gateways whose refunds take no
   * idempotency key (Tpay) have it: before a refund whose answer was lost is asked again, the
   * use case looks here for it (src/scheduling/payments/refunds.ts).
   */
  listRefunds?(credentials: GatewayCredentials, transaction: { gatewayTransactionId: string; currency: string }): Promise<GatewayRefund[]>;
  refund(credentials: GatewayCredentials, refund: RefundRequest): Promise<{ refundId: string }>;
  /**
   * Why this gateway can never take `amount` (minor units of the ISO 4217 exponent) in
   * `currency`, by its own documentation, or null when it can: a currency it does not
   * process, or an amount it cannot express (Stripe's three-decimal amounts must end in 0,
   * PayPal takes HUF in whole forints). Asked before a booking is accepted and by the booking
   * page, so nobody is sent a payment e-mail that can never be paid. No call is made.
   */
  amountRefusal(amount: number, currency: string): string | null;
}
