import { NotFoundError } from '../../domain/errors.js';
import { getBranding, type BrandingView } from '../account/branding.js';
import { translateTopic } from '../../domain/topic-translations.js';
import { findAccount } from '../../db/repositories/accounts.js';
import type { Lang, Meeting } from '../../domain/meeting.js';
import { findTopicIncludingDeleted } from '../../db/repositories/meeting-topics.js';
import { findMeeting } from '../../db/repositories/meetings.js';
import {
  beginCreationAttempt,
  claimTransactionCreation,
  findMeetingUuidsOfBooking,
  findPayment,
  releaseTransactionClaim,
  startNextCreationAttempt,
  storeGatewayTransaction,
  type StoredPayment,
} from '../../db/repositories/payments.js';
import { findUser } from '../../db/repositories/users.js';
import { newId } from '../../ids.js';
import { type CreatedTransaction, GatewayError, type GatewayCredentials, NotificationRejectedError, type PaymentOrder } from '../../payments/gateway.js';
import type { UseCaseContext } from '../context.js';
import { SecretUnreadableError } from '../../secrets/secret-box.js';
import { openGatewayCredentials } from './credentials.js';
import { type CreationAttempt, paymentStatusAt } from '../../domain/payment.js';
import { settleFailed, settlePaid } from './settle.js';

/** How long one visit may spend creating the gateway transaction before another may try (gateway calls time out after 10 s). */
const CREATION_LEASE_MS = 30_000;
/** How long a visit that lost the race waits for the winner's transaction before showing "preparing". */
const WAIT_FOR_WINNER_MS = 4_000;

/** What the pay page shows about the payment, in the participant's language. */
export interface PayPageView {
  payment: StoredPayment;
  /** As of now (a lapsed hold reads `expired`). */
  status: StoredPayment['status'];
  lang: Lang;
  timezone: string;
  topicName: string;
  meetings: { start: number; end: number; status: Meeting['status'] }[];
  /** The account's name, and the business's look. */
  accountName: string;
  branding: BrandingView;
  /** The topic's message after booking, in the participant's language: shown once paid. */
  confirmationMessage: string;
}

export type PayOutcome =
  | { kind: 'redirect'; url: string }
  /** Nothing to pay (paid, expired, refunded, failed): the page shows the state. */
  | { kind: 'state'; view: PayPageView }
  /** Another visit is creating the transaction right now: the page refreshes itself. */
  | { kind: 'preparing'; view: PayPageView }
  /** The gateway failed; nothing was created and the participant may retry. */
  | { kind: 'gateway-error'; view: PayPageView };

/**
 * `GET /pay/{uuid}`: sends the participant to the gateway's page, creating the gateway's
 * transaction on the first visit only. The creation is claimed in the database with a
 * conditional update and a short lease (one statement, no transaction held), so of any
 * number of concurrent visits on any number of instances one calls the gateway; the others
 * wait briefly for its result. The gateway call itself carries the payment uuid as its
 * idempotency key / external id, so even a crash between the call and the store creates
 * nothing twice where the gateway honours it.
 */
export async function preparePayment(
  ctx: Pick<UseCaseContext, 'publicUrl' | 'now' | 'log' | 'db' | 'secretKey' | 'gateways'>,
  paymentUuid: string,
  customerIp: string | undefined,
): Promise<PayOutcome> {
  let payment = await findPayment(ctx.db, paymentUuid);
  if (!payment) throw new NotFoundError('payment');
  const view = await pageView(ctx, payment);
  if (view.status !== 'pending') return { kind: 'state', view };
  // A request's payment is asked for once the host approves it: until then nothing to pay.
  if (view.meetings.some((meeting) => meeting.status === 'pending_approval')) return { kind: 'state', view };
  if (payment.gatewayRedirectUrl !== null) return { kind: 'redirect', url: payment.gatewayRedirectUrl };

  const token = newId(ctx.now());
  const deadline = Date.now() + WAIT_FOR_WINNER_MS;
  while (!(await claimTransactionCreation(ctx.db, paymentUuid, token, ctx.now(), CREATION_LEASE_MS))) {
    payment = (await findPayment(ctx.db, paymentUuid))!;
    if (payment.gatewayRedirectUrl !== null) return { kind: 'redirect', url: payment.gatewayRedirectUrl };
    if (paymentStatusAt(payment, ctx.now()) !== 'pending') return { kind: 'state', view: await pageView(ctx, payment) };
    if (Date.now() >= deadline) return { kind: 'preparing', view };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  try {
    const credentials = await openGatewayCredentials(ctx, ctx.db, payment.accountUuid, payment.gateway);
    if (!credentials) throw new GatewayError(`${payment.gateway} is no longer configured for the account`, false);
    const created = await createUnderAttempts(ctx, payment, token, credentials, customerIp);
    if (await storeGatewayTransaction(ctx.db, paymentUuid, token, { id: created.gatewayTransactionId, redirectUrl: created.redirectUrl })) {
      return { kind: 'redirect', url: created.redirectUrl };
    }
    // Our lease ran out and another visit stored its transaction: send everyone to that one.
    const stored = await findPayment(ctx.db, paymentUuid);
    return stored?.gatewayRedirectUrl ? { kind: 'redirect', url: stored.gatewayRedirectUrl } : { kind: 'preparing', view };
  } catch (error) {
    await releaseTransactionClaim(ctx.db, paymentUuid, token);
    // Credentials sealed with another secret key: the gateway is unusable here until the
    // operator acts (told once at start-up); the participant sees the gateway-error page.
    if (error instanceof SecretUnreadableError) return { kind: 'gateway-error', view };
    if (!(error instanceof GatewayError)) throw error;
    ctx.log.warn({ paymentUuid, gateway: payment.gateway, reason: error.message, retryable: error.retryable }, 'the gateway refused to create a payment transaction');
    return { kind: 'gateway-error', view };
  }
}

/**
 * Creates the transaction under the payment's stored creation attempt, so a try repeated after
 * a lost answer is the same request. When the gateway will answer that attempt the same way
 * for good (Stripe keeps a 500 under its key, or refuses the key), the next attempt is stored
 * and made at once, once: the participant is not sent away for what a new key fixes, and every
 * later visit starts from the attempt stored.
 */
async function createUnderAttempts(
  ctx: Pick<UseCaseContext, 'publicUrl' | 'now' | 'log' | 'db' | 'gateways'>,
  payment: StoredPayment,
  token: string,
  credentials: GatewayCredentials,
  customerIp: string | undefined,
): Promise<CreatedTransaction> {
  const adapter = ctx.gateways[payment.gateway];
  let attempt = await beginCreationAttempt(ctx.db, payment.uuid, token, ctx.now());
  for (let tries = 1; ; tries += 1) {
    try {
      return await adapter.createTransaction(credentials, await orderOf(ctx, payment, customerIp, attempt));
    } catch (error) {
      if (!(error instanceof GatewayError && error.attemptSpent)) throw error;
      attempt = await startNextCreationAttempt(ctx.db, payment.uuid, token, attempt.number, ctx.now());
      if (tries >= 2) throw error;
      ctx.log.warn({ paymentUuid: payment.uuid, gateway: payment.gateway, reason: error.message }, 'the gateway keeps refusing this creation attempt; making a new one');
    }
  }
}

/**
 * `GET /pay/{uuid}/return`: the participant is back from the gateway. Where the gateway
 * needs it (PayPal), the approved order is captured now; the notification remains what
 * counts everywhere else. Shows the payment's state afterwards.
 */
export async function returnFromGateway(
  ctx: Pick<UseCaseContext, 'publicUrl' | 'now' | 'log' | 'db' | 'secretKey' | 'gateways'>,
  paymentUuid: string,
  query: Record<string, string>,
): Promise<PayPageView> {
  let payment = await findPayment(ctx.db, paymentUuid);
  if (!payment) throw new NotFoundError('payment');
  const adapter = ctx.gateways[payment.gateway];
  if (adapter.completeOnReturn && payment.gatewayTransactionId !== null && (payment.status === 'pending' || payment.status === 'expired')) {
    try {
      const credentials = await openGatewayCredentials(ctx, ctx.db, payment.accountUuid, payment.gateway);
      const outcome =
        credentials &&
        (await adapter.completeOnReturn(
          credentials,
          { paymentUuid, gatewayTransactionId: payment.gatewayTransactionId, amount: payment.amount, currency: payment.currency },
          query,
        ));
      if (outcome?.kind === 'paid') await settlePaid(ctx, payment.accountUuid, paymentUuid, outcome.gatewayTransactionId);
      if (outcome?.kind === 'failed') await settleFailed(ctx, payment.accountUuid, paymentUuid);
    } catch (error) {
      // Unreadable credentials (another secret key): the page shows the payment as it stands.
      if (error instanceof SecretUnreadableError) return pageView(ctx, payment);
      if (!(error instanceof GatewayError || error instanceof NotificationRejectedError)) throw error;
      // The page shows the payment as still pending; the gateway's notification settles it.
      ctx.log.warn({ paymentUuid, gateway: payment.gateway, reason: error.message }, 'completing the payment on return failed');
    }
    payment = (await findPayment(ctx.db, paymentUuid))!;
  }
  return pageView(ctx, payment);
}

async function bookingMeetings(ctx: Pick<UseCaseContext, 'db'>, payment: StoredPayment): Promise<Meeting[]> {
  const uuids = await findMeetingUuidsOfBooking(ctx.db, payment.bookingUuid);
  return (await Promise.all(uuids.map((uuid) => findMeeting(ctx.db, payment.accountUuid, uuid)))).filter((meeting): meeting is Meeting => meeting !== undefined);
}

async function pageView(ctx: Pick<UseCaseContext, 'now' | 'db' | 'publicUrl'>, payment: StoredPayment): Promise<PayPageView> {
  const meetings = await bookingMeetings(ctx, payment);
  const first = meetings[0];
  const topic = first ? await findTopicIncludingDeleted(ctx.db, first.topicUuid) : undefined;
  const [account, branding] = await Promise.all([findAccount(ctx.db, payment.accountUuid), getBranding(ctx, payment.accountUuid)]);
  const words = topic ? translateTopic(topic, first?.participant.lang ?? 'en') : null;
  const now = ctx.now();
  return {
    accountName: account?.name ?? '',
    branding,
    confirmationMessage: words?.confirmationMessage ?? '',
    payment,
    status: paymentStatusAt(payment, now),
    lang: first?.participant.lang ?? 'en',
    timezone: first?.participant.timezone ?? 'UTC',
    topicName: words?.name ?? '',
    meetings: meetings.map((meeting) => ({ start: meeting.start, end: meeting.end, status: meeting.status })),
  };
}

async function orderOf(ctx: Pick<UseCaseContext, 'publicUrl' | 'db'>, payment: StoredPayment, customerIp: string | undefined, attempt: CreationAttempt): Promise<PaymentOrder> {
  const meetings = await bookingMeetings(ctx, payment);
  const first = meetings[0];
  if (!first) throw new GatewayError('the payment has no meetings', false);
  const [topic, host] = await Promise.all([findTopicIncludingDeleted(ctx.db, first.topicUuid), findUser(ctx.db, payment.accountUuid, first.hostUuid)]);
  const hostName = host ? `${host.firstName} ${host.lastName}` : first.hostUsername;
  const count = meetings.length > 1 ? ` (×${meetings.length})` : '';
  return {
    paymentUuid: payment.uuid,
    accountUuid: payment.accountUuid,
    amount: payment.amount,
    currency: payment.currency,
    description: `${topic?.name ?? 'Meeting'} with ${hostName}${count}`.replace(/[\u0000-\u001f\u007f]/g, ' '),
    customer: { name: first.participant.name, email: first.participant.email, lang: first.participant.lang },
    returnUrl: `${ctx.publicUrl}/pay/${payment.uuid}/return`,
    notifyUrl: `${ctx.publicUrl}/api/v1/payments/${payment.gateway}/notifications/${payment.accountUuid}`,
    expiresAt: payment.expiresAt,
    customerIp,
    attempt,
  };
}
