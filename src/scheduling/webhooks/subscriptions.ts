import { ForbiddenError, NotFoundError, ValidationError } from '../../domain/errors.js';
import type { WebhookEventType } from '../../domain/events.js';
import { isAdminOfAnyTeam } from '../../db/repositories/teams.js';
import {
  deleteSubscription,
  findDeliveryOfSubscription,
  findSubscription,
  insertSubscription,
  listDeliveries,
  listSubscriptions,
  restartDelivery,
  rotateSubscriptionSecret,
  updateSubscription,
  type SubscriptionChanges,
} from '../../db/repositories/webhooks.js';
import type { DbOrTrx } from '../../db/database.js';
import { inTransaction } from '../../db/transaction.js';
import { newId } from '../../ids.js';
import { assertAllowedUrl, OutboundUrlRefusedError } from '../../net/outbound-guard.js';
import { sealSecret } from '../../secrets/secret-box.js';
import { generateWebhookSecret } from '../../webhooks/signing.js';
import { WEBHOOK_JOB_KIND, enqueueJobs, type WebhookJobPayload } from '../../outbox/job-kinds.js';
import type { Principal, UseCaseContext } from '../context.js';
import { actorOf, recordAuditEvent } from '../audit/record-audit.js';
import { changedFields } from '../../domain/audit.js';
import type { WebhookDelivery, WebhookSubscription } from '../../domain/webhook.js';
import { decodeCursor, encodeCursor, pageOf, type Page } from '../../domain/paging.js';

/** An account holds at most this many subscriptions: each event costs one request per subscription. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 50;

export interface CreateWebhookInput {
  url: string;
  events: WebhookEventType[];
  description?: string | null | undefined;
}

export interface UpdateWebhookInput {
  url?: string | undefined;
  events?: WebhookEventType[] | undefined;
  description?: string | null | undefined;
  enabled?: boolean | undefined;
}

/** Admins of any team of the account manage its webhooks. */
async function requireAccountAdmin(db: DbOrTrx, principal: Principal): Promise<void> {
  if (!(await isAdminOfAnyTeam(db, principal.userUuid))) throw new ForbiddenError('Only a team admin may manage webhooks');
}

/** The URL as the guard sees it now: a refusal is a 400 at `/url`. */
async function checkUrl(ctx: Pick<UseCaseContext, 'outbound'>, url: string): Promise<string> {
  try {
    return (await assertAllowedUrl(url, { allowPrivate: ctx.outbound.allowPrivate, resolver: ctx.outbound.resolver })).href;
  } catch (error) {
    if (error instanceof OutboundUrlRefusedError) throw new ValidationError([{ path: '/url', message: error.message }]);
    throw error;
  }
}

/** A new subscription and its signing secret, which only this answer shows. */
export async function createWebhook(
  ctx: Pick<UseCaseContext, 'now' | 'db' | 'secretKey' | 'outbound'>,
  principal: Principal,
  input: CreateWebhookInput,
): Promise<{ webhook: WebhookSubscription; secret: string }> {
  await requireAccountAdmin(ctx.db, principal);
  // Resolved before the transaction: DNS is slow and must not hold a connection.
  const url = await checkUrl(ctx, input.url);
  const secret = generateWebhookSecret();
  const secretSealed = sealSecret(ctx.secretKey, secret);
  return inTransaction(ctx.db, async (trx) => {
    if ((await listSubscriptions(trx, principal.accountUuid)).length >= MAX_WEBHOOKS_PER_ACCOUNT) {
      throw new ValidationError([{ path: '', message: `an account may have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks` }]);
    }
    const now = ctx.now();
    const webhook: WebhookSubscription = {
      uuid: newId(now),
      accountUuid: principal.accountUuid,
      url,
      events: [...new Set(input.events)],
      description: input.description ?? null,
      enabled: true,
      failingSince: null,
      disabledAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await insertSubscription(trx, { ...webhook, secretSealed });
    // The receiver's host and the events, never the signing secret (nor the URL's path and query, which may carry a token).
    const details = { host: new URL(url).host, events: webhook.events };
    await recordAuditEvent(trx, {
      accountUuid: webhook.accountUuid,
      action: 'webhook.created',
      actor: actorOf(principal),
      target: { type: 'webhook', uuid: webhook.uuid },
      details,
      now,
    });
    return { webhook, secret };
  });
}

/** Oldest first, a page at a time (an account has at most MAX_WEBHOOKS_PER_ACCOUNT, so the page is cut from the whole list). */
export async function listWebhooks(
  ctx: Pick<UseCaseContext, 'db'>,
  principal: Principal,
  query: { limit?: number | undefined; cursor?: string | undefined } = {},
): Promise<Page<WebhookSubscription>> {
  await requireAccountAdmin(ctx.db, principal);
  return pageOf(await listSubscriptions(ctx.db, principal.accountUuid), (webhook) => [webhook.createdAt, webhook.uuid], query);
}

export async function getWebhook(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, uuid: string): Promise<WebhookSubscription> {
  await requireAccountAdmin(ctx.db, principal);
  const webhook = await findSubscription(ctx.db, principal.accountUuid, uuid);
  if (!webhook) throw new NotFoundError('webhook');
  return webhook;
}

/** Enabling again also forgets the failure streak, so it gets its full 3 days. */
export async function updateWebhook(
  ctx: Pick<UseCaseContext, 'now' | 'db' | 'outbound'>,
  principal: Principal,
  uuid: string,
  input: UpdateWebhookInput,
): Promise<WebhookSubscription> {
  await requireAccountAdmin(ctx.db, principal);
  const url = input.url === undefined ? undefined : await checkUrl(ctx, input.url);
  return inTransaction(ctx.db, async (trx) => {
    const webhook = await findSubscription(trx, principal.accountUuid, uuid);
    if (!webhook) throw new NotFoundError('webhook');
    const changes: SubscriptionChanges = {};
    if (url !== undefined) changes.url = url;
    if (input.events !== undefined) changes.events = [...new Set(input.events)];
    if (input.description !== undefined) changes.description = input.description;
    if (input.enabled !== undefined && input.enabled !== webhook.enabled) {
      changes.enabled = input.enabled;
      changes.failingSince = null;
      changes.disabledAt = null;
    }
    const now = ctx.now();
    await updateSubscription(trx, uuid, changes, now);
    const details = { changed: changedFields(input) };
    await recordAuditEvent(trx, { accountUuid: webhook.accountUuid, action: 'webhook.updated', actor: actorOf(principal), target: { type: 'webhook', uuid }, details, now });
    return { ...webhook, ...changes, updatedAt: now } as WebhookSubscription;
  });
}

/** How long deliveries after a rotation are signed with the replaced secret too. */
export const PREVIOUS_SECRET_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * A new signing secret, shown only in this answer. For 24 hours deliveries carry a signature
 * by the new secret and one by the replaced one, so the receiver can switch at its own pace;
 * a secret replaced earlier (rotating twice within the day) stops signing at once.
 */
export async function rotateWebhookSecret(
  ctx: Pick<UseCaseContext, 'now' | 'db' | 'secretKey'>,
  principal: Principal,
  uuid: string,
): Promise<{ webhook: WebhookSubscription; secret: string }> {
  await requireAccountAdmin(ctx.db, principal);
  const secret = generateWebhookSecret();
  const secretSealed = sealSecret(ctx.secretKey, secret);
  return inTransaction(ctx.db, async (trx) => {
    const webhook = await findSubscription(trx, principal.accountUuid, uuid);
    if (!webhook) throw new NotFoundError('webhook');
    const now = ctx.now();
    await rotateSubscriptionSecret(trx, uuid, secretSealed, now + PREVIOUS_SECRET_TTL_MS, now);
    // That it was rotated, never the secret.
    const details = { changed: ['secret'] };
    await recordAuditEvent(trx, { accountUuid: webhook.accountUuid, action: 'webhook.updated', actor: actorOf(principal), target: { type: 'webhook', uuid }, details, now });
    return { webhook: { ...webhook, updatedAt: now }, secret };
  });
}

/** Deletes it with its delivery log; deliveries not yet made are dropped. */
export async function deleteWebhook(ctx: Pick<UseCaseContext, 'now' | 'db'>, principal: Principal, uuid: string): Promise<void> {
  await requireAccountAdmin(ctx.db, principal);
  await inTransaction(ctx.db, async (trx) => {
    if (!(await deleteSubscription(trx, principal.accountUuid, uuid))) throw new NotFoundError('webhook');
    await recordAuditEvent(trx, { accountUuid: principal.accountUuid, action: 'webhook.deleted', actor: actorOf(principal), target: { type: 'webhook', uuid }, now: ctx.now() });
  });
}

export interface DeliveryPage {
  deliveries: WebhookDelivery[];
  nextCursor: string | null;
}

/** The delivery log, newest first, a page at a time; the cursor is opaque to clients. */
export async function listWebhookDeliveries(
  ctx: Pick<UseCaseContext, 'db'>,
  principal: Principal,
  uuid: string,
  query: { limit?: number | undefined; cursor?: string | undefined },
): Promise<DeliveryPage> {
  const webhook = await getWebhook(ctx, principal, uuid);
  const limit = query.limit ?? 50;
  const before = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const rows = await listDeliveries(ctx.db, webhook.uuid, limit + 1, before && { createdAt: before[0], uuid: before[1] });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { deliveries: page, nextCursor: rows.length > limit && last ? encodeCursor([last.createdAt, last.uuid]) : null };
}

/**
 * Sends a delivery again now, whatever its state, even while the webhook is disabled: it
 * starts over (attempts from zero, a new 24-hour retry window) with the same `webhook-id`,
 * so a receiver that already processed it can tell.
 */
export async function retryWebhookDelivery(ctx: Pick<UseCaseContext, 'now' | 'db'>, principal: Principal, uuid: string, deliveryUuid: string): Promise<WebhookDelivery> {
  const webhook = await getWebhook(ctx, principal, uuid);
  return inTransaction(ctx.db, async (trx) => {
    const delivery = await findDeliveryOfSubscription(trx, webhook.uuid, deliveryUuid);
    if (!delivery) throw new NotFoundError('delivery');
    const now = ctx.now();
    const jobUuid = newId(now);
    await restartDelivery(trx, delivery.uuid, jobUuid, now);
    await enqueueJobs(trx, [{ uuid: jobUuid, kind: WEBHOOK_JOB_KIND, payload: { deliveryUuid: delivery.uuid, manual: true } satisfies WebhookJobPayload }], now);
    return { ...delivery, status: 'pending', attempts: 0, firstAttemptAt: null, nextAttemptAt: now };
  });
}
