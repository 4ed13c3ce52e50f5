import type { DbOrTrx } from '../database.js';

export interface SingleUseLink {
  uuid: string;
  topicUuid: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

export async function insertSingleUseLink(db: DbOrTrx, accountUuid: string, link: SingleUseLink, tokenHash: string): Promise<void> {
  await db
    .insertInto('single_use_links')
    .values({
      id: link.uuid,
      account_id: accountUuid,
      topic_id: link.topicUuid,
      token_hash: tokenHash,
      created_at: link.createdAt,
      expires_at: link.expiresAt,
      used_at: null,
      meeting_id: null,
    })
    .execute();
}

export async function findSingleUseLinkByHash(db: DbOrTrx, tokenHash: string): Promise<SingleUseLink | undefined> {
  const row = await db.selectFrom('single_use_links').select(['id', 'topic_id', 'created_at', 'expires_at', 'used_at']).where('token_hash', '=', tokenHash).executeTakeFirst();
  return row
    ? { uuid: row.id, topicUuid: row.topic_id, createdAt: Number(row.created_at), expiresAt: Number(row.expires_at), usedAt: row.used_at === null ? null : Number(row.used_at) }
    : undefined;
}

/** The topic's links neither used nor expired at `now`, newest first. */
export async function findUnusedSingleUseLinks(db: DbOrTrx, topicUuid: string, now: number): Promise<SingleUseLink[]> {
  const rows = await db
    .selectFrom('single_use_links')
    .select(['id', 'topic_id', 'created_at', 'expires_at', 'used_at'])
    .where('topic_id', '=', topicUuid)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map((row) => ({ uuid: row.id, topicUuid: row.topic_id, createdAt: Number(row.created_at), expiresAt: Number(row.expires_at), usedAt: null }));
}

/**
 * Uses the link up, if it still may be: one conditional update, so of two transactions
 * using one link the second waits for the first's row lock (PostgreSQL) or its write lock
 * (SQLite) and then finds it used: false. A rollback of the first frees it again.
 */
export async function useSingleUseLink(db: DbOrTrx, tokenHash: string, topicUuid: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('single_use_links')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('topic_id', '=', topicUuid)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function setSingleUseLinkMeeting(db: DbOrTrx, tokenHash: string, meetingUuid: string): Promise<void> {
  await db.updateTable('single_use_links').set({ meeting_id: meetingUuid }).where('token_hash', '=', tokenHash).execute();
}
