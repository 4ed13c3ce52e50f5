import { meetingEventUid } from '../../calendars/meeting-event.js';
import { CalendarAuthError } from '../../calendars/errors.js';
import type { TimeRange } from '../../calendars/busy-time.js';
import type { CalendarChanges, ConnectionTokens, RemoteCalendar } from '../../calendars/provider.js';
import { describeCalendarFailure, describeSpansCut, type StoredSpans, toStoredSpans } from '../../calendars/remote-calendar.js';
import { bumpCalendarVersions, deleteExternalBusy, insertExternalBusy } from '../../db/repositories/busy-time.js';
import {
  applyRemoteEventChanges,
  claimCalendarSync,
  findCalendar,
  findCalendarSpans,
  findCalendarSyncState,
  findCalendarWithAccess,
  findCopiedMeetingUuidsOfHost,
  findDueCalendars,
  findLongestBookingWindowDays,
  holdsCalendarSync,
  findRemoteEventSpans,
  recordCalendarSync,
} from '../../db/repositories/calendars.js';
import { lockHost } from '../../db/repositories/meetings.js';
import { findUser } from '../../db/repositories/users.js';
import { inTransaction } from '../../db/transaction.js';
import { newId } from '../../ids.js';
import { secretBoxOf } from '../../secrets/secret-box.js';
import type { UseCaseContext } from '../context.js';
import { ConnectionUnusableError, withAccessToken } from '../integrations/provider-access.js';
import type { ConnectedCalendar, SealedCalendarAccess } from '../../domain/calendar.js';
import { inChunks, yieldToEventLoop } from '../../db/chunks.js';
import type { DbOrTrx } from '../../db/database.js';

/** Busy time is read this far ahead at least, and further when a topic the host hosts books further ahead. */
export const MIN_SYNC_WINDOW_DAYS = 60;
/** A sync that dies (a crashed instance) frees its calendar after this. */
export const SYNC_LEASE_MS = 2 * 60_000;
const DAY_MS = 86_400_000;

/**
 * `busy`: another sync held the calendar, so this one read nothing. `superseded`: this sync's
 * lease ran out while it read and another claimed the calendar, so what it read was dropped.
 */
export type SyncResult = { synced: true; changed: boolean } | { synced: false; error: string } | { synced: false; busy: true } | { synced: false; superseded: true };

/**
 * Reads one calendar's busy time for the host's booking window into `external_busy`. The
 * calendar is claimed first (a conditional update with a token of this sync's own), so two
 * instances never sync it at once. A calendar whose provider tells changes (Google, Microsoft)
 * is read from where its last read ended, and its events' spans are kept and updated with
 * the state the next read starts from, in the same transaction as the busy time. The remote call happens outside any transaction; then,
 * under the host's lock and only if this sync still holds the claim, the calendar's spans are
 * replaced and the host's calendar version bumped, only when the spans changed. A sync that
 * outlived its lease (another has claimed the calendar since) stores nothing: its read may be
 * older than the other's. A failure keeps the last good busy time and is recorded on the
 * calendar (`status: error`, `lastError`); the next attempt comes after the usual interval.
 *
 * Every span inside the window is kept, up to MAX_SPANS_PER_CALENDAR: a calendar with more
 * (a hostile or broken feed) is blocked whole from the first span not kept, shown as `status:
 * error` with `lastError` saying so, and counted on /metrics (remote-calendar.ts). Only the
 * spans that changed are written, in chunks that let the event loop run between them, so a
 * big calendar's sync does not hold other requests up (storeSpans below).
 */
export async function syncCalendar(
  ctx: Pick<UseCaseContext, 'publicUrl' | 'calendarSyncIntervalMs' | 'now' | 'log' | 'db' | 'secretKey' | 'calendars' | 'outbound' | 'integrations'>,
  calendarUuid: string,
): Promise<SyncResult> {
  const claimedAt = ctx.now();
  const claim = newId(claimedAt);
  if (!(await claimCalendarSync(ctx.db, calendarUuid, claim, claimedAt, claimedAt + SYNC_LEASE_MS))) return { synced: false, busy: true };
  const found = await findCalendarWithAccess(ctx.db, calendarUuid);
  if (!found) return { synced: false, error: 'The calendar no longer exists.' };
  const { calendar, access } = found;
  // A calendar read whole gives its spans; one read incrementally gives changes, applied to the events kept from before.
  let read: StoredSpans = { spans: [], cutAt: null };
  let incremental: { changes: CalendarChanges; range: TimeRange } | null = null;
  try {
    const host = await findUser(ctx.db, calendar.accountUuid, calendar.userUuid);
    if (!host) throw new Error('the host no longer exists');
    const now = ctx.now();
    const windowDays = Math.max(MIN_SYNC_WINDOW_DAYS, (await findLongestBookingWindowDays(ctx.db, host.uuid)) ?? 0);
    // From the start of the current hour: an event that began a little earlier still blocks now.
    const range = { from: now - (now % 3_600_000), to: now + (windowDays + 1) * DAY_MS };
    // termin's own copies of meetings already block as meetings (with their buffers), and a
    // cancelled or moved one must stop blocking at once, not after the next sync.
    const ignoreUids = new Set((await findCopiedMeetingUuidsOfHost(ctx.db, host.uuid)).map(meetingEventUid));
    const remote = openCalendar(ctx, calendar, access);
    if (remote.readChanges) {
      incremental = { changes: await remote.readChanges(await findCalendarSyncState(ctx.db, calendarUuid), range, host.timezone), range };
    } else {
      const busy = await remote.readBusy(range, host.timezone, { ignoreUids });
      if (calendar.checkConflicts) read = toStoredSpans(busy, range.to);
    }
  } catch (error) {
    const message = describeCalendarFailure(error);
    if (message.includes('unexpected error')) ctx.log.error({ err: error, calendarUuid }, 'calendar sync failed unexpectedly');
    else ctx.log.warn({ calendarUuid, reason: message }, 'calendar sync failed');
    const at = ctx.now();
    const held = await recordCalendarSync(ctx.db, calendarUuid, claim, { at, nextSyncAt: at + ctx.calendarSyncIntervalMs, error: message });
    return held ? { synced: false, error: message } : { synced: false, superseded: true };
  }
  const stored = await inTransaction(ctx.db, async (trx) => {
    const at = ctx.now();
    await lockHost(trx, calendar.userUuid);
    // Disconnected while it was being read (removeCalendar takes the same lock): store nothing.
    if (!(await findCalendar(trx, calendarUuid))) return { changed: false, cutAt: null };
    // Taken over by another sync after this one's lease ran out: that one's read is newer.
    if (!(await holdsCalendarSync(trx, calendarUuid, claim))) return 'superseded';
    let spans = read;
    if (incremental !== null) {
      // Events over before the window can block nothing again: forgotten.
      await applyRemoteEventChanges(trx, calendarUuid, { ...incremental.changes, endedBefore: incremental.range.from });
      if (calendar.checkConflicts) spans = toStoredSpans(await findRemoteEventSpans(trx, calendarUuid, incremental.range), incremental.range.to);
    }
    // Merging tens of thousands of spans is a few ms of its own: whatever waited meanwhile goes first.
    await yieldToEventLoop();
    const changed = await storeSpans(trx, calendar.userUuid, calendarUuid, spans.spans, () => newId(at));
    if (changed) await bumpCalendarVersions(trx, [calendar.userUuid]);
    const error = spans.cutAt === null ? null : describeSpansCut(spans.cutAt);
    await recordCalendarSync(trx, calendarUuid, claim, { at, nextSyncAt: at + ctx.calendarSyncIntervalMs, error, busyCutAt: spans.cutAt });
    return { changed, cutAt: spans.cutAt };
  });
  if (stored === 'superseded') return { synced: false, superseded: true };
  if (stored.cutAt !== null) {
    ctx.log.warn({ calendarUuid, cutAt: new Date(stored.cutAt).toISOString() }, 'calendar has more busy spans than are kept: the rest of its window counts as busy');
  }
  return { synced: true, changed: stored.changed };
}

/**
 * Makes a calendar's stored spans `spans` (sorted, as toStoredSpans gives them), writing only
 * the difference: a sync of a calendar of 25 000 events in which one moved deletes a row and
 * adds one, instead of writing 25 000 again under the host's lock. Both lists are sorted, so
 * one walk through them finds it. Whether anything changed.
 */
async function storeSpans(trx: DbOrTrx, hostUuid: string, calendarUuid: string, spans: readonly { start: number; end: number }[], newUuid: () => string): Promise<boolean> {
  const stored = await findCalendarSpans(trx, calendarUuid);
  const gone: string[] = [];
  const added: { start: number; end: number }[] = [];
  let i = 0;
  let j = 0;
  while (i < stored.length || j < spans.length) {
    const had = stored[i];
    const wanted = spans[j];
    const order = had === undefined ? 1 : wanted === undefined ? -1 : had.start - wanted.start || had.end - wanted.end;
    if (order === 0) {
      i += 1;
      j += 1;
    } else if (order < 0) {
      gone.push(had!.uuid);
      i += 1;
    } else {
      added.push(wanted!);
      j += 1;
    }
  }
  if (gone.length === 0 && added.length === 0) return false;
  await deleteExternalBusy(trx, calendarUuid, gone);
  // Ids made a chunk at a time too (25 000 at once held the event loop by themselves).
  await inChunks(added, 500, (chunk) =>
    insertExternalBusy(
      trx,
      hostUuid,
      calendarUuid,
      chunk.map((span) => ({ uuid: newUuid(), start: span.start, end: span.end })),
    ),
  );
  return true;
}

/**
 * The calendar through its kind's adapter, the service's guarded fetch and the secret key;
 * the adapter opens the sealed parts for this call only.
 */
export function openCalendar(
  ctx: Pick<UseCaseContext, 'publicUrl' | 'now' | 'db' | 'secretKey' | 'calendars' | 'outbound' | 'integrations'>,
  calendar: ConnectedCalendar,
  access: SealedCalendarAccess,
): RemoteCalendar {
  const connectionUuid = access.connectionUuid ?? null;
  // A calendar on a connection borrows its tokens for each call; a refused connection shows on the calendar as its error.
  const tokens: ConnectionTokens | null =
    connectionUuid === null
      ? null
      : {
          async withAccessToken(call) {
            try {
              return await withAccessToken(ctx, connectionUuid, call);
            } catch (error) {
              if (error instanceof ConnectionUnusableError) throw new CalendarAuthError(`The calendar's connection does not work: ${error.message}. Connect it again.`);
              throw error;
            }
          },
        };
  return ctx.calendars[calendar.type].open(access, secretBoxOf(ctx.secretKey), ctx.outbound.fetch, tokens);
}

/** Syncs every calendar that is due, a few at a time; returns how many were attempted. */
export async function syncDueCalendars(
  ctx: Pick<UseCaseContext, 'publicUrl' | 'calendarSyncIntervalMs' | 'now' | 'log' | 'db' | 'secretKey' | 'calendars' | 'outbound' | 'integrations'>,
  options: { limit?: number; concurrency?: number } = {},
): Promise<number> {
  const due = await findDueCalendars(ctx.db, ctx.now(), options.limit ?? 100);
  const queue = [...due];
  let attempted = 0;
  const lane = async () => {
    for (let uuid = queue.shift(); uuid !== undefined; uuid = queue.shift()) {
      const result = await syncCalendar(ctx, uuid);
      if (!('busy' in result)) attempted += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 4) }, lane));
  return attempted;
}

export interface CalendarSyncTimer {
  /** Syncs whatever is due now and waits for it (tests, and an operator's nudge). */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * The background sync on every instance: every `tickMs` it syncs the calendars whose next
 * sync is due (each `CALENDAR_SYNC_INTERVAL_SECONDS` after its last). Claims keep instances
 * from doubling up; a tick still running makes the next one skip. Never throws.
 */
export function startCalendarSync(
  ctx: Pick<UseCaseContext, 'publicUrl' | 'calendarSyncIntervalMs' | 'now' | 'log' | 'db' | 'secretKey' | 'calendars' | 'outbound' | 'integrations'>,
  tickMs: number,
): CalendarSyncTimer {
  let running: Promise<number> | null = null;
  const run = (): Promise<number> => {
    if (running) return running;
    running = syncDueCalendars(ctx)
      .catch((error: unknown) => {
        ctx.log.error({ err: error }, 'calendar sync run failed');
        return 0;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };
  const timer = setInterval(() => void run(), tickMs);
  timer.unref();
  return {
    runOnce: run,
    async stop() {
      clearInterval(timer);
      if (running) await running;
    },
  };
}
