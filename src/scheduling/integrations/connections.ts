import { createHash, randomBytes } from 'node:crypto';
import { buildAuthorizeUrl, createPkce, exchangeCode, GrantRefusedError, missingScopes, revokeToken } from '../../integrations/oauth.js';
import { ProviderError } from '../../integrations/ports.js';
import { NotFoundError, SecretUnreadableError, ValidationError } from '../../domain/errors.js';
import { type Connection, type IntegrationProvider, PROVIDER_PLACES } from '../../domain/integrations.js';
import type { Lang } from '../../domain/lang.js';
import type { User } from '../../domain/user.js';
import { buildForEachLang } from '../../i18n/catalogue.js';
import {
  consumeOauthState,
  deleteConnection,
  findConnection,
  findConnectionOfUser,
  findConnectionWithTokens,
  insertConnection,
  insertOauthState,
  isOauthStateSessionBound,
  listConnectionsOfUser,
  storeConnected,
} from '../../db/repositories/connections.js';
import { findAccount } from '../../db/repositories/accounts.js';
import { findUserAcrossAccounts } from '../../db/repositories/users.js';
import type { NoticeMessagePayload } from '../../mail/queued-message.js';
import { deleteCalendar, deleteCalendarSpans, findCalendarsOfConnection } from '../../db/repositories/calendars.js';
import { lockHost } from '../../db/repositories/meetings.js';
import { EMAIL_JOB_KIND, enqueueJobs } from '../../outbox/job-kinds.js';
import { actorOf, recordAuditEvent } from '../audit/record-audit.js';
import { inTransaction } from '../../db/transaction.js';
import { newId } from '../../ids.js';
import { canOpenSecret, openSecret, sealSecret } from '../../secrets/secret-box.js';
import { requireSelfOrTeamAdmin } from '../access.js';
import { roomJobsOfWaitingMeetings } from './rooms.js';
import type { Principal, UseCaseContext } from '../context.js';
import { openIntegrationApp, redirectUriOf } from './apps.js';

export { redirectUriOf };
import { areTokensReadable, unreadableTokensError, whatToDoAfter } from './provider-access.js';

/** An authorization's `state` is good for this long, and once. */
export const OAUTH_STATE_TTL_MS = 15 * 60_000;

type ConnectionsContext = Pick<UseCaseContext, 'publicUrl' | 'now' | 'db' | 'secretKey' | 'integrations'>;

function hashState(state: string): string {
  return createHash('sha256').update(state, 'utf8').digest('hex');
}

/**
 * `POST /users/{userUuid}/connections` `{ provider }`: a host's connection (made, or the one
 * the host has, to connect again after an error) and the provider's authorization URL, with
 * a single-use `state` (15 minutes) and PKCE, for the host's browser. By the user or an admin
 * of one of their teams; 400 at `/provider` when the account has no configured app for it.
 *
 * Started from the web app, `appSessionUuid` is the member's session: only a browser that
 * shows that session may finish it (see completeConnection). Started through the API, any
 * browser may: the integrator decides where its `authorizeUrl` goes.
 */
export async function startConnection(
  ctx: ConnectionsContext,
  principal: Principal,
  userUuid: string,
  provider: IntegrationProvider,
  options: { appSessionUuid?: string } = {},
): Promise<{ connection: Connection; authorizeUrl: string; created: boolean }> {
  const user = await requireSelfOrTeamAdmin(ctx.db, principal, userUuid);
  const adapter = ctx.integrations.oauth[provider];
  const app = await openIntegrationApp(ctx, ctx.db, user.accountUuid, provider);
  if (app === null) {
    throw new ValidationError([
      { path: '/provider', message: `the account has no configured ${adapter.label} app yet: an admin sets it with PATCH /api/v1/account (integrations.${provider})` },
    ]);
  }
  const now = ctx.now();
  const existing = await findConnectionOfUser(ctx.db, user.uuid, provider);
  const connection: Connection = existing ?? {
    uuid: newId(now),
    accountUuid: user.accountUuid,
    userUuid: user.uuid,
    provider,
    status: 'pending',
    accountEmail: null,
    lastError: null,
    createdAt: now,
    connectedAt: null,
  };
  const state = randomBytes(32).toString('base64url');
  const pkce = await createPkce();
  await inTransaction(ctx.db, async (trx) => {
    if (!existing) await insertConnection(trx, connection, now);
    if (!existing)
      await recordAuditEvent(trx, {
        accountUuid: user.accountUuid,
        action: 'connection.created',
        actor: actorOf(principal),
        target: { type: 'connection', uuid: connection.uuid },
        details: { userUuid: user.uuid, provider },
        now,
      });
    await insertOauthState(
      trx,
      {
        stateHash: hashState(state),
        connectionUuid: connection.uuid,
        codeVerifierSealed: sealSecret(ctx.secretKey, pkce.verifier),
        expiresAt: now + OAUTH_STATE_TTL_MS,
        appSessionUuid: options.appSessionUuid ?? null,
      },
      now,
    );
  });
  const authorizeUrl = buildAuthorizeUrl(adapter.authorizationServer(app), app, redirectUriOf(ctx.publicUrl, provider), state, pkce.challenge);
  return { connection, authorizeUrl, created: !existing };
}

export type CallbackOutcome =
  | {
      kind: 'connected';
      connection: Connection;
      label: string;
      /** Whose connection it became, "Olga Owner", and of which termin account, "Acme": the page and the member's e-mail say so. */
      memberName: string;
      accountName: string;
    }
  /** Nothing was stored: the state was unknown, used, expired or another provider's, or the host or provider said no. */
  | { kind: 'refused'; reason: string }
  /** Nothing was stored and the code was not used: started in `/app`, finished in a browser without that session. */
  | { kind: 'wrong-browser'; reason: string }
  /** The provider could not be reached or answered nonsense: the host may try again. */
  | { kind: 'failed'; reason: string };

/**
 * Whether the callback with this `query` must be finished where the web app's session cookie is
 * seen (it is sent to `/app` paths only): its `state`, still usable, was started from `/app`.
 * Nothing is used up: `/oauth/{provider}/callback` sends the browser on to
 * `/app/oauth/{provider}/callback` with the same query, whose completeConnection checks the session.
 */
export async function callbackNeedsAppSession(ctx: Pick<UseCaseContext, 'db' | 'now'>, query: Readonly<Record<string, string>>): Promise<boolean> {
  const state = query.state;
  return typeof state === 'string' && state !== '' && (await isOauthStateSessionBound(ctx.db, hashState(state), ctx.now()));
}

/**
 * `GET /oauth/{provider}/callback`: the host's browser back from the provider. The `state`
 * is used up first (whatever follows), then the code is exchanged, the provider account's
 * e-mail read, the tokens stored sealed, and the connection is `connected`. Meetings of the
 * host waiting for a room at this provider's place get it now, and the member is e-mailed
 * whose connection it became, at once (in the same transaction), with how to remove it.
 *
 * `appSessionUuid` is the web app's session the browser showed (null: none, or a route that
 * cannot see it). A `state` started from `/app` is bound to its session: in a browser without
 * that session (none, another member's, signed out since) the state is used up, the code is
 * never exchanged, and nothing is stored (`wrong-browser`), so someone holding a leaked
 * `authorizeUrl` cannot make their own provider account the member's.
 */
export async function completeConnection(
  ctx: ConnectionsContext,
  provider: IntegrationProvider,
  query: Readonly<Record<string, string>>,
  appSessionUuid: string | null,
): Promise<CallbackOutcome> {
  const state = query.state;
  if (typeof state !== 'string' || state === '') return { kind: 'refused', reason: 'The link is incomplete: it carries no state. Start connecting again from termin.' };
  const now = ctx.now();
  const consumed = await consumeOauthState(ctx.db, hashState(state), now);
  if (!consumed) return { kind: 'refused', reason: 'This link was already used or has expired (after 15 minutes). Start connecting again from termin.' };
  if (consumed.appSessionUuid !== null && consumed.appSessionUuid !== appSessionUuid) {
    return {
      kind: 'wrong-browser',
      reason:
        'This connection was started in termin by a signed-in member, and only that browser, still signed in as them, can finish it. ' +
        'Nothing was connected. If it was you, sign in to termin in the browser you use for it and connect again from Connections.',
    };
  }
  const connection = await findConnection(ctx.db, consumed.connectionUuid);
  if (!connection || connection.provider !== provider) return { kind: 'refused', reason: 'This link does not belong to this provider. Start connecting again from termin.' };
  const adapter = ctx.integrations.oauth[provider];
  if (typeof query.error === 'string') {
    return { kind: 'refused', reason: `${adapter.label} did not grant access (${query.error.slice(0, 100)}). Nothing was connected.` };
  }
  // Sealed before the server's secret key changed (and the old key not kept as a previous one).
  if (!canOpenSecret(ctx.secretKey, consumed.codeVerifierSealed)) {
    return {
      kind: 'refused',
      reason: `This link was made before the server's secret key changed and can no longer be completed. Nothing was connected. Start connecting ${adapter.label} again from termin.`,
    };
  }
  let app: Awaited<ReturnType<typeof openIntegrationApp>>;
  try {
    app = await openIntegrationApp(ctx, ctx.db, connection.accountUuid, provider);
  } catch (error) {
    if (error instanceof SecretUnreadableError) return { kind: 'refused', reason: `${error.message}. Nothing was connected.` };
    throw error;
  }
  if (app === null) return { kind: 'refused', reason: `The account's ${adapter.label} app is no longer configured.` };
  const server = adapter.authorizationServer(app);
  let tokens: Awaited<ReturnType<typeof exchangeCode>>;
  try {
    tokens = await exchangeCode(
      server,
      app,
      redirectUriOf(ctx.publicUrl, provider),
      new URLSearchParams(query),
      state,
      openSecret(ctx.secretKey, consumed.codeVerifierSealed),
      now,
    );
  } catch (error) {
    if (error instanceof GrantRefusedError) {
      const next = error.refusal === 'grant' ? '' : ` ${whatToDoAfter(error.refusal, adapter.label, provider)}`;
      return { kind: 'refused', reason: `${adapter.label} refused: ${error.reason}. Nothing was connected.${next}` };
    }
    if (error instanceof ProviderError)
      return { kind: 'failed', reason: `${adapter.label} could not be reached or answered unexpectedly (${error.message}). Start connecting again in a moment.` };
    throw error;
  }
  // Granted less than termin needs (a box unticked on the consent screen): not connected, and the
  // page names what is missing. Nothing is stored: a connection that works keeps its own tokens.
  const missing = missingScopes(server, tokens.grantedScopes);
  if (missing.length > 0) {
    const named = missing.map(({ scope, name }) => `"${name}" (${scope})`).join(', ');
    return {
      kind: 'refused',
      reason: `${adapter.label} did not grant what termin needs: ${named}. Connect again and leave ${missing.length === 1 ? 'it' : 'them'} ticked on ${adapter.label}'s consent screen. Nothing was connected.`,
    };
  }
  let accountEmail: string | null = null;
  try {
    accountEmail = await adapter.fetchAccountEmail(tokens.accessToken);
  } catch (error) {
    // The connection works without it: the e-mail only helps the host recognise the account.
    if (!(error instanceof ProviderError)) throw error;
  }
  // As stored: what the page and the e-mail name is what the connection shows.
  accountEmail = accountEmail?.slice(0, 320) ?? null;
  const done = ctx.now();
  const stored = await inTransaction(ctx.db, async (trx) => {
    await storeConnected(
      trx,
      connection.uuid,
      {
        accountEmail,
        tokens: {
          accessTokenSealed: sealSecret(ctx.secretKey, tokens.accessToken),
          refreshTokenSealed: tokens.refreshToken === null ? null : sealSecret(ctx.secretKey, tokens.refreshToken),
          accessExpiresAt: tokens.expiresAt,
        },
      },
      done,
    );
    await enqueueJobs(trx, await roomJobsOfWaitingMeetings(trx, connection.userUuid, PROVIDER_PLACES[provider], done), done);
    const member = await findUserAcrossAccounts(trx, connection.userUuid);
    const account = await findAccount(trx, connection.accountUuid);
    const whose = { memberName: member ? `${member.firstName} ${member.lastName}` : 'a removed member', accountName: account?.name ?? 'a removed account' };
    if (member && member.deactivatedAt === null) {
      const notice = connectedNotice(ctx.publicUrl, adapter.label, connection, accountEmail, {
        memberName: whose.memberName,
        accountName: account?.name ?? null,
        firstName: member.firstName,
        email: member.email,
        lang: member.language ?? 'en',
      });
      await enqueueJobs(trx, [{ uuid: newId(done), kind: EMAIL_JOB_KIND, payload: notice }], done);
    }
    return whose;
  });
  return { kind: 'connected', connection: { ...connection, status: 'connected', accountEmail, lastError: null, connectedAt: done }, label: adapter.label, ...stored };
}

/** The words naming a provider account: "Zoom account zed@example.com", or "A Zoom account" when the provider did not say which. */
export function providerAccountOf(label: string, accountEmail: string | null): string {
  return accountEmail === null ? `A ${label} account` : `${label} account ${accountEmail}`;
}

/** The "now connected" e-mail's words in each language (locales/<lang>/notices.json, `connected`). */
const CONNECTED_STRINGS = buildForEachLang('notices', (t) => ({
  greeting: (name: string) => t('greeting', { name }),
  which: (label: string, email: string | null) => (email === null ? t('connected.someAccount', { label }) : t('connected.account', { label, email })),
  removedAccount: t('connected.removedAccount'),
  subject: (which: string, member: string, account: string) => t('connected.subject', { which, member, account }),
  lead: (which: string, member: string, account: string) => t('connected.lead', { which, member, account }),
  rooms: (place: string, label: string) => t('connected.rooms', { place, label }),
  notYou: (label: string) => t('connected.notYou', { label }),
  remove: t('connected.remove'),
  api: (request: string) => t('connected.api', { request }),
}));

/**
 * The member's e-mail on a connection made, in their language: whose it became and how to
 * remove it. Sent however the connection was started, so a member whose API-started
 * `authorizeUrl` was finished by someone else (their own provider account now making the
 * member's rooms) learns it at once.
 */
function connectedNotice(
  publicUrl: string,
  label: string,
  connection: Connection,
  accountEmail: string | null,
  member: { firstName: string; email: string; memberName: string; accountName: string | null; lang: Lang },
): NoticeMessagePayload {
  const s = CONNECTED_STRINGS[member.lang];
  const which = s.which(label, accountEmail);
  const account = member.accountName ?? s.removedAccount;
  return {
    notice: true,
    to: { name: member.memberName, email: member.email },
    lang: member.lang,
    subject: s.subject(which, member.memberName, account),
    text: [
      s.greeting(member.firstName),
      '',
      s.lead(which, member.memberName, account),
      s.rooms(PROVIDER_PLACES[connection.provider], label),
      '',
      s.notYou(label),
      `${s.remove}: ${publicUrl}/app/connections`,
      s.api(`DELETE ${publicUrl}/api/v1/users/${connection.userUuid}/connections/${connection.uuid}`),
    ].join('\n'),
  };
}

type ViewContext = Pick<UseCaseContext, 'db' | 'secretKey' | 'integrations'>;

export async function listConnections(ctx: ViewContext, principal: Principal, userUuid: string): Promise<Connection[]> {
  const user = await requireSelfOrTeamAdmin(ctx.db, principal, userUuid);
  return Promise.all((await listConnectionsOfUser(ctx.db, user.uuid)).map((connection) => asUsable(ctx, connection)));
}

export async function getConnection(ctx: ViewContext, principal: Principal, userUuid: string, connectionUuid: string): Promise<Connection> {
  const user = await requireSelfOrTeamAdmin(ctx.db, principal, userUuid);
  return asUsable(ctx, await requireConnectionOf(ctx, user, connectionUuid));
}

/**
 * A connected connection whose tokens no secret key of this server opens is shown as `error`,
 * saying to connect again; nothing is stored, so once the operator gives the old key back
 * (TERMIN_SECRET_KEY_PREVIOUS) it reads `connected` again. A call through it stores the error.
 */
async function asUsable(ctx: ViewContext, connection: Connection): Promise<Connection> {
  if (connection.status !== 'connected') return connection;
  const found = await findConnectionWithTokens(ctx.db, connection.uuid);
  if (!found || areTokensReadable(ctx.secretKey, found.tokens)) return connection;
  return { ...connection, status: 'error', lastError: unreadableTokensError(ctx.integrations.oauth[connection.provider].label).message };
}

/**
 * `DELETE …/connections/{uuid}`: the tokens are revoked at the provider where it offers it
 * (best effort: a provider that cannot be reached does not keep a host connected, and tokens
 * or an app secret no key of this server opens are not revoked, only forgotten), then
 * forgotten, with the host's calendars on it and their busy time. Rooms already made stay where they are.
 */
export async function removeConnection(ctx: ConnectionsContext, principal: Principal, userUuid: string, connectionUuid: string): Promise<void> {
  const user = await requireSelfOrTeamAdmin(ctx.db, principal, userUuid);
  const connection = await requireConnectionOf(ctx, user, connectionUuid);
  const found = await findConnectionWithTokens(ctx.db, connection.uuid);
  const sealed = found?.tokens.refreshTokenSealed ?? found?.tokens.accessTokenSealed ?? null;
  if (sealed !== null && canOpenSecret(ctx.secretKey, sealed)) {
    const app = await openIntegrationApp(ctx, ctx.db, connection.accountUuid, connection.provider).catch((error: unknown) => {
      if (error instanceof SecretUnreadableError) return null;
      throw error;
    });
    if (app !== null) {
      await revokeToken(ctx.integrations.oauth[connection.provider].authorizationServer(app), app, openSecret(ctx.secretKey, sealed)).catch(() => undefined);
    }
  }
  // With the host's schedules marked stale in the same transaction (they say which places are ready).
  await inTransaction(ctx.db, async (trx) => {
    // The calendars read through it go with it, and their busy time, or they would block the host's slots forever from their last read.
    const calendars = await findCalendarsOfConnection(trx, connection.uuid);
    if (calendars.length > 0) {
      await lockHost(trx, connection.userUuid);
      for (const calendarUuid of calendars) {
        await deleteCalendarSpans(trx, calendarUuid);
        await deleteCalendar(trx, calendarUuid);
      }
    }
    await deleteConnection(trx, connection.uuid);
    await recordAuditEvent(trx, {
      accountUuid: connection.accountUuid,
      action: 'connection.deleted',
      actor: actorOf(principal),
      target: { type: 'connection', uuid: connection.uuid },
      details: { userUuid: user.uuid, provider: connection.provider },
      now: ctx.now(),
    });
  });
}

async function requireConnectionOf(ctx: Pick<UseCaseContext, 'db'>, user: User, connectionUuid: string): Promise<Connection> {
  const connection = await findConnection(ctx.db, connectionUuid);
  if (!connection || connection.userUuid !== user.uuid) throw new NotFoundError('connection');
  return connection;
}
