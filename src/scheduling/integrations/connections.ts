import { createHash, randomBytes } from 'node:crypto';
import { buildAuthorizeUrl, createPkce, exchangeCode, GrantRefusedError, missingScopes, revokeToken } from '../../integrations/oauth.js';
import { ProviderError } from '../../integrations/ports.js';
import { NotFoundError, ValidationError } from '../../domain/errors.js';
import { type Connection, type IntegrationProvider, PROVIDER_PLACES } from '../../domain/integrations.js';
import type { User } from '../../domain/user.js';
import {
  consumeOauthState,
  deleteConnection,
  findConnection,
  findConnectionOfUser,
  findConnectionWithTokens,
  insertConnection,
  insertOauthState,
  listConnectionsOfUser,
  storeConnected,
} from '../../db/repositories/connections.js';
import { deleteCalendar, deleteCalendarSpans, findCalendarsOfConnection } from '../../db/repositories/calendars.js';
import { lockHost } from '../../db/repositories/meetings.js';
import { enqueueJobs } from '../../outbox/job-kinds.js';
import { actorOf, recordAuditEvent } from '../audit/record-audit.js';
import { inTransaction } from '../../db/transaction.js';
import { newId } from '../../ids.js';
import { openSecret, sealSecret } from '../../secrets/secret-box.js';
import { requireSelfOrTeamAdmin } from '../access.js';
import { roomJobsOfWaitingMeetings } from './rooms.js';
import type { Principal, UseCaseContext } from '../context.js';
import { openIntegrationApp } from './apps.js';
import { whatToDoAfter } from './provider-access.js';

/** An authorization's `state` is good for this long, and once. */
export const OAUTH_STATE_TTL_MS = 15 * 60_000;

type ConnectionsContext = Pick<UseCaseContext, 'publicUrl' | 'now' | 'db' | 'secretKey' | 'integrations'>;

/** `{PUBLIC_URL}/oauth/{provider}/callback`: the redirect URI the business registers with the provider. */
export function redirectUriOf(publicUrl: string, provider: IntegrationProvider): string {
  return `${publicUrl}/oauth/${provider}/callback`;
}

function hashState(state: string): string {
  return createHash('sha256').update(state, 'utf8').digest('hex');
}

/**
 * `POST /users/{userUuid}/connections` `{ provider }`: a host's connection (made, or the one
 * the host has, to connect again after an error) and the provider's authorization URL, with
 * a single-use `state` (15 minutes) and PKCE, for the host's browser. By the user or an admin
 * of one of their teams; 400 at `/provider` when the account has no configured app for it.
 */
export async function startConnection(
  ctx: ConnectionsContext,
  principal: Principal,
  userUuid: string,
  provider: IntegrationProvider,
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
      { stateHash: hashState(state), connectionUuid: connection.uuid, codeVerifierSealed: sealSecret(ctx.secretKey, pkce.verifier), expiresAt: now + OAUTH_STATE_TTL_MS },
      now,
    );
  });
  const authorizeUrl = buildAuthorizeUrl(adapter.authorizationServer(app), app, redirectUriOf(ctx.publicUrl, provider), state, pkce.challenge);
  return { connection, authorizeUrl, created: !existing };
}

export type CallbackOutcome =
  | { kind: 'connected'; connection: Connection; label: string }
  /** Nothing was stored: the state was unknown, used, expired or another provider's, or the host or provider said no. */
  | { kind: 'refused'; reason: string }
  /** The provider could not be reached or answered nonsense: the host may try again. */
  | { kind: 'failed'; reason: string };

/**
 * `GET /oauth/{provider}/callback`: the host's browser back from the provider. The `state`
 * is used up first (whatever follows), then the code is exchanged, the provider account's
 * e-mail read, the tokens stored sealed, and the connection is `connected`. Meetings of the
 * host waiting for a room at this provider's place get it now.
 */
export async function completeConnection(ctx: ConnectionsContext, provider: IntegrationProvider, query: Readonly<Record<string, string>>): Promise<CallbackOutcome> {
  const state = query.state;
  if (typeof state !== 'string' || state === '') return { kind: 'refused', reason: 'The link is incomplete: it carries no state. Start connecting again from termin.' };
  const now = ctx.now();
  const consumed = await consumeOauthState(ctx.db, hashState(state), now);
  if (!consumed) return { kind: 'refused', reason: 'This link was already used or has expired (after 15 minutes). Start connecting again from termin.' };
  const connection = await findConnection(ctx.db, consumed.connectionUuid);
  if (!connection || connection.provider !== provider) return { kind: 'refused', reason: 'This link does not belong to this provider. Start connecting again from termin.' };
  const adapter = ctx.integrations.oauth[provider];
  if (typeof query.error === 'string') {
    return { kind: 'refused', reason: `${adapter.label} did not grant access (${query.error.slice(0, 100)}). Nothing was connected.` };
  }
  const app = await openIntegrationApp(ctx, ctx.db, connection.accountUuid, provider);
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
  const done = ctx.now();
  await inTransaction(ctx.db, async (trx) => {
    await storeConnected(
      trx,
      connection.uuid,
      {
        accountEmail: accountEmail?.slice(0, 320) ?? null,
        tokens: {
          accessTokenSealed: sealSecret(ctx.secretKey, tokens.accessToken),
          refreshTokenSealed: tokens.refreshToken === null ? null : sealSecret(ctx.secretKey, tokens.refreshToken),
          accessExpiresAt: tokens.expiresAt,
        },
      },
      done,
    );
    await enqueueJobs(trx, await roomJobsOfWaitingMeetings(trx, connection.userUuid, PROVIDER_PLACES[provider], done), done);
  });
  return { kind: 'connected', connection: { ...connection, status: 'connected', accountEmail, lastError: null, connectedAt: done }, label: adapter.label };
}

export async function listConnections(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, userUuid: string): Promise<Connection[]> {
  const user = await requireSelfOrTeamAdmin(ctx.db, principal, userUuid);
  return listConnectionsOfUser(ctx.db, user.uuid);
}

export async function getConnection(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, userUuid: string, connectionUuid: string): Promise<Connection> {
  const user = await requireSelfOrTeamAdmin(ctx.db, principal, userUuid);
  return requireConnectionOf(ctx, user, connectionUuid);
}

/**
 * `DELETE …/connections/{uuid}`: the tokens are revoked at the provider where it offers it
 * (best effort: a provider that cannot be reached does not keep a host connected), then
 * forgotten, with the host's calendars on it and their busy time. Rooms already made stay where they are.
 */
export async function removeConnection(ctx: ConnectionsContext, principal: Principal, userUuid: string, connectionUuid: string): Promise<void> {
  const user = await requireSelfOrTeamAdmin(ctx.db, principal, userUuid);
  const connection = await requireConnectionOf(ctx, user, connectionUuid);
  const found = await findConnectionWithTokens(ctx.db, connection.uuid);
  const app = await openIntegrationApp(ctx, ctx.db, connection.accountUuid, connection.provider);
  const sealed = found?.tokens.refreshTokenSealed ?? found?.tokens.accessTokenSealed ?? null;
  if (app !== null && sealed !== null) {
    await revokeToken(ctx.integrations.oauth[connection.provider].authorizationServer(app), app, openSecret(ctx.secretKey, sealed)).catch(() => undefined);
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
