import type { RetentionSettings } from '../../config.js';
import { yieldToEventLoop } from '../../db/chunks.js';
import { claimMaintenanceLease, releaseMaintenanceLease } from '../../db/repositories/maintenance-leases.js';
import {
  deleteAuditEventsBefore,
  deleteEndedSessionsBefore,
  deleteEventsBefore,
  deleteExpiredOauthStatesBefore,
  deleteExpiredSignInLinksBefore,
  deleteFinishedJobsBefore,
  deleteIdempotencyKeysBefore,
  deleteIdleSmsNumberLocksBefore,
  deletePastBusyBefore,
  deleteWebhookDeliveriesBefore,
  type PruneBatch,
} from '../../db/repositories/retention.js';
import { inSharedCommit } from '../../db/transaction.js';
import { newId } from '../../ids.js';
import type { UseCaseContext } from '../context.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** How long one instance holds the pruning before another may take it over (renewed every minute of a run). */
const LEASE_MS = 5 * 60_000;
const LEASE_NAME = 'pruning';
const LEASE_RENEW_MS = 60_000;

export type PruneRuleName =
  | 'outbox'
  | 'events'
  | 'webhook-deliveries'
  | 'app-sessions'
  | 'sign-in-links'
  | 'oauth-states'
  | 'past-busy'
  | 'idempotency-keys'
  | 'audit-events'
  | 'sms-number-locks';

interface PruneRule {
  name: PruneRuleName;
  /** Rows older than this (ms before the run) go. */
  ageMs: number;
  deleteBatch: PruneBatch;
}

/** Every rule, oldest-first deletion by one time column each (docs/deploying.md has the table). */
export function pruneRules(settings: RetentionSettings): PruneRule[] {
  return [
    { name: 'outbox', ageMs: settings.outboxDays * DAY_MS, deleteBatch: deleteFinishedJobsBefore },
    { name: 'events', ageMs: settings.eventDays * DAY_MS, deleteBatch: deleteEventsBefore },
    { name: 'webhook-deliveries', ageMs: settings.webhookDeliveryDays * DAY_MS, deleteBatch: deleteWebhookDeliveriesBefore },
    { name: 'app-sessions', ageMs: settings.signInDays * DAY_MS, deleteBatch: deleteEndedSessionsBefore },
    { name: 'sign-in-links', ageMs: settings.signInDays * DAY_MS, deleteBatch: deleteExpiredSignInLinksBefore },
    { name: 'oauth-states', ageMs: settings.signInDays * DAY_MS, deleteBatch: deleteExpiredOauthStatesBefore },
    { name: 'past-busy', ageMs: settings.pastBusyDays * DAY_MS, deleteBatch: deletePastBusyBefore },
    { name: 'idempotency-keys', ageMs: settings.idempotencyHours * HOUR_MS, deleteBatch: deleteIdempotencyKeysBefore },
    { name: 'audit-events', ageMs: settings.auditDays * DAY_MS, deleteBatch: deleteAuditEventsBefore },
    { name: 'sms-number-locks', ageMs: settings.smsNumberLockDays * DAY_MS, deleteBatch: deleteIdleSmsNumberLocksBefore },
  ];
}

export interface PruneResult {
  /** false: another instance holds the pruning now; this run did nothing. */
  ran: boolean;
  /** Per rule that deleted anything: how many rows, in how many batches (transactions). */
  pruned: { rule: PruneRuleName; deleted: number; batches: number }[];
}

/**
 * Deletes what each retention rule says is past its age, as of `asOf` (default now): a
 * batch of `settings.batch` rows per statement, each its own short transaction (on SQLite
 * sharing the commit of the transactions queued meanwhile, unsynced: a batch lost in a power
 * cut is deleted again on the next run), yielding to the event loop between batches so
 * bookings never wait behind a first run that finds a year of rows. With `lease`, the
 * background's way, one instance at a time runs it (the `pruning` lease, renewed every
 * minute of the run); `stopped` ends a run between batches (shutdown).
 */
export async function pruneTables(
  ctx: Pick<UseCaseContext, 'db' | 'now'>,
  settings: RetentionSettings,
  options: { asOf?: number; lease?: boolean; stopped?: () => boolean } = {},
): Promise<PruneResult> {
  const asOf = options.asOf ?? ctx.now();
  const holder = newId(ctx.now());
  let renewedAt = ctx.now();
  const hold = async () => !options.lease || claimMaintenanceLease(ctx.db, LEASE_NAME, holder, ctx.now(), ctx.now() + LEASE_MS);
  // Renewed once a minute, not per batch: on SQLite each renewal is a synced commit of its own, and cost more than a batch.
  const stillHeld = async () => {
    if (ctx.now() - renewedAt < LEASE_RENEW_MS) return true;
    renewedAt = ctx.now();
    return hold();
  };
  if (!(await hold())) return { ran: false, pruned: [] };
  const pruned: PruneResult['pruned'] = [];
  try {
    rules: for (const rule of pruneRules(settings)) {
      const before = asOf - rule.ageMs;
      const done = { rule: rule.name, deleted: 0, batches: 0 };
      for (;;) {
        if (options.stopped?.()) break rules;
        const count = await inSharedCommit(ctx.db, (db) => rule.deleteBatch(db, before, settings.batch));
        done.batches += 1;
        done.deleted += count;
        if (done.deleted > 0 && done.batches === 1) pruned.push(done);
        if (count < settings.batch) break;
        await yieldToEventLoop();
        // Another instance took over (this one stalled past its lease): it carries on from here.
        if (!(await stillHeld())) break rules;
      }
    }
  } finally {
    if (options.lease) await releaseMaintenanceLease(ctx.db, LEASE_NAME, holder);
  }
  return { ran: true, pruned };
}
