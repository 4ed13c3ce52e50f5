import { type Actor, MAINTENANCE_ACTOR } from '../../domain/audit.js';
import { yieldToEventLoop } from '../../db/chunks.js';
import { listRetentions } from '../../db/repositories/accounts.js';
import { claimMaintenanceLease, releaseMaintenanceLease } from '../../db/repositories/maintenance-leases.js';
import { findMeetingsEndedBefore } from '../../db/repositories/meetings.js';
import { inTransaction } from '../../db/transaction.js';
import { newId } from '../../ids.js';
import { recordAuditEvent } from '../audit/record-audit.js';
import type { UseCaseContext } from '../context.js';
import { eraseMeetings } from './participants.js';

const DAY_MS = 86_400_000;
/** Meetings erased per transaction: a few milliseconds each, so bookings waiting for the write lock (SQLite) or the rows barely wait. */
export const RETENTION_BATCH = 200;
/** How long one instance holds the retention before another may take it over (renewed with every batch). */
const LEASE_MS = 5 * 60_000;
const LEASE_NAME = 'retention';

/** What a retention run changed, per account: the place where an audit record of it belongs. */
export interface RetentionResult {
  asOf: number;
  accounts: { accountUuid: string; days: number; erased: number }[];
  /** false: another instance holds the retention now; this run did nothing. */
  ran: boolean;
}

/**
 * Applies each account's retention as of `asOf`: the personal data of every meeting that
 * ended more than `participantDataDays` days before it (an exact span of 24-hour days: the
 * meetings' times are instants, so no zone or DST moves the boundary; a meeting that ended
 * exactly that long ago stays until the next run) is erased as `POST /participants/erase`
 * erases it, with no cancellation (they are over). Runs in batches of RETENTION_BATCH
 * meetings, each in a short transaction of its own that takes no host's lock, yielding to
 * the event loop between them. With `lease`, the background's way, only the instance that
 * holds the `retention` lease runs it (renewed with each batch); the operator's CLI runs it
 * as asked. `stopped` ends a run between batches (shutdown).
 */
export async function applyRetention(
  ctx: Pick<UseCaseContext, 'db' | 'now' | 'mailer'>,
  options: { asOf?: number; lease?: boolean; stopped?: () => boolean; actor?: Actor } = {},
): Promise<RetentionResult> {
  const asOf = options.asOf ?? ctx.now();
  const holder = newId(ctx.now());
  const hold = async () => !options.lease || claimMaintenanceLease(ctx.db, LEASE_NAME, holder, ctx.now(), ctx.now() + LEASE_MS);
  // Most servers keep data until erased: then nothing is written, not even the lease.
  const retentions = await listRetentions(ctx.db);
  if (retentions.length === 0) return { asOf, accounts: [], ran: true };
  if (!(await hold())) return { asOf, accounts: [], ran: false };
  const accounts: RetentionResult['accounts'] = [];
  try {
    for (const { accountUuid, days } of retentions) {
      const endedBefore = asOf - days * DAY_MS;
      let erased = 0;
      for (;;) {
        if (options.stopped?.()) break;
        const batch = await inTransaction(ctx.db, async (trx) => {
          const meetings = await findMeetingsEndedBefore(trx, accountUuid, endedBefore, RETENTION_BATCH);
          if (meetings.length === 0) return null;
          const erased = await eraseMeetings(trx, accountUuid, meetings, ctx.now());
          // Each batch's entry commits with it: the meetings it erased, the setting and the moment it applied.
          await recordAuditEvent(trx, {
            accountUuid,
            action: 'retention.applied',
            actor: options.actor ?? MAINTENANCE_ACTOR,
            target: { type: 'account', uuid: accountUuid },
            details: { participantDataDays: days, endedBefore: new Date(endedBefore).toISOString(), meetings: erased.erased },
            now: ctx.now(),
          });
          return erased;
        });
        if (batch === null) break;
        erased += batch.erased.length;
        await ctx.mailer.forget?.(batch.forgottenEmails);
        await yieldToEventLoop();
        if (!(await hold())) return { asOf, accounts, ran: true };
      }
      if (erased > 0) accounts.push({ accountUuid, days, erased });
    }
  } finally {
    if (options.lease) await releaseMaintenanceLease(ctx.db, LEASE_NAME, holder);
  }
  return { asOf, accounts, ran: true };
}
