import * as oauth from 'oauth4webapi';
import type { ProviderEndpoints } from '../config.js';
import { isRetryableStatus, parseJson, parseRetryAfter, readBounded, VendorCallError } from '../net/vendor-http.js';
import type { ProviderClient } from './http.js';
import type { AuthorizationServer, OAuthApp, OAuthProvider } from './ports.js';
import { ProviderError } from './ports.js';

/**
 * OAuth 2.0 authorization code with PKCE (RFC 6749, RFC 7636) through `oauth4webapi`, the
 * same for every provider: the adapter says where the authorization server is and what to
 * ask for. Calls are bounded by `timeoutMs`; the authorization server's URLs are the
 * operator's (configured, never a user's), so plain http is allowed for a local stand-in.
 */

export const DEFAULT_OAUTH_TIMEOUT_MS = 10_000;
/** A token endpoint's answer holds a few tokens of a few kilobytes each: anything past this is refused unread. */
const MAX_TOKEN_ANSWER_BYTES = 256 * 1024;

export interface TokenSet {
  accessToken: string;
  /** Null when the provider gave none (the previous one stays valid where refresh tokens are not rotated). */
  refreshToken: string | null;
  /** When the access token stops working, or null when the provider did not say. */
  expiresAt: number | null;
  /** The scopes the answer says were granted, or null when it names none (then they are the ones asked for, RFC 6749 §5.1). */
  grantedScopes: readonly string[] | null;
}

/**
 * What a final refusal of the token endpoint asks for, by its RFC 6749 §5.2 (and OpenID
 * Connect) error: `grant`, the grant was revoked or expired (`invalid_grant`,
 * `unauthorized_client`, `access_denied`): the host connects again; `sign-in`, the host must
 * sign in again (Microsoft's `interaction_required`: multi-factor authentication or a
 * conditional access policy); `consent`, consent must be given again (`consent_required`,
 * perhaps by the organisation's admin); `app-credentials`, the app's own credentials are
 * refused (`invalid_client`: its client secret expired, was rotated or is wrong): an admin enters
 * them again; `scope`, the provider refuses the scopes termin asks for (`invalid_scope`): an admin
 * checks the app's permissions.
 */
export type GrantRefusal = 'grant' | 'sign-in' | 'consent' | 'app-credentials' | 'scope';

const REFUSALS: Readonly<Record<string, GrantRefusal>> = {
  invalid_grant: 'grant',
  unauthorized_client: 'grant',
  access_denied: 'grant',
  interaction_required: 'sign-in',
  login_required: 'sign-in',
  consent_required: 'consent',
  invalid_client: 'app-credentials',
  invalid_scope: 'scope',
};

/** The provider refused for good (see GrantRefusal): trying again cannot help, only the host or an admin can. */
export class GrantRefusedError extends Error {
  constructor(
    readonly reason: string,
    readonly refusal: GrantRefusal = 'grant',
  ) {
    super(reason);
    this.name = 'GrantRefusedError';
  }
}

/**
 * A provider whose authorization server is at the operator's configured URLs for every app
 * (all but Microsoft, whose URLs name the app's tenant): `server` says the rest, and the
 * account's e-mail is read with `fetchAccountEmail` through the provider's API client.
 */
export function createOAuthProvider(
  api: ProviderClient,
  urls: ProviderEndpoints,
  server: Omit<AuthorizationServer, 'authorizeUrl' | 'tokenUrl'>,
  fetchAccountEmail: (accessToken: string) => Promise<string | null>,
): OAuthProvider {
  return {
    label: api.label,
    scopes: server.scopes,
    authorizationServer: () => ({ authorizeUrl: urls.authorize, tokenUrl: urls.token, ...server }),
    fetchAccountEmail,
  };
}

/** The authorization request a host's browser is sent to: `response_type=code`, the app, the scopes, `state` and PKCE (S256). */
export function buildAuthorizeUrl(server: AuthorizationServer, app: OAuthApp, redirectUri: string, state: string, codeChallenge: string): string {
  const url = new URL(server.authorizeUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', app.clientId);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('scope', server.scopes.join(' '));
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', codeChallenge);
  url.searchParams.set('code_challenge_method', 'S256');
  for (const [name, value] of Object.entries(server.authorizeParams ?? {})) url.searchParams.set(name, value);
  return url.href;
}

/** A fresh PKCE verifier and its S256 challenge. */
export async function createPkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = oauth.generateRandomCodeVerifier();
  return { verifier, challenge: await oauth.calculatePKCECodeChallenge(verifier) };
}

function serverOf(server: AuthorizationServer): oauth.AuthorizationServer {
  return {
    issuer: server.issuer ?? new URL(server.tokenUrl).origin,
    authorization_endpoint: server.authorizeUrl,
    token_endpoint: server.tokenUrl,
    ...(server.revokeUrl === null ? {} : { revocation_endpoint: server.revokeUrl }),
  };
}

function clientAuthOf(server: AuthorizationServer, app: OAuthApp): oauth.ClientAuth {
  if (server.clientAuthentication === 'basic-raw') return rawClientSecretBasic(app.clientSecret);
  return server.clientAuthentication === 'basic' ? oauth.ClientSecretBasic(app.clientSecret) : oauth.ClientSecretPost(app.clientSecret);
}

/**
 * HTTP Basic over the client id and secret as they are: `Basic base64(client_id:client_secret)`,
 * as Zoom documents it ("OAuth for user apps", request an access token). oauth4webapi's
 * ClientSecretBasic form-urlencodes both first, as RFC 6749 §2.3.1 says, which turns the `_` and
 * `-` of Zoom's client ids and secrets into `%5F` and `%2D`: Zoom then refuses the app (`invalid_client`).
 */
function rawClientSecretBasic(clientSecret: string): oauth.ClientAuth {
  return (_as, client, _body, headers) => {
    headers.set('authorization', `Basic ${Buffer.from(`${client.client_id}:${clientSecret}`, 'utf8').toString('base64')}`);
  };
}

function optionsOf(server: AuthorizationServer, timeoutMs: number, now: number) {
  return {
    signal: () => AbortSignal.timeout(timeoutMs),
    [oauth.allowInsecureRequests]: new URL(server.tokenUrl).protocol === 'http:',
    [oauth.customFetch]: (url: string, options: oauth.CustomFetchOptions<string, unknown>) => boundedFetch(url, options, now, server.tokenErrorOf),
  };
}

/**
 * fetch, with the answer read here up to MAX_TOKEN_ANSWER_BYTES by the vendor client's bounded
 * read: oauth4webapi would read any size. A rate limit or an outage (429, 5xx, 408) is a
 * retryable ProviderError here, with the provider's `Retry-After`, whatever its body: there is
 * no token answer in it to process, and the caller paces its next try by it.
 */
async function boundedFetch(url: string, options: oauth.CustomFetchOptions<string, unknown>, now: number, tokenErrorOf?: AuthorizationServer['tokenErrorOf']): Promise<Response> {
  const response = await fetch(url, options as RequestInit);
  let text: string;
  try {
    text = await readBounded(response, MAX_TOKEN_ANSWER_BYTES);
  } catch (error) {
    if (!(error instanceof VendorCallError)) throw error;
    throw new ProviderError(`${new URL(url).host} answered: ${error.message}`, error.retryable, error.status);
  }
  if (isRetryableStatus(response.status)) {
    const named = errorCodeOf(parseJson(text));
    throw new ProviderError(
      `${new URL(url).host} answered HTTP ${response.status}${named === null ? '' : ` ${named}`}`,
      true,
      response.status,
      parseRetryAfter(response.headers.get('retry-after'), now),
    );
  }
  const body = withoutIdToken(text);
  if (tokenErrorOf !== undefined && response.status >= 400) {
    const standard = tokenErrorOf(response.status, parseJson(body));
    if (standard !== null)
      return new Response(JSON.stringify(standard), { status: response.status, statusText: response.statusText, headers: { 'content-type': 'application/json' } });
  }
  return new Response(response.status === 204 || response.status === 304 ? null : body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** An OAuth error answer's `error` code, to name in a message (only a plain code: never anything else of the body). */
function errorCodeOf(body: unknown): string | null {
  const error = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).error : undefined;
  return typeof error === 'string' && /^[a-z_]{1,64}$/.test(error) ? error : null;
}

/**
 * A token answer without its `id_token`: termin asks for `openid email` only to read the
 * account's e-mail from the userinfo endpoint and never uses the ID token, whose issuer
 * differs by provider and form (Google's `accounts.google.com` with or without `https://`,
 * Microsoft's per tenant); validating it could only refuse a working connection.
 */
function withoutIdToken(body: string): string {
  if (!body.includes('"id_token"')) return body;
  try {
    const parsed = JSON.parse(body) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return body;
    const { id_token: _idToken, ...rest } = parsed as Record<string, unknown>;
    return JSON.stringify(rest);
  } catch {
    return body;
  }
}

function tokenSetOf(response: oauth.TokenEndpointResponse, now: number): TokenSet {
  return {
    accessToken: response.access_token,
    refreshToken: response.refresh_token ?? null,
    expiresAt: typeof response.expires_in === 'number' ? now + response.expires_in * 1000 : null,
    grantedScopes: typeof response.scope === 'string' ? response.scope.split(/\s+/).filter((scope) => scope !== '') : null,
  };
}

/**
 * The scopes termin needs (`requiredScopes`) that a token answer did not grant, with what the
 * consent screen calls them; none when the answer names no scope or the provider's are not checked.
 * `missingScopes(google, ['openid', 'https://www.googleapis.com/auth/userinfo.email'])` →
 * `[{ scope: 'https://www.googleapis.com/auth/calendar.events', name: 'View and edit events on all your calendars' }]`.
 */
export function missingScopes(server: AuthorizationServer, granted: readonly string[] | null): { scope: string; name: string }[] {
  if (granted === null || server.requiredScopes === undefined) return [];
  const key = server.scopeKey ?? ((scope: string) => scope);
  const given = new Set(granted.map(key));
  return Object.entries(server.requiredScopes)
    .filter(([scope]) => !given.has(key(scope)))
    .map(([scope, name]) => ({ scope, name }));
}

/**
 * The callback's `code` exchanged for tokens. `callback` holds the query the provider sent
 * back (`code`, `state`, maybe `iss`); `state` was checked by the caller already. Throws
 * GrantRefusedError when the provider refuses the code, ProviderError when it cannot be
 * reached or answers nonsense.
 */
export async function exchangeCode(
  server: AuthorizationServer,
  app: OAuthApp,
  redirectUri: string,
  callback: URLSearchParams,
  state: string,
  codeVerifier: string,
  now: number,
  timeoutMs = DEFAULT_OAUTH_TIMEOUT_MS,
): Promise<TokenSet> {
  const as = serverOf(server);
  const client: oauth.Client = { client_id: app.clientId };
  return withOAuthErrors(server, async () => {
    const parameters = oauth.validateAuthResponse(as, client, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuthOf(server, app), parameters, redirectUri, codeVerifier, optionsOf(server, timeoutMs, now));
    return tokenSetOf(await oauth.processAuthorizationCodeResponse(as, client, response), now);
  });
}

/** New tokens for a refresh token (a provider that rotates it answers a new one: keep that). */
export async function refreshTokens(server: AuthorizationServer, app: OAuthApp, refreshToken: string, now: number, timeoutMs = DEFAULT_OAUTH_TIMEOUT_MS): Promise<TokenSet> {
  const as = serverOf(server);
  const client: oauth.Client = { client_id: app.clientId };
  return withOAuthErrors(server, async () => {
    const response = await oauth.refreshTokenGrantRequest(as, client, clientAuthOf(server, app), refreshToken, {
      ...optionsOf(server, timeoutMs, now),
      ...(server.refreshParams === undefined ? {} : { additionalParameters: server.refreshParams }),
    });
    return tokenSetOf(await oauth.processRefreshTokenResponse(as, client, response), now);
  });
}

/** Asks the provider to forget a token (a host disconnecting); best effort, where it offers it. */
export async function revokeToken(server: AuthorizationServer, app: OAuthApp, token: string, timeoutMs = DEFAULT_OAUTH_TIMEOUT_MS): Promise<void> {
  if (server.revokeUrl === null) return;
  const as = serverOf(server);
  const client: oauth.Client = { client_id: app.clientId };
  await withOAuthErrors(server, async () => {
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuthOf(server, app), token, optionsOf(server, timeoutMs, Date.now())));
  });
}

/** The library's errors as the ones the use cases act on; never a token in a message. */
async function withOAuthErrors<T>(server: AuthorizationServer, call: () => Promise<T>): Promise<T> {
  const where = new URL(server.tokenUrl).host;
  try {
    return await call();
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError) {
      const refusal = REFUSALS[error.error];
      if (refusal === 'grant') throw new GrantRefusedError(`${where} refused the grant (${error.error}${error.error_description ? `: ${oneLine(error.error_description)}` : ''})`);
      if (refusal !== undefined) {
        throw new GrantRefusedError(`${where} answered ${error.error}${error.error_description ? `: ${oneLine(error.error_description)}` : ''}`, refusal);
      }
      throw new ProviderError(
        `${where} answered ${error.status} ${error.error}${error.error_description ? `: ${oneLine(error.error_description)}` : ''}`,
        error.status >= 500 || error.status === 429,
        error.status,
      );
    }
    if (error instanceof oauth.AuthorizationResponseError) {
      throw new GrantRefusedError(`the authorization was refused (${error.error}${error.error_description ? `: ${oneLine(error.error_description)}` : ''})`);
    }
    // A 401 with a challenge (RFC 6749 §5.2: the client authenticated by HTTP Basic and was refused): the app's credentials.
    if (error instanceof oauth.WWWAuthenticateChallengeError) throw new GrantRefusedError(`${where} answered invalid_client (HTTP ${error.status})`, 'app-credentials');
    if (error instanceof oauth.OperationProcessingError || error instanceof TypeError) {
      throw new ProviderError(`${where} gave an answer that is not a valid OAuth response (${oneLine(error.message)})`, true);
    }
    if (error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError')) throw new ProviderError(`${where} did not answer in time`, true);
    throw error;
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').slice(0, 200);
}
