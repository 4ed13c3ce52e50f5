import { type GrantRefusal, GrantRefusedError, refreshTokens } from '../../integrations/oauth.js';
import { AccessTokenRejectedError, ConnectionRefusedError, ProviderError } from '../../integrations/ports.js';
import { type Connection, type IntegrationProvider, PROVIDER_PLACES } from '../../domain/integrations.js';
import {
  claimTokenRefresh,
  findConnectionWithTokens,
  findIdleConnections,
  markConnectionFailed,
  releaseTokenRefresh,
  storeRefreshedTokens,
} from '../../db/repositories/connections.js';
import { findUserAcrossAccounts } from '../../db/repositories/users.js';
import { buildForEachLang } from '../../i18n/catalogue.js';
import { inTransaction } from '../../db/transaction.js';
import { newId } from '../../ids.js';
import type { NoticeMessagePayload } from '../../mail/queued-message.js';
import { EMAIL_JOB_KIND, enqueueJobs } from '../../outbox/job-kinds.js';
import { canOpenSecret, openSecret, sealSecret, type SecretKeys } from '../../secrets/secret-box.js';
import { SecretUnreadableError } from '../../domain/errors.js';
import type { SealedTokens } from '../../db/repositories/connections.js';
import type { UseCaseContext } from '../context.js';
import { openIntegrationApp } from './apps.js';
import { recordEvents } from '../record-events.js';

/**
 * A host's access token for calls to a provider: refreshed before it expires and after a 401,
 * one refresh at a time per connection across instances, a rotated refresh token kept, and a
 * refused grant turned into the connection's error (the host told, `connection.error` sent).
 */

/** An access token this close to its expiry is refreshed before it is used. */
const TOKEN_REFRESH_MARGIN_MS = 60_000;
/** One refresh at a time per connection, across instances: the others wait this long at most. */
const REFRESH_LEASE_MS = 30_000;
const REFRESH_WAIT_MS = 15_000;
/** Tokens last stored this long ago are refreshed in the background, well within the 90 days after which Zoom, Webex and Microsoft refuse an unused refresh token. */
export const IDLE_REFRESH_AFTER_MS = 30 * 24 * 3_600_000;

type TokenContext = Pick<UseCaseContext, 'publicUrl' | 'now' | 'db' | 'secretKey' | 'integrations'>;

/** What the host is told when no secret key of this server opens a connection's tokens: `connect Zoom again`. */
export function unreadableTokensError(label: string): SecretUnreadableError {
  return new SecretUnreadableError({ what: `the ${label} connection's tokens`, todo: `connect ${label} again` });
}

/**
 * Whether the tokens can still be used: the refresh token opens (a new access token follows
 * from it), or, without one, the access token does.
 */
export function areTokensReadable(keys: SecretKeys, tokens: SealedTokens): boolean {
  const lasting = tokens.refreshTokenSealed ?? tokens.accessTokenSealed;
  return lasting === null || canOpenSecret(keys, lasting);
}

/** The connection cannot be used until the host connects again (or never connected): the caller records that and moves on. */
export class ConnectionUnusableError extends Error {
  constructor(
    readonly connectionUuid: string,
    reason: string,
  ) {
    super(reason);
    this.name = 'ConnectionUnusableError';
  }
}

/**
 * Calls the provider with a working access token: refreshed first when it is about to
 * expire, and refreshed once more if the provider refuses it (HTTP 401). Refreshes are one
 * at a time per connection across instances (a claim on the row; the others wait for its
 * result), and a rotated refresh token is kept. A refused grant turns the connection to
 * `error`, tells the host and sends `connection.error`, and throws ConnectionUnusableError;
 * so does a call the provider refuses for the connection's sake (ConnectionRefusedError).
 */
export async function withAccessToken<T>(ctx: TokenContext, connectionUuid: string, call: (accessToken: string) => Promise<T>): Promise<T> {
  let rejected: string | undefined;
  for (;;) {
    const token = await accessTokenOf(ctx, connectionUuid, rejected);
    try {
      return await call(token);
    } catch (error) {
      if (error instanceof ConnectionRefusedError) {
        const found = await findConnectionWithTokens(ctx.db, connectionUuid);
        if (found) await failConnection(ctx, found.connection, `${error.message}. Connect it again.`, 'permission');
        throw new ConnectionUnusableError(connectionUuid, error.message);
      }
      if (!(error instanceof AccessTokenRejectedError)) throw error;
      if (rejected === undefined) {
        rejected = token;
        continue;
      }
      // Refused again right after a refresh: the grant no longer covers what termin does.
      const found = await findConnectionWithTokens(ctx.db, connectionUuid);
      if (!found) throw new ConnectionUnusableError(connectionUuid, 'the connection was removed');
      const label = ctx.integrations.oauth[found.connection.provider].label;
      await failConnection(ctx, found.connection, `${label} refused a freshly refreshed access token. Connect it again.`, 'grant');
      throw new ConnectionUnusableError(connectionUuid, `${label} refused a freshly refreshed access token`);
    }
  }
}

async function accessTokenOf(ctx: TokenContext, connectionUuid: string, rejected: string | undefined): Promise<string> {
  const deadline = Date.now() + REFRESH_WAIT_MS;
  for (;;) {
    const found = await findConnectionWithTokens(ctx.db, connectionUuid);
    if (!found) throw new ConnectionUnusableError(connectionUuid, 'the connection was removed');
    const { connection, tokens } = found;
    if (connection.status !== 'connected') throw new ConnectionUnusableError(connectionUuid, connection.lastError ?? `the connection is ${connection.status}`);
    const now = ctx.now();
    if (!areTokensReadable(ctx.secretKey, tokens)) {
      // Sealed with a key this server no longer has: unusable until the host connects again, and said so once.
      const unreadable = unreadableTokensError(ctx.integrations.oauth[connection.provider].label);
      await failConnection(ctx, connection, unreadable.message, 'unreadable');
      throw new ConnectionUnusableError(connectionUuid, unreadable.message);
    }
    // An access token no key opens is refreshed like an expired one (its refresh token opens: checked above).
    const current = tokens.accessTokenSealed === null || !canOpenSecret(ctx.secretKey, tokens.accessTokenSealed) ? null : openSecret(ctx.secretKey, tokens.accessTokenSealed);
    const fresh = tokens.accessExpiresAt === null || tokens.accessExpiresAt - now > TOKEN_REFRESH_MARGIN_MS;
    if (current !== null && fresh && current !== rejected) return current;
    const claim = newId(now);
    // Claimed only if the tokens are still the ones read here: another refresh may have ended since.
    if (await claimTokenRefresh(ctx.db, connectionUuid, claim, tokens.accessTokenSealed, now, REFRESH_LEASE_MS)) {
      return refreshHeld(ctx, connection, tokens.refreshTokenSealed, claim);
    }
    // Another instance is refreshing it, or has just done so: its result is read on the next round.
    if (Date.now() > deadline) throw new ProviderError(`the ${connection.provider} tokens are being refreshed elsewhere; try again`, true);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Refresh tokens lapse unused: Zoom's after 90 days, Webex's after 90 (its
 * `refresh_token_expires_in`), Microsoft's after 90 days inactive (AADSTS700082), Google's after
 * six months. A host who books nothing for three months would find the connection refused at
 * the next booking, its room never made. So every connected connection whose tokens were last
 * stored IDLE_REFRESH_AFTER_MS ago is refreshed now, up to `limit` a run, the longest idle
 * first, under the same claim as any refresh (one instance does it; one that finds it claimed
 * leaves it). A refusal marks the connection as any refresh's would (the host is told); a
 * transient fault leaves it to the next run. An unexpected error is thrown once the others are
 * done. `stopped` (the process shutting down) starts no more.
 */
export async function refreshIdleConnections(
  ctx: TokenContext,
  options: { limit?: number; stopped?: () => boolean } = {},
): Promise<{ refreshed: number; refused: number; failed: number }> {
  const now = ctx.now();
  const outcome = { refreshed: 0, refused: 0, failed: 0 };
  let unexpected: unknown = null;
  for (const connectionUuid of await findIdleConnections(ctx.db, now - IDLE_REFRESH_AFTER_MS, now, options.limit ?? 10)) {
    if (options.stopped?.()) break;
    try {
      if (await refreshIdleConnection(ctx, connectionUuid)) outcome.refreshed += 1;
    } catch (error) {
      if (error instanceof ConnectionUnusableError) outcome.refused += 1;
      else {
        outcome.failed += 1;
        if (!(error instanceof ProviderError)) unexpected ??= error;
      }
    }
  }
  if (unexpected !== null) throw unexpected;
  return outcome;
}

/** One connection's tokens refreshed now, unless it is no longer connected or its refresh is claimed (false). */
async function refreshIdleConnection(ctx: TokenContext, connectionUuid: string): Promise<boolean> {
  const found = await findConnectionWithTokens(ctx.db, connectionUuid);
  if (found?.connection.status !== 'connected') return false;
  const now = ctx.now();
  const claim = newId(now);
  if (!(await claimTokenRefresh(ctx.db, connectionUuid, claim, found.tokens.accessTokenSealed, now, REFRESH_LEASE_MS))) return false;
  await refreshHeld(ctx, found.connection, found.tokens.refreshTokenSealed, claim);
  return true;
}

async function refreshHeld(ctx: TokenContext, connection: Connection, refreshTokenSealed: string | null, claim: string): Promise<string> {
  const adapter = ctx.integrations.oauth[connection.provider];
  try {
    const app = await openIntegrationApp(ctx, ctx.db, connection.accountUuid, connection.provider);
    if (app === null) throw new GrantRefusedError(`the account's ${adapter.label} app is no longer configured`);
    if (refreshTokenSealed === null) throw new GrantRefusedError(`${adapter.label} gave no refresh token`);
    const now = ctx.now();
    const tokens = await refreshTokens(adapter.authorizationServer(app), app, openSecret(ctx.secretKey, refreshTokenSealed), now);
    const stored = await storeRefreshedTokens(
      ctx.db,
      connection.uuid,
      claim,
      {
        accessTokenSealed: sealSecret(ctx.secretKey, tokens.accessToken),
        // Google keeps the refresh token it gave; Zoom rotates it on every refresh.
        refreshTokenSealed: tokens.refreshToken === null ? refreshTokenSealed : sealSecret(ctx.secretKey, tokens.refreshToken),
        accessExpiresAt: tokens.expiresAt,
      },
      ctx.now(),
    );
    if (!stored) throw new ProviderError(`the ${connection.provider} refresh outlived its lease; try again`, true);
    return tokens.accessToken;
  } catch (error) {
    if (error instanceof GrantRefusedError) {
      await failConnection(
        ctx,
        connection,
        `${adapter.label} refused the connection: ${error.reason}. ${whatToDoAfter(error.refusal, adapter.label, connection.provider)}`,
        error.refusal,
      );
      throw new ConnectionUnusableError(connection.uuid, error.reason);
    }
    if (error instanceof SecretUnreadableError) {
      // The app's secret or the refresh token: no retry can open them; the host (or an admin) must act.
      await failConnection(ctx, connection, error.message, 'unreadable');
      throw new ConnectionUnusableError(connection.uuid, error.message);
    }
    await releaseTokenRefresh(ctx.db, connection.uuid, claim).catch(() => undefined);
    throw error;
  }
}

/**
 * What the host, or an admin, must do after the provider refused for good, for the connection's
 * `lastError` and the callback page: `whatToDoAfter('app-credentials', 'Microsoft', 'microsoft')`
 * → "… an admin must enter the app's client id and secret again (PATCH /api/v1/account, integrations.microsoft), then connect it again."
 */
export function whatToDoAfter(refusal: GrantRefusal, label: string, provider: IntegrationProvider): string {
  switch (refusal) {
    case 'grant':
      return 'Connect it again.';
    case 'sign-in':
      return `${label} asks you to sign in again (multi-factor authentication, or an access policy of your organisation): connect it again.`;
    case 'consent':
      return `${label} needs consent to termin's permissions again, perhaps from an admin of your organisation: connect it again.`;
    case 'app-credentials':
      return `${label} refused the account's ${label} app itself (its client secret expired, was replaced or is wrong): an admin must enter the app's client id and secret again (PATCH /api/v1/account, integrations.${provider}), then connect it again.`;
    case 'scope':
      return `${label} refused the permissions termin asks for: an admin must check the permissions (scopes) of the account's ${label} app, then connect it again.`;
  }
}

/** Why a connection stopped working, as its member is told: a refusal of the provider's, or tokens this server cannot open. */
export type StopCause = GrantRefusal | 'permission' | 'unreadable';

/** The "connection stopped working" e-mail's words in each language (locales/<lang>/notices.json, `connectionStopped`). */
const STOPPED_STRINGS = buildForEachLang('notices', (t) => ({
  greeting: (name: string) => t('greeting', { name }),
  subject: (label: string) => t('connectionStopped.subject', { label }),
  account: (label: string, email: string | null) => (email === null ? t('connectionStopped.account', { label }) : t('connectionStopped.accountWithEmail', { label, email })),
  lead: (account: string, reason: string) => t('connectionStopped.lead', { account, reason }),
  /** Every cause named here: a new refusal without its words does not compile. */
  why: {
    grant: (label: string) => t('connectionStopped.why.grant', { label }),
    'sign-in': (label: string) => t('connectionStopped.why.sign-in', { label }),
    consent: (label: string) => t('connectionStopped.why.consent', { label }),
    'app-credentials': (label: string) => t('connectionStopped.why.app-credentials', { label }),
    scope: (label: string) => t('connectionStopped.why.scope', { label }),
    permission: (label: string) => t('connectionStopped.why.permission', { label }),
    unreadable: (label: string) => t('connectionStopped.why.unreadable', { label }),
  } satisfies Record<StopCause, (label: string) => string>,
  places: (place: string, label: string) => t('connectionStopped.places', { place, label }),
  how: (request: string, body: string) => t('connectionStopped.how', { request, body }),
  follow: t('connectionStopped.follow'),
}));

/**
 * `error` with its reason, once: the host is e-mailed and `connection.error` goes to the
 * webhooks, in one transaction. The e-mail is in the host's language: English gives the
 * reason as recorded (the provider's own words included); another language says what the
 * `cause` asks of them, as the recorded reason is English.
 */
async function failConnection(ctx: TokenContext, connection: Connection, reason: string, cause: StopCause): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const now = ctx.now();
    if (!(await markConnectionFailed(trx, connection.uuid, reason, now))) return;
    const failed: Connection = { ...connection, status: 'error', lastError: reason };
    await recordEvents(trx, [{ accountUuid: connection.accountUuid, type: 'connection.error', subjectUuid: connection.uuid, data: { connection: failed } }], now);
    const host = await findUserAcrossAccounts(trx, connection.userUuid);
    if (!host || host.deactivatedAt !== null) return;
    const label = ctx.integrations.oauth[connection.provider].label;
    const lang = host.language ?? 'en';
    const s = STOPPED_STRINGS[lang];
    const notice: NoticeMessagePayload = {
      notice: true,
      to: { name: `${host.firstName} ${host.lastName}`, email: host.email },
      lang,
      subject: s.subject(label),
      text: [
        s.greeting(host.firstName),
        '',
        s.lead(s.account(label, connection.accountEmail || null), lang === 'en' ? reason : s.why[cause](label)),
        s.places(PROVIDER_PLACES[connection.provider], label),
        s.how(`POST ${ctx.publicUrl}/api/v1/users/${host.uuid}/connections`, `{"provider": "${connection.provider}"}`),
        s.follow,
      ].join('\n'),
    };
    await enqueueJobs(trx, [{ uuid: newId(now), kind: EMAIL_JOB_KIND, payload: notice }], now);
  });
}
