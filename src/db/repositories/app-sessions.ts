import type { User } from '../../domain/user.js';
import type { DbOrTrx } from '../database.js';
import { userRowToUser } from './users.js';

/** A member as a sign-in link names them: the user, and the account they would sign in to. */
export interface SignInMember {
  user: User;
  accountName: string;
}

/** Every active user with this (normalised) e-mail, in any account, with its account's name: each may sign in to their own. */
export async function findActiveUsersByEmailAcrossAccounts(db: DbOrTrx, emailNormalized: string): Promise<SignInMember[]> {
  const rows = await db
    .selectFrom('users')
    .innerJoin('accounts', 'accounts.id', 'users.account_id')
    .selectAll('users')
    .select('accounts.name as account_name')
    .where('users.email_normalized', '=', emailNormalized)
    .where('users.deactivated_at', 'is', null)
    .orderBy('users.id')
    .execute();
  return rows.map((row) => ({ user: userRowToUser(row), accountName: row.account_name }));
}

/**
 * The member an unused, unexpired link would sign in, and their account's name, without using
 * it (the confirmation page); undefined when the link is unknown, used, expired, or its member
 * deactivated.
 */
export async function findUsableSignInLink(db: DbOrTrx, tokenHash: string, now: number): Promise<SignInMember | undefined> {
  const row = await db
    .selectFrom('app_sign_in_links')
    .innerJoin('users', 'users.id', 'app_sign_in_links.user_id')
    .innerJoin('accounts', 'accounts.id', 'users.account_id')
    .selectAll('users')
    .select('accounts.name as account_name')
    .where('app_sign_in_links.token_hash', '=', tokenHash)
    .where('app_sign_in_links.used_at', 'is', null)
    .where('app_sign_in_links.expires_at', '>', now)
    .where('users.deactivated_at', 'is', null)
    .executeTakeFirst();
  return row && { user: userRowToUser(row), accountName: row.account_name };
}

export async function countSignInLinksSince(db: DbOrTrx, userUuid: string, since: number): Promise<number> {
  const row = await db
    .selectFrom('app_sign_in_links')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('user_id', '=', userUuid)
    .where('created_at', '>=', since)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function insertSignInLink(db: DbOrTrx, link: { tokenHash: string; userUuid: string; createdAt: number; expiresAt: number }): Promise<void> {
  await db
    .insertInto('app_sign_in_links')
    .values({ token_hash: link.tokenHash, user_id: link.userUuid, created_at: link.createdAt, expires_at: link.expiresAt, used_at: null })
    .execute();
}

/**
 * Marks the link used if it is unused and unexpired, returning its user; conditional, so of
 * two browsers opening one link at once exactly one signs in.
 */
export async function consumeSignInLink(db: DbOrTrx, tokenHash: string, now: number): Promise<string | null> {
  const link = await db.selectFrom('app_sign_in_links').select(['user_id']).where('token_hash', '=', tokenHash).executeTakeFirst();
  if (!link) return null;
  const result = await db
    .updateTable('app_sign_in_links')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1 ? link.user_id : null;
}

export async function deleteSignInLinksBefore(db: DbOrTrx, before: number): Promise<void> {
  await db.deleteFrom('app_sign_in_links').where('expires_at', '<', before).execute();
}

export async function insertAppSession(db: DbOrTrx, session: { uuid: string; tokenHash: string; userUuid: string; now: number; expiresAt: number }): Promise<void> {
  await db
    .insertInto('app_sessions')
    .values({
      id: session.uuid,
      token_hash: session.tokenHash,
      user_id: session.userUuid,
      created_at: session.now,
      last_seen_at: session.now,
      expires_at: session.expiresAt,
      revoked_at: null,
    })
    .execute();
}

export interface LiveAppSession {
  uuid: string;
  lastSeenAt: number;
  expiresAt: number;
  user: User;
}

/** The unrevoked, unexpired session with this cookie, and its user while active. */
export async function findLiveAppSession(db: DbOrTrx, tokenHash: string, now: number): Promise<LiveAppSession | undefined> {
  const row = await db
    .selectFrom('app_sessions')
    .innerJoin('users', 'users.id', 'app_sessions.user_id')
    .selectAll('users')
    .select(['app_sessions.id as session_id', 'app_sessions.last_seen_at as session_last_seen_at', 'app_sessions.expires_at as session_expires_at'])
    .where('app_sessions.token_hash', '=', tokenHash)
    .where('app_sessions.revoked_at', 'is', null)
    .where('app_sessions.expires_at', '>', now)
    .where('users.deactivated_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  return { uuid: row.session_id, lastSeenAt: Number(row.session_last_seen_at), expiresAt: Number(row.session_expires_at), user: userRowToUser(row) };
}

export async function extendAppSession(db: DbOrTrx, sessionUuid: string, now: number, expiresAt: number): Promise<void> {
  await db.updateTable('app_sessions').set({ last_seen_at: now, expires_at: expiresAt }).where('id', '=', sessionUuid).where('revoked_at', 'is', null).execute();
}

export async function revokeAppSession(db: DbOrTrx, sessionUuid: string, now: number): Promise<void> {
  await db.updateTable('app_sessions').set({ revoked_at: now }).where('id', '=', sessionUuid).where('revoked_at', 'is', null).execute();
}
