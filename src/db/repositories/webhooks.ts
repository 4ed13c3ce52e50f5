import type { ExpressionBuilder, Selectable, Updateable } from 'kysely';
import type { WebhookEventType } from '../../domain/events.js';
import { LANGS, type Lang } from '../../domain/lang.js';
import type { DeliveryStatus, WebhookDelivery, WebhookSubscription } from '../../domain/webhook.js';
import { changedAny, compileOnce } from '../compiled-query.js';
import type { Database, DbOrTrx, WebhookDeliveryTable, WebhookSubscriptionTable } from '../database.js';

type SubscriptionRow = Selectable<WebhookSubscriptionTable>;
type DeliveryRow = Selectable<WebhookDeliveryTable>;

export interface NewSubscription extends WebhookSubscription {
  secretSealed: string;
}

export async function insertSubscription(db: DbOrTrx, subscription: NewSubscription): Promise<void> {
  await db
    .insertInto('webhook_subscriptions')
    .values({
      id: subscription.uuid,
      account_id: subscription.accountUuid,
      url: subscription.url,
      events: JSON.stringify(subscription.events),
      description: subscription.description,
      secret_sealed: subscription.secretSealed,
      previous_secret_sealed: null,
      previous_secret_expires_at: null,
      enabled: subscription.enabled ? 1 : 0,
      failing_since: subscription.failingSince,
      disabled_at: subscription.disabledAt,
      created_at: subscription.createdAt,
      updated_at: subscription.updatedAt,
    })
    .execute();
}

/** Another account's subscription is not found. */
export async function findSubscription(db: DbOrTrx, accountUuid: string, uuid: string): Promise<WebhookSubscription | undefined> {
  const row = await db.selectFrom('webhook_subscriptions').selectAll().where('account_id', '=', accountUuid).where('id', '=', uuid).executeTakeFirst();
  return row && rowToSubscription(row);
}

export interface SealedSecrets {
  secretSealed: string;
  /** The secret the last rotation replaced, while it still signs (until `previousSecretExpiresAt`). */
  previousSecretSealed: string | null;
  previousSecretExpiresAt: number | null;
}

/** The subscription with its sealed secrets, for the delivery that signs with them. */
export async function findSubscriptionForDelivery(db: DbOrTrx, uuid: string): Promise<(WebhookSubscription & SealedSecrets) | undefined> {
  const row = await db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', uuid).executeTakeFirst();
  return (
    row && {
      ...rowToSubscription(row),
      secretSealed: row.secret_sealed,
      previousSecretSealed: row.previous_secret_sealed,
      previousSecretExpiresAt: row.previous_secret_expires_at,
    }
  );
}

/**
 * Puts a new secret in place and keeps the current one as the previous until `previousExpiresAt`.
 * The swap is one statement reading the row's own column, so two rotations at once cannot
 * both keep the same old secret and lose the one in between.
 */
export async function rotateSubscriptionSecret(db: DbOrTrx, uuid: string, secretSealed: string, previousExpiresAt: number, now: number): Promise<void> {
  await db
    .updateTable('webhook_subscriptions')
    .set((eb) => ({
      previous_secret_sealed: eb.ref('secret_sealed'),
      previous_secret_expires_at: previousExpiresAt,
      secret_sealed: secretSealed,
      updated_at: now,
    }))
    .where('id', '=', uuid)
    .execute();
}

/** Oldest first. */
export async function listSubscriptions(db: DbOrTrx, accountUuid: string): Promise<WebhookSubscription[]> {
  const rows = await db.selectFrom('webhook_subscriptions').selectAll().where('account_id', '=', accountUuid).orderBy('created_at').orderBy('id').execute();
  return rows.map(rowToSubscription);
}

/** The account's enabled subscriptions that asked for `type`. */
export async function findSubscribersOf(db: DbOrTrx, accountUuid: string, type: WebhookEventType): Promise<WebhookSubscription[]> {
  const rows = await db.selectFrom('webhook_subscriptions').selectAll().where('account_id', '=', accountUuid).where('enabled', '=', 1).orderBy('id').execute();
  return rows.map(rowToSubscription).filter((subscription) => subscription.events.includes(type));
}

export interface SubscriptionChanges {
  url?: string;
  events?: WebhookEventType[];
  description?: string | null;
  enabled?: boolean;
  failingSince?: number | null;
  disabledAt?: number | null;
}

export async function updateSubscription(db: DbOrTrx, uuid: string, changes: SubscriptionChanges, now: number): Promise<void> {
  const set: Updateable<WebhookSubscriptionTable> = { updated_at: now };
  if (changes.url !== undefined) set.url = changes.url;
  if (changes.events !== undefined) set.events = JSON.stringify(changes.events);
  if (changes.description !== undefined) set.description = changes.description;
  if (changes.enabled !== undefined) set.enabled = changes.enabled ? 1 : 0;
  if (changes.failingSince !== undefined) set.failing_since = changes.failingSince;
  if (changes.disabledAt !== undefined) set.disabled_at = changes.disabledAt;
  await db.updateTable('webhook_subscriptions').set(set).where('id', '=', uuid).execute();
}

/** Deletes it and its delivery log; false when there was none. */
export async function deleteSubscription(db: DbOrTrx, accountUuid: string, uuid: string): Promise<boolean> {
  await db.deleteFrom('webhook_deliveries').where('subscription_id', '=', uuid).where('account_id', '=', accountUuid).execute();
  const result = await db.deleteFrom('webhook_subscriptions').where('account_id', '=', accountUuid).where('id', '=', uuid).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Marks the subscription failing from `now` unless it already is; returns since when it fails. */
export async function markSubscriptionFailing(db: DbOrTrx, uuid: string, now: number): Promise<number | null> {
  await db.updateTable('webhook_subscriptions').set({ failing_since: now }).where('id', '=', uuid).where('failing_since', 'is', null).execute();
  const row = await db.selectFrom('webhook_subscriptions').select('failing_since').where('id', '=', uuid).executeTakeFirst();
  return row?.failing_since ?? null;
}

export async function clearSubscriptionFailing(db: DbOrTrx, uuid: string): Promise<void> {
  await db.updateTable('webhook_subscriptions').set({ failing_since: null }).where('id', '=', uuid).where('failing_since', 'is not', null).execute();
}

/** Switches an enabled subscription off; true only for the caller that did it (one notice e-mail). */
export async function disableSubscription(db: DbOrTrx, uuid: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('webhook_subscriptions')
    .set({ enabled: 0, disabled_at: now, updated_at: now })
    .where('id', '=', uuid)
    .where('enabled', '=', 1)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export interface NewDelivery {
  uuid: string;
  subscriptionUuid: string;
  accountUuid: string;
  eventUuid: string;
  eventType: WebhookEventType;
  body: string;
  jobUuid: string;
  createdAt: number;
}

export async function insertDeliveries(db: DbOrTrx, deliveries: NewDelivery[]): Promise<void> {
  if (deliveries.length === 0) return;
  await db
    .insertInto('webhook_deliveries')
    .values(
      deliveries.map((delivery) => ({
        id: delivery.uuid,
        subscription_id: delivery.subscriptionUuid,
        account_id: delivery.accountUuid,
        event_id: delivery.eventUuid,
        event_type: delivery.eventType,
        body: delivery.body,
        status: 'pending',
        attempts: 0,
        response_status: null,
        last_error: null,
        first_attempt_at: null,
        last_attempt_at: null,
        next_attempt_at: delivery.createdAt,
        job_id: delivery.jobUuid,
        locked_until: null,
        created_at: delivery.createdAt,
      })),
    )
    .execute();
}

export async function findDelivery(db: DbOrTrx, uuid: string): Promise<(WebhookDelivery & { jobUuid: string | null; lockedUntil: number | null; body: string }) | undefined> {
  const row = await db.selectFrom('webhook_deliveries').selectAll().where('id', '=', uuid).executeTakeFirst();
  return row && { ...rowToDelivery(row), jobUuid: row.job_id, lockedUntil: row.locked_until, body: row.body };
}

export async function findDeliveryOfSubscription(db: DbOrTrx, subscriptionUuid: string, uuid: string): Promise<WebhookDelivery | undefined> {
  const row = await db.selectFrom('webhook_deliveries').selectAll().where('subscription_id', '=', subscriptionUuid).where('id', '=', uuid).executeTakeFirst();
  return row && rowToDelivery(row);
}

/** Newest first, by (created_at, id) descending: `before` is the last one of the previous page. */
export async function listDeliveries(db: DbOrTrx, subscriptionUuid: string, limit: number, before?: { createdAt: number; uuid: string }): Promise<WebhookDelivery[]> {
  let query = db.selectFrom('webhook_deliveries').selectAll().where('subscription_id', '=', subscriptionUuid);
  if (before) {
    query = query.where((eb) => eb.or([eb('created_at', '<', before.createdAt), eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.uuid)])]));
  }
  const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows.map(rowToDelivery);
}

/**
 * Takes the delivery for one attempt by the job `jobUuid`: only while that job is the one
 * the delivery expects, it is pending, and no other attempt holds it. Conditional, so two
 * instances (or a stale job and a fresh one) never send one delivery at the same time.
 */
export async function lockDelivery(db: DbOrTrx, uuid: string, jobUuid: string, now: number, leaseMs: number): Promise<boolean> {
  return changedAny(await lockPending(db, uuid, jobUuid, now, now + leaseMs));
}

// Each delivery attempt runs these: built and compiled once (see completeClaimed in outbox.ts).
const lockPending = compileOnce((db, uuid: string, jobUuid: string, now: number, lockedUntil: number) =>
  db
    .updateTable('webhook_deliveries')
    .set({ locked_until: lockedUntil })
    .where('id', '=', uuid)
    .where('job_id', '=', jobUuid)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)])),
);

export interface DeliveryChanges {
  status?: DeliveryStatus;
  attempts?: number;
  responseStatus?: number | null;
  lastError?: string | null;
  firstAttemptAt?: number | null;
  lastAttemptAt?: number | null;
  nextAttemptAt?: number | null;
  jobUuid?: string | null;
  lockedUntil?: number | null;
}

export async function updateDelivery(db: DbOrTrx, uuid: string, changes: DeliveryChanges): Promise<void> {
  const set: Updateable<WebhookDeliveryTable> = {};
  if (changes.status !== undefined) set.status = changes.status;
  if (changes.attempts !== undefined) set.attempts = changes.attempts;
  if (changes.responseStatus !== undefined) set.response_status = changes.responseStatus;
  if (changes.lastError !== undefined) set.last_error = changes.lastError === null ? null : changes.lastError.slice(0, 500);
  if (changes.firstAttemptAt !== undefined) set.first_attempt_at = changes.firstAttemptAt;
  if (changes.lastAttemptAt !== undefined) set.last_attempt_at = changes.lastAttemptAt;
  if (changes.nextAttemptAt !== undefined) set.next_attempt_at = changes.nextAttemptAt;
  if (changes.jobUuid !== undefined) set.job_id = changes.jobUuid;
  if (changes.lockedUntil !== undefined) set.locked_until = changes.lockedUntil;
  if (Object.keys(set).length === 0) return;
  await db.updateTable('webhook_deliveries').set(set).where('id', '=', uuid).execute();
}

function rowToSubscription(row: SubscriptionRow): WebhookSubscription {
  return {
    uuid: row.id,
    accountUuid: row.account_id,
    url: row.url,
    events: JSON.parse(row.events) as WebhookEventType[],
    description: row.description,
    enabled: row.enabled === 1,
    failingSince: row.failing_since,
    disabledAt: row.disabled_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function rowToDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    uuid: row.id,
    subscriptionUuid: row.subscription_id,
    accountUuid: row.account_id,
    eventUuid: row.event_id,
    eventType: row.event_type as WebhookEventType,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    responseStatus: row.response_status,
    lastError: row.last_error,
    firstAttemptAt: row.first_attempt_at,
    lastAttemptAt: row.last_attempt_at,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
  };
}

/**
 * Hands the delivery to a new job (a later attempt) if `jobUuid` is still the one it
 * expects; null when a manual retry or a deletion got there first, else when the new job
 * is due. A job passing the delivery on never held its lock (it was put off because another
 * attempt holds it, or the endpoint had enough in flight): the lock, if any, stays with its
 * holder. With `dueOnceUnlocked`, a job put off for the lock is due then instead if the
 * lock is already gone (its holder ended between the read that saw it and this write).
 */
export async function passDeliveryToJob(
  db: DbOrTrx,
  uuid: string,
  jobUuid: string,
  next: { jobUuid: string; at: number },
  dueOnceUnlocked: number | null = null,
): Promise<number | null> {
  const row = await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      job_id: next.jobUuid,
      next_attempt_at:
        dueOnceUnlocked === null
          ? next.at
          : eb
              .case()
              .when(eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', dueOnceUnlocked)]))
              .then(dueOnceUnlocked)
              .else(next.at)
              .end(),
    }))
    .where('id', '=', uuid)
    .where('job_id', '=', jobUuid)
    .where('status', '=', 'pending')
    .returning('next_attempt_at')
    .executeTakeFirst();
  return row?.next_attempt_at ?? null;
}

/** Shows the delivery as due `now` if its job is still `jobUuid` and it waited for later (see advanceJobs for the job itself). */
export async function advanceDelivery(db: DbOrTrx, uuid: string, jobUuid: string, now: number): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: now })
    .where('id', '=', uuid)
    .where('job_id', '=', jobUuid)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '>', now)
    .execute();
}

export interface AttemptRecord {
  at: number;
  responseStatus: number | null;
  error: string | null;
}

/** The delivery as an attempt left it (recordDeliveryAttempt): which job has it now, and its status. */
export interface SettledDelivery {
  /** The outcome holds: the delivery's job is now the outcome's `nextJobUuid` (or none). */
  settled: boolean;
  /**
   * Not settled: the pending delivery's own job, a manual retry asked for while the attempt
   * was in flight (or that retry put off until the attempt's lock ends); null otherwise.
   */
  waitingJobUuid: string | null;
}

/**
 * Logs one attempt and, if `jobUuid` is still the delivery's job, what follows from it
 * (delivered, failed, or the next attempt's job and time); otherwise (a manual retry asked
 * for while the attempt was in flight kept its own job) the attempt only counts. One
 * statement instead of two (a round trip fewer for every delivery): each SET sees the row
 * as it was, so every CASE asks about the job the attempt was made for. Null when the
 * delivery is gone.
 */
export async function recordDeliveryAttempt(
  db: DbOrTrx,
  uuid: string,
  jobUuid: string,
  attempt: AttemptRecord,
  outcome: { status: DeliveryStatus; nextAttemptAt: number | null; nextJobUuid: string | null },
): Promise<SettledDelivery | null> {
  const { rows } = await logAndSettle(
    db,
    uuid,
    jobUuid,
    attempt.responseStatus,
    attempt.error === null ? null : attempt.error.slice(0, 500),
    attempt.at,
    outcome.status,
    outcome.nextAttemptAt,
    outcome.nextJobUuid,
  );
  // RETURNING shows the row as updated: a next job's fresh id there was set by this statement.
  const row = rows[0];
  if (row === undefined) return null;
  const settled = row.job_id === outcome.nextJobUuid;
  return { settled, waitingJobUuid: !settled && row.status === 'pending' ? row.job_id : null };
}

const logAndSettle = compileOnce(
  (db, uuid: string, jobUuid: string, responseStatus: number | null, error: string | null, at: number, status: string, nextAttemptAt: number | null, nextJobUuid: string | null) =>
    db
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        attempts: eb('attempts', '+', 1),
        response_status: responseStatus,
        last_error: error,
        last_attempt_at: at,
        first_attempt_at: eb.fn.coalesce('first_attempt_at', eb.val(at)),
        locked_until: null,
        status: settledOr(eb, jobUuid, status, 'status'),
        next_attempt_at: settledOr(eb, jobUuid, nextAttemptAt, 'next_attempt_at'),
        job_id: settledOr(eb, jobUuid, nextJobUuid, 'job_id'),
      }))
      .where('id', '=', uuid)
      .returning(['job_id', 'status']),
);

/** `value` while the delivery still belongs to the attempt's job (as the row was), else the column as it is. */
function settledOr<C extends 'status' | 'next_attempt_at' | 'job_id'>(eb: ExpressionBuilder<Database, 'webhook_deliveries'>, jobUuid: string, value: DeliveryRow[C], column: C) {
  return eb.case().when('job_id', '=', jobUuid).then(eb.val(value)).else(eb.ref(column)).end();
}

/** Starts a delivery over for a manual retry: pending, due now, a fresh 24-hour window, its new job. */
export async function restartDelivery(db: DbOrTrx, uuid: string, jobUuid: string, now: number): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', attempts: 0, first_attempt_at: null, next_attempt_at: now, job_id: jobUuid })
    .where('id', '=', uuid)
    .execute();
}

/** The active admins of any team of the account, each once: who hears about the account's webhooks. */
export async function findAccountAdmins(db: DbOrTrx, accountUuid: string): Promise<{ uuid: string; firstName: string; lastName: string; email: string; language: Lang | null }[]> {
  const rows = await db
    .selectFrom('users')
    .innerJoin('memberships', 'memberships.user_id', 'users.id')
    .select(['users.id', 'users.first_name', 'users.last_name', 'users.email', 'users.language'])
    .distinct()
    .where('users.account_id', '=', accountUuid)
    .where('users.deactivated_at', 'is', null)
    .where('memberships.is_admin', '=', 1)
    .orderBy('users.id')
    .execute();
  return rows.map((row) => ({
    uuid: row.id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    language: (LANGS as readonly (string | null)[]).includes(row.language) ? (row.language as Lang) : null,
  }));
}
