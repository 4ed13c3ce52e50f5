import type { IntegrationProvider } from '../../domain/integrations.js';
import type { DbOrTrx } from '../database.js';

/**
 * Which notice about meetings at a provider's place that get no link: `connect`, the host has
 * no working connection to the provider; `failed`, the provider refused a meeting's room for good.
 */
export const ROOM_NOTICE_KINDS = ['connect', 'failed'] as const;
export type RoomNoticeKind = (typeof ROOM_NOTICE_KINDS)[number];

/** One host's notices of one kind about one provider's place: e-mailed at most once a window, the rest in a digest. */
export interface RoomNoticeKey {
  userUuid: string;
  provider: IntegrationProvider;
  kind: RoomNoticeKind;
}

/** What to do about one more meeting to tell the host of: e-mail now; plan the digest due `at` (its job is the caller's); or nothing, a planned digest covers it. */
export type RoomNoticeTurn = { send: 'now' } | { send: 'digest'; at: number } | { send: 'covered' };

/**
 * Decides, in the caller's transaction, whether the host hears of one more meeting now or in
 * the digest: the first notice (or the first after a quiet window) goes out now; any other
 * within `windowMs` of the last e-mail waits for one digest, planned once, due a window after
 * that e-mail. Each step is one conditional statement, so concurrent callers (instances,
 * event slots) agree on one e-mail and one digest.
 */
export async function takeRoomNoticeTurn(db: DbOrTrx, key: RoomNoticeKey, now: number, windowMs: number): Promise<RoomNoticeTurn> {
  const inserted = await db
    .insertInto('room_notices')
    .values({ user_id: key.userUuid, provider: key.provider, kind: key.kind, last_sent_at: now, digest_due_at: null })
    .onConflict((oc) => oc.columns(['user_id', 'provider', 'kind']).doNothing())
    .executeTakeFirst();
  if ((inserted.numInsertedOrUpdatedRows ?? 0n) > 0n) return { send: 'now' };
  const quiet = await db
    .updateTable('room_notices')
    .set({ last_sent_at: now })
    .where('user_id', '=', key.userUuid)
    .where('provider', '=', key.provider)
    .where('kind', '=', key.kind)
    .where('digest_due_at', 'is', null)
    .where('last_sent_at', '<=', now - windowMs)
    .executeTakeFirst();
  if (quiet.numUpdatedRows > 0n) return { send: 'now' };
  const planned = await db
    .updateTable('room_notices')
    .set((eb) => ({ digest_due_at: eb('last_sent_at', '+', windowMs) }))
    .where('user_id', '=', key.userUuid)
    .where('provider', '=', key.provider)
    .where('kind', '=', key.kind)
    .where('digest_due_at', 'is', null)
    .executeTakeFirst();
  if (planned.numUpdatedRows === 0n) return { send: 'covered' };
  const row = await db
    .selectFrom('room_notices')
    .select('digest_due_at')
    .where('user_id', '=', key.userUuid)
    .where('provider', '=', key.provider)
    .where('kind', '=', key.kind)
    .executeTakeFirst();
  return { send: 'digest', at: Number(row?.digest_due_at ?? now) };
}

/**
 * Takes the digest due by `now` (one taker; false when none was due or another took it).
 * `sent`: its e-mail goes out in the caller's transaction, and the window starts again now;
 * otherwise (nothing left to list) only the digest is dropped, the window still running from
 * the last e-mail.
 */
export async function takeRoomNoticeDigest(db: DbOrTrx, key: RoomNoticeKey, now: number, sent: boolean): Promise<boolean> {
  const result = await db
    .updateTable('room_notices')
    .set(sent ? { last_sent_at: now, digest_due_at: null } : { digest_due_at: null })
    .where('user_id', '=', key.userUuid)
    .where('provider', '=', key.provider)
    .where('kind', '=', key.kind)
    .where('digest_due_at', 'is not', null)
    .where('digest_due_at', '<=', now)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
