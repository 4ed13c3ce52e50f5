import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Lang } from '../../domain/meeting.js';
import { toSingleLine } from '../../domain/text.js';
import { buildForEachLang } from '../../i18n/catalogue.js';
import { normalizeEmail, type User } from '../../domain/user.js';
import {
  consumeSignInLink,
  countSignInLinksSince,
  deleteSignInLinksBefore,
  extendAppSession,
  findActiveUsersByEmailAcrossAccounts,
  findLiveAppSession,
  findUsableSignInLink,
  insertAppSession,
  insertSignInLink,
  revokeAppSession,
  type SignInMember,
} from '../../db/repositories/app-sessions.js';
import { completeJob } from '../../db/repositories/outbox.js';
import { findUserAcrossAccounts } from '../../db/repositories/users.js';
import type { DbOrTrx } from '../../db/database.js';
import { inTransaction } from '../../db/transaction.js';
import { newId } from '../../ids.js';
import type { NoticeMessagePayload } from '../../mail/queued-message.js';
import { allKeys, type SecretKeys } from '../../secrets/secret-box.js';
import { LostClaimError, type JobHandler } from '../../outbox/job-handler.js';
import { EMAIL_JOB_KIND, SIGN_IN_LINKS_JOB_KIND, enqueueJobs } from '../../outbox/job-kinds.js';
import type { Principal, UseCaseContext } from '../context.js';

/** How long an e-mailed sign-in link works. */
export const SIGN_IN_LINK_MS = 15 * 60_000;
/** How many links one member is sent per SIGN_IN_LINK_MS; more asks are answered alike but send nothing. */
export const SIGN_IN_LINKS_PER_WINDOW = 3;
/** A session lasts this long after its last use (sliding). */
export const SESSION_MS = 30 * 86_400_000;
/** A session's expiry moves forward at most this often: a page view is not a write each time. */
const SESSION_TOUCH_MS = 3_600_000;

/** Tokens are 256 random bits: a plain SHA-256 is enough to store them (nothing to brute-force). */
function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function newToken(): string {
  return randomBytes(32).toString('base64url');
}

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** The sign-in and invitation e-mails' words in each language (locales/<lang>/notices.json, `signIn`, `invitation`). */
const STRINGS = buildForEachLang('notices', (t) => ({
  greeting: (name: string) => t('greeting', { name }),
  signInSubject: (account: string) => t('signIn.subject', { account }),
  signInLead: (account: string, email: string) => t('signIn.lead', { account, email }),
  signInIgnore: t('signIn.ignore'),
  invitationSubject: (inviter: string, account: string) => t('invitation.subject', { inviter, account }),
  invitationAdded: (inviter: string, team: string, account: string) => t('invitation.added', { inviter, team, account }),
  invitationSignIn: (email: string) => t('invitation.signIn', { email }),
  invitationThen: (loginUrl: string) => t('invitation.then', { loginUrl }),
  invitationIgnore: t('invitation.ignore'),
}));

/** The member's sign-in link, in their language (the one they chose, else the login page's). */
function signInMessage({ user, accountName }: SignInMember, url: string, lang: Lang): NoticeMessagePayload {
  const s = STRINGS[lang];
  const account = toSingleLine(accountName);
  return {
    notice: true,
    to: { name: `${user.firstName} ${user.lastName}`, email: user.email },
    lang,
    subject: s.signInSubject(account),
    text: [s.greeting(user.firstName), '', s.signInLead(account, user.email), url, '', s.signInIgnore].join('\n'),
  };
}

/** How long the sign-in link in a new member's invitation works (once): a week, as an invitation may wait in an inbox. */
export const INVITATION_LINK_MS = 7 * 86_400_000;

export interface Invitation {
  /** The new member (their first sign-in link is made for them). */
  user: User;
  accountName: string;
  teamName: string;
  /** Who added them: named in the e-mail so it is not a stranger's. */
  inviterName: string;
  lang: Lang;
}

function invitationMessage(invitation: Invitation, url: string, loginUrl: string): NoticeMessagePayload {
  const { user, lang } = invitation;
  const s = STRINGS[lang];
  const [account, team, inviter] = [invitation.accountName, invitation.teamName, invitation.inviterName].map(toSingleLine) as [string, string, string];
  return {
    notice: true,
    to: { name: `${user.firstName} ${user.lastName}`, email: user.email },
    lang,
    subject: s.invitationSubject(inviter, account),
    text: [s.greeting(user.firstName), '', s.invitationAdded(inviter, team, account), s.invitationSignIn(user.email), url, '', s.invitationThen(loginUrl), s.invitationIgnore].join(
      '\n',
    ),
  };
}

/**
 * A new member's invitation: a single-use sign-in link (valid INVITATION_LINK_MS) and the
 * e-mail carrying it, queued in the caller's transaction, so the member and their invitation
 * commit together and a retried job never sends a second one.
 */
export async function queueInvitation(trx: DbOrTrx, ctx: Pick<UseCaseContext, 'publicUrl'>, invitation: Invitation, now: number): Promise<void> {
  const token = newToken();
  await insertSignInLink(trx, { tokenHash: hashToken(token), userUuid: invitation.user.uuid, createdAt: now, expiresAt: now + INVITATION_LINK_MS });
  const message = invitationMessage(invitation, `${ctx.publicUrl}/app/login/${token}`, `${ctx.publicUrl}/app/login`);
  await enqueueJobs(trx, [{ uuid: newId(now), kind: EMAIL_JOB_KIND, payload: message }], now);
}

/**
 * Asks for sign-in links for `email`. The request does the same for any address, a member's
 * or not: one job queued with the address, and nothing looked up, so neither the answer nor
 * its time tells who is a member (the member's work was three more statements, ~1.3 ms on
 * SQLite and ~4.6 ms on PostgreSQL: bench/sign-in-timing.ts). The job's handler
 * (createSignInLinkSender) finds the members and sends the links.
 */
export async function requestSignInLink(ctx: Pick<UseCaseContext, 'now' | 'db'>, email: string, lang: Lang): Promise<void> {
  const normalized = normalizeEmail(email);
  if (normalized === '' || normalized.length > 320 || !normalized.includes('@')) return;
  const now = ctx.now();
  await enqueueJobs(ctx.db, [{ uuid: newId(now), kind: SIGN_IN_LINKS_JOB_KIND, payload: { email: normalized, lang } }], now);
}

/**
 * The `sign-in-links` job: a link by e-mail to every active member with the address (one per
 * account they belong to, each naming its account); an address already sent
 * SIGN_IN_LINKS_PER_WINDOW links in the last 15 minutes is sent nothing more (counted in the
 * database: every instance agrees). It completes itself in the same transaction, so a retry
 * never sends a second set of links.
 */
export function createSignInLinkSender(ctx: Pick<UseCaseContext, 'publicUrl' | 'now' | 'db'>): JobHandler<'sign-in-links'> {
  return {
    kind: SIGN_IN_LINKS_JOB_KIND,
    async handle(job) {
      const { email, lang } = job.payload;
      await inTransaction(ctx.db, async (trx) => {
        const now = ctx.now();
        if (!(await completeJob(trx, job, now))) throw new LostClaimError(job.uuid);
        await deleteSignInLinksBefore(trx, now - SIGN_IN_LINK_MS);
        for (const member of await findActiveUsersByEmailAcrossAccounts(trx, email)) {
          if ((await countSignInLinksSince(trx, member.user.uuid, now - SIGN_IN_LINK_MS)) >= SIGN_IN_LINKS_PER_WINDOW) continue;
          const token = newToken();
          await insertSignInLink(trx, { tokenHash: hashToken(token), userUuid: member.user.uuid, createdAt: now, expiresAt: now + SIGN_IN_LINK_MS });
          const url = `${ctx.publicUrl}/app/login/${token}`;
          await enqueueJobs(trx, [{ uuid: newId(now), kind: EMAIL_JOB_KIND, payload: signInMessage(member, url, member.user.language ?? lang) }], now);
        }
      });
      return 'completed';
    },
  };
}

export interface NewAppSession {
  /** The cookie's value: only the browser has it; the database keeps its hash. */
  token: string;
  expiresAt: number;
}

/** Whom a link would sign in: shown on the page that asks to confirm. */
export interface SignInLinkView {
  email: string;
  name: string;
  accountName: string;
}

/**
 * Whom an e-mailed link would sign in, changing nothing: opening the link (a GET, which mail
 * scanners and link previews also do) only shows this and asks to confirm. Null when the link
 * is unknown, used or expired (or its member deactivated).
 */
export async function viewSignInLink(ctx: Pick<UseCaseContext, 'now' | 'db'>, linkToken: string): Promise<SignInLinkView | null> {
  if (!TOKEN.test(linkToken)) return null;
  const found = await findUsableSignInLink(ctx.db, hashToken(linkToken), ctx.now());
  return found ? { email: found.user.email, name: `${found.user.firstName} ${found.user.lastName}`, accountName: found.accountName } : null;
}

/** Opens a session for the link's member (the confirmation); null when the link is unknown, used or expired (or its member deactivated). */
export async function redeemSignInLink(ctx: Pick<UseCaseContext, 'now' | 'db'>, linkToken: string): Promise<NewAppSession | null> {
  if (!TOKEN.test(linkToken)) return null;
  return inTransaction(ctx.db, async (trx) => {
    const now = ctx.now();
    const userUuid = await consumeSignInLink(trx, hashToken(linkToken), now);
    if (userUuid === null) return null;
    const user = await findUserAcrossAccounts(trx, userUuid);
    if (!user || user.deactivatedAt !== null) return null;
    const token = newToken();
    const expiresAt = now + SESSION_MS;
    await insertAppSession(trx, { uuid: newId(now), tokenHash: hashToken(token), userUuid, now, expiresAt });
    return { token, expiresAt };
  });
}

export interface AppSession {
  uuid: string;
  user: User;
  /** The signed-in member as the use cases take a caller: the same rules as the member's own API key. */
  principal: Principal;
  /** Set when this use moved the expiry forward (the cookie's lifetime is renewed with it). */
  renewedUntil: number | null;
  /** The token every form of this session carries (see csrfTokenOf). */
  csrfToken: string;
}

/** The session behind a cookie, or null (none, unknown, expired, revoked, member deactivated). */
export async function resumeAppSession(ctx: Pick<UseCaseContext, 'now' | 'db' | 'secretKey'>, token: string | undefined): Promise<AppSession | null> {
  if (token === undefined || !TOKEN.test(token)) return null;
  const now = ctx.now();
  const session = await findLiveAppSession(ctx.db, hashToken(token), now);
  if (!session) return null;
  let renewedUntil: number | null = null;
  if (now - session.lastSeenAt >= SESSION_TOUCH_MS) {
    renewedUntil = now + SESSION_MS;
    await extendAppSession(ctx.db, session.uuid, now, renewedUntil);
  }
  const { user } = session;
  return {
    uuid: session.uuid,
    user,
    // keyUuid: the session's own id, which no API key has, so "the key that booked it" never matches a session.
    principal: {
      keyUuid: session.uuid,
      userUuid: user.uuid,
      accountUuid: user.accountUuid,
      username: user.username,
      actor: { type: 'user', userUuid: user.uuid, via: 'app' },
    },
    renewedUntil,
    csrfToken: csrfTokenOf(ctx.secretKey, `session:${session.uuid}`),
  };
}

export async function signOut(ctx: Pick<UseCaseContext, 'now' | 'db'>, sessionUuid: string): Promise<void> {
  await revokeAppSession(ctx.db, sessionUuid, ctx.now());
}

/**
 * The CSRF token of a form: an HMAC of what the browser already holds (its session, or before
 * sign-in a random cookie), so any instance checks it without storing anything, and another
 * site, which can make the browser send the cookie but cannot read it, cannot make the token.
 */
export function csrfTokenOf(secretKey: SecretKeys, binding: string): string {
  return csrfTokenWith(secretKey.current, binding);
}

/** Made with the current key; a form rendered before a key rotation (under a previous key) is still accepted. */
export function isCsrfTokenValid(secretKey: SecretKeys, binding: string, token: unknown): boolean {
  if (typeof token !== 'string') return false;
  const given = Buffer.from(token);
  return allKeys(secretKey).some((key) => {
    const expected = Buffer.from(csrfTokenWith(key, binding));
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

function csrfTokenWith(key: Buffer, binding: string): string {
  return createHmac('sha256', key).update(`app-csrf:${binding}`).digest('base64url');
}

/** A random value for the pre-sign-in cookie the login form's CSRF token is bound to. */
export function newBrowserNonce(): string {
  return newToken();
}
