import { advanceJobs, completeJob, type ClaimedJob } from '../../db/repositories/outbox.js';
import {
  advanceDelivery,
  clearSubscriptionFailing,
  disableSubscription,
  findAccountAdmins,
  findDelivery,
  findSubscriptionForDelivery,
  lockDelivery,
  markSubscriptionFailing,
  passDeliveryToJob,
  recordDeliveryAttempt,
  type AttemptRecord,
  type SealedSecrets,
} from '../../db/repositories/webhooks.js';
import { inSharedCommit, inTransaction } from '../../db/transaction.js';
import { buildForEachLang } from '../../i18n/catalogue.js';
import { newId } from '../../ids.js';
import type { NoticeMessagePayload } from '../../mail/queued-message.js';
import { OutboundError, sendOutbound } from '../../net/outbound-request.js';
import { LostClaimError, type JobHandler } from '../../outbox/job-handler.js';
import { EMAIL_JOB_KIND, WEBHOOK_JOB_KIND, enqueueJobs, type NewJob, type WebhookJobPayload } from '../../outbox/job-kinds.js';
import { canOpenSecret, openSecret } from '../../secrets/secret-box.js';
import { SecretUnreadableError } from '../../domain/errors.js';
import { nextAttemptAt, shouldDisableSubscription } from '../../webhooks/backoff.js';
import { signWebhook } from '../../webhooks/signing.js';
import type { WebhookDelivery, WebhookSubscription } from '../../domain/webhook.js';
import type { UseCaseContext } from '../context.js';

type JobClaim = Pick<ClaimedJob, 'uuid' | 'claim'>;

export interface WebhookDeliveryOptions {
  /** The receiver must answer in full within this (10 s, as the API's docs promise receivers). */
  timeoutMs?: number;
  /** Attempts in flight at once in this process, over all subscriptions. */
  concurrency?: number;
  /** A delivery whose sender died is taken over after this long (OUTBOX_LEASE_MS, as its job's lease). */
  leaseMs?: number;
  /** The retry jitter's random source. */
  random?: () => number;
}

export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Long enough for the timeout and the bookkeeping after it; a dead sender lets go after it. */
const DELIVERY_LEASE_MS = 60_000;
/** A receiver's answer is read only this far: its status is what counts. */
const MAX_RESPONSE_BYTES = 1024;

/**
 * The `webhook` job: one attempt of one delivery. Signs the event's body with the
 * subscription's secret (Standard Webhooks; `webhook-id` is the delivery's uuid, the same
 * on every attempt), POSTs it through the SSRF guard (addresses checked again at connect
 * time, no redirects, 10 s for the whole exchange), and records the attempt on the
 * delivery. A 2xx delivers it; anything else is retried by a new job at the next backoff
 * time for at least 24 hours, then the delivery is `failed`. A subscription that has failed
 * without a success for 3 days is switched off and the account's admins are e-mailed.
 *
 * Isolation: attempts run side by side (`concurrency`), but one subscription's URL gets at
 * most WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT attempts in flight per process (4 by default), and
 * one while it is failing (a dead or hanging receiver). Its other due deliveries are handed
 * to later jobs, due when the oldest attempt in flight must have ended, instead of taking
 * slots: a slow receiver holds a few slots at most and never delays other receivers or
 * other job kinds, and is not hit by a burst of everything queued for it at once.
 */
export function createWebhookDeliverer(
  ctx: Pick<UseCaseContext, 'webhookSettings' | 'now' | 'log' | 'db' | 'secretKey' | 'outbound'>,
  options: WebhookDeliveryOptions = {},
): JobHandler<'webhook'> {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const leaseMs = options.leaseMs ?? DELIVERY_LEASE_MS;
  // Per subscription, when each attempt in flight in this process started, and the jobs put off
  // meanwhile (due by the oldest attempt's deadline, brought forward as soon as an attempt ends,
  // so a quick failure does not stretch the next delivery's retry schedule).
  const inFlight = new Map<string, number[]>();
  const waiting = new Map<string, string[]>();
  return {
    kind: WEBHOOK_JOB_KIND,
    concurrency: options.concurrency ?? 16,
    // Attempts are counted on the delivery; a throw here means our own database failed.
    maxAttempts: 1_000,
    async handle(job) {
      const { payload } = job;
      const delivery = await findDelivery(ctx.db, payload.deliveryUuid);
      // Deleted with its subscription, delivered, given up, or handed to a newer job: nothing to do.
      if (delivery?.status !== 'pending' || delivery.jobUuid !== job.uuid) return;
      const subscription = await findSubscriptionForDelivery(ctx.db, delivery.subscriptionUuid);
      if (!subscription) return;

      const now = ctx.now();
      if (delivery.lockedUntil !== null && delivery.lockedUntil > now) {
        // An attempt of the same delivery is in flight (a manual retry asked for meanwhile).
        return postpone(ctx, job, delivery, delivery.lockedUntil, undefined, true);
      }
      const started = inFlight.get(subscription.uuid) ?? [];
      const cap = subscription.failingSince !== null ? 1 : ctx.webhookSettings.maxInFlightPerEndpoint;
      // At the cap: try again when the oldest attempt in flight is over, at the latest by its deadline.
      if (started.length >= cap) {
        let next: string | undefined;
        await postpone(ctx, job, delivery, Math.max(now, Math.min(...started) + timeoutMs), (jobUuid) => (next = jobUuid));
        if (next === undefined) return 'completed';
        // Committed now: if an attempt ended meanwhile, the new job is due at once; else it waits for one to end.
        if ((inFlight.get(subscription.uuid)?.length ?? 0) < cap) await inSharedCommit(ctx.db, (db) => advanceJobs(db, [next!], ctx.now()));
        else waiting.set(subscription.uuid, [...(waiting.get(subscription.uuid) ?? []), next]);
        return 'completed';
      }
      started.push(now);
      inFlight.set(subscription.uuid, started);
      try {
        // In a shared commit on SQLite: a WAL sync of its own for every attempt starved the outbox under a booking peak.
        if (!(await inSharedCommit(ctx.db, (db) => lockDelivery(db, delivery.uuid, job.uuid, now, leaseMs)))) {
          // Another attempt holds it (a sender that died lets go when its lease ends): try after that.
          const current = await findDelivery(ctx.db, delivery.uuid);
          if (current?.status === 'pending' && current.jobUuid === job.uuid)
            return await postpone(ctx, job, current, Math.max(current.lockedUntil ?? 0, now + 1_000), undefined, true);
          return;
        }
        if (!subscription.enabled && payload.manual !== true) {
          return await finish(ctx, job, delivery.uuid, subscription, { at: now, responseStatus: null, error: 'The webhook is disabled.', sent: false }, 'failed');
        }
        const body = delivery.body;
        const attemptAt = ctx.now();
        const secrets = signingSecrets(ctx.secretKey, subscription, attemptAt);
        if (secrets instanceof SecretUnreadableError) {
          // No retry opens what no key of this server opens: given up now, saying what to do.
          return await finish(ctx, job, delivery.uuid, subscription, { at: attemptAt, responseStatus: null, error: secrets.message, sent: false }, 'failed');
        }
        const headers = signWebhook(secrets, { id: delivery.uuid, timestamp: new Date(attemptAt), body });
        const attempt = await send(ctx, subscription.url, { 'content-type': 'application/json', ...headers }, body, timeoutMs);
        const attemptRecord = { at: attemptAt, ...attempt, sent: true };
        if (attempt.error === null) {
          await finish(ctx, job, delivery.uuid, subscription, attemptRecord, 'delivered');
        } else {
          const doneAt = ctx.now();
          const next = nextAttemptAt(delivery.firstAttemptAt ?? attemptAt, delivery.attempts + 1, doneAt, ctx.webhookSettings.retryBaseSeconds, options.random);
          await finish(ctx, job, delivery.uuid, subscription, attemptRecord, next === null ? 'failed' : { retryAt: next });
          ctx.log.info({ deliveryUuid: delivery.uuid, webhookUuid: subscription.uuid, reason: attempt.error, retryAt: next }, 'a webhook delivery attempt failed');
        }
        return 'completed';
      } finally {
        started.splice(started.indexOf(now), 1);
        if (started.length === 0) inFlight.delete(subscription.uuid);
        const due = waiting.get(subscription.uuid);
        waiting.delete(subscription.uuid);
        // Should this fail, they are still due by the deadline they were put off to.
        if (due) await inSharedCommit(ctx.db, (db) => advanceJobs(db, due, ctx.now())).catch(() => undefined);
      }
    },
  };
}

/** One POST; never throws for the receiver's sake: a refusal, timeout or non-2xx is a failed attempt. */
async function send(
  ctx: Pick<UseCaseContext, 'now' | 'log' | 'db' | 'outbound'>,
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<Omit<AttemptRecord, 'at'>> {
  try {
    const response = await sendOutbound({
      url,
      method: 'POST',
      headers,
      body,
      timeoutMs,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      allowPrivate: ctx.outbound.allowPrivate,
      resolver: ctx.outbound.resolver,
    });
    const ok = response.status >= 200 && response.status < 300;
    return { responseStatus: response.status, error: ok ? null : `The receiver answered HTTP ${response.status}.` };
  } catch (error) {
    // Outbound errors name the host and the reason, never the URL's path or query.
    if (error instanceof OutboundError) return { responseStatus: null, error: error.message };
    throw error;
  }
}

/** Lets a later job make the attempt, without counting one; completes the job. */
async function postpone(
  ctx: Pick<UseCaseContext, 'now' | 'db'>,
  job: JobClaim,
  delivery: Pick<WebhookDelivery, 'uuid' | 'attempts' | 'lastError'>,
  at: number,
  onNextJob?: (jobUuid: string) => void,
  /** Put off for another attempt's lock: due at once if that attempt has ended meanwhile. */
  forLock = false,
): Promise<'completed'> {
  const deliveryUuid = delivery.uuid;
  // A delivery whose last attempt failed is still retrying while it waits its turn.
  const lastError = delivery.attempts > 0 ? delivery.lastError : null;
  await inTransaction(ctx.db, async (trx) => {
    const now = ctx.now();
    // Refused: the job's new holder (after this claim's lease) deals with the delivery; the throw rolls back.
    if (!(await completeJob(trx, job, now))) throw new LostClaimError(job.uuid);
    const next = { jobUuid: newId(now), at };
    const due = await passDeliveryToJob(trx, deliveryUuid, job.uuid, next, forLock ? now : null);
    if (due !== null) {
      await enqueueJobs(trx, [{ uuid: next.jobUuid, kind: WEBHOOK_JOB_KIND, payload: { deliveryUuid } satisfies WebhookJobPayload, runAt: due, lastError }], now);
      onNextJob?.(next.jobUuid);
    }
  });
  return 'completed';
}

/**
 * Records the attempt and its consequence in one transaction with the job's completion:
 * a crash before it commits leaves the job to be retried (at least once), never half done.
 */
async function finish(
  ctx: Pick<UseCaseContext, 'now' | 'log' | 'db'>,
  job: JobClaim,
  deliveryUuid: string,
  subscription: WebhookSubscription,
  attempt: AttemptRecord & { sent: boolean },
  outcome: 'delivered' | 'failed' | { retryAt: number },
): Promise<'completed'> {
  await inTransaction(ctx.db, async (trx) => {
    const now = ctx.now();
    // Refused: this claim's lease ran out and the job's new holder makes its own attempt and
    // records that one; recording this one too would count the attempt twice and queue a
    // second retry. The throw rolls the transaction back (the receiver may have had it twice:
    // deliveries are at least once, under one webhook-id).
    if (!(await completeJob(trx, job, now))) throw new LostClaimError(job.uuid);
    const jobs: NewJob[] = [];
    const retry = typeof outcome === 'object' ? { jobUuid: newId(now), at: outcome.retryAt } : null;
    const recorded = await recordDeliveryAttempt(trx, deliveryUuid, job.uuid, attempt, {
      status: retry ? 'pending' : (outcome as 'delivered' | 'failed'),
      nextAttemptAt: retry?.at ?? null,
      nextJobUuid: retry?.jobUuid ?? null,
    });
    // A manual retry asked for meanwhile could not send while this attempt held the delivery
    // (its job, run meanwhile by any worker, put itself off until the lock's end): it is due now.
    if (recorded?.waitingJobUuid) await advanceDeliveryJob(trx, deliveryUuid, recorded.waitingJobUuid, now);
    // The retry carries the attempt's error: the outbox (and its metrics) shows it as retrying.
    if (recorded?.settled && retry)
      jobs.push({ uuid: retry.jobUuid, kind: WEBHOOK_JOB_KIND, payload: { deliveryUuid } satisfies WebhookJobPayload, runAt: retry.at, lastError: attempt.error });
    // Only what the receiver did counts towards the subscription's health.
    if (!attempt.sent) {
      // neither a success nor a failure of the receiver
    } else if (attempt.error === null) {
      // A healthy endpoint (as read for this attempt) has nothing to clear: one round trip less
      // for nearly every delivery. Marked failing meanwhile by another attempt, it is cleared by the next success.
      if (subscription.failingSince !== null) await clearSubscriptionFailing(trx, subscription.uuid);
    } else if (subscription.enabled) {
      const failingSince = await markSubscriptionFailing(trx, subscription.uuid, attempt.at);
      if (shouldDisableSubscription(failingSince, now) && (await disableSubscription(trx, subscription.uuid, now))) {
        jobs.push(...(await disabledNotices(trx, subscription)));
        ctx.log.warn({ webhookUuid: subscription.uuid }, 'a webhook failing for 3 days was disabled');
      }
    }
    await enqueueJobs(trx, jobs, now);
  });
  return 'completed';
}

/** Makes a delivery's waiting job due now: in the delivery's record (what the API shows) and in the outbox. */
async function advanceDeliveryJob(trx: Parameters<typeof advanceJobs>[0], deliveryUuid: string, jobUuid: string, now: number): Promise<void> {
  await advanceDelivery(trx, deliveryUuid, jobUuid, now);
  await advanceJobs(trx, [jobUuid], now);
}

/** The "webhook disabled" e-mail's words in each language (locales/<lang>/notices.json, `webhookDisabled`). */
const DISABLED_STRINGS = buildForEachLang('notices', (t) => ({
  greeting: (name: string) => t('greeting', { name }),
  subject: (where: string) => t('webhookDisabled.subject', { where }),
  lead: (uuid: string, where: string) => t('webhookDisabled.lead', { uuid, where }),
  noMore: t('webhookDisabled.noMore'),
  enable: (request: string) => t('webhookDisabled.enable', { request }),
  retry: (request: string) => t('webhookDisabled.retry', { request }),
  invalidUrl: t('webhookDisabled.invalidUrl'),
}));

/** The e-mail telling each admin of the account, in their language, that the webhook was switched off. */
async function disabledNotices(trx: Parameters<typeof findAccountAdmins>[0], subscription: WebhookSubscription): Promise<NewJob[]> {
  const admins = await findAccountAdmins(trx, subscription.accountUuid);
  return admins.map((admin) => {
    const lang = admin.language ?? 'en';
    const s = DISABLED_STRINGS[lang];
    const where = safeOrigin(subscription.url) ?? s.invalidUrl;
    const payload: NoticeMessagePayload = {
      notice: true,
      to: { name: `${admin.firstName} ${admin.lastName}`, email: admin.email },
      lang,
      subject: s.subject(where),
      text: [
        s.greeting(admin.firstName),
        '',
        s.lead(subscription.uuid, where),
        s.noMore,
        `GET /api/v1/webhooks/${subscription.uuid}/deliveries`,
        '',
        s.enable(`PATCH /api/v1/webhooks/${subscription.uuid} {"enabled": true}`),
        s.retry('POST …/deliveries/{deliveryUuid}/retry'),
      ].join('\n'),
    };
    return { uuid: newId(), kind: EMAIL_JOB_KIND, payload };
  });
}

/** Scheme, host and port only: a receiver's path or query may carry its own token. */
function safeOrigin(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * The current secret, and the one a rotation replaced while its 24 hours last: receivers switch
 * over without a gap. A replaced secret no key opens is left out; a current one no key opens
 * makes the delivery impossible (SecretUnreadableError, returned: rotating the secret mends it).
 */
function signingSecrets(key: UseCaseContext['secretKey'], subscription: SealedSecrets & { uuid: string }, at: number): string[] | SecretUnreadableError {
  if (!canOpenSecret(key, subscription.secretSealed)) {
    return new SecretUnreadableError({
      what: "the webhook's signing secret",
      todo: `rotate it (POST /api/v1/webhooks/${subscription.uuid}/rotate-secret) and give the receiver the new one`,
    });
  }
  const secrets = [openSecret(key, subscription.secretSealed)];
  const previous = subscription.previousSecretSealed;
  if (previous !== null && subscription.previousSecretExpiresAt !== null && at < subscription.previousSecretExpiresAt && canOpenSecret(key, previous)) {
    secrets.push(openSecret(key, previous));
  }
  return secrets;
}
