import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A provider's OAuth 2.0 authorization server and API, played locally as RFC 6749 and RFC
 * 7636 (PKCE) describe them and the providers document them: the authorization endpoint
 * (the host "consents" at once and is redirected back with a code), the token endpoint
 * (client authentication, the code bound to its redirect URI and PKCE challenge and usable
 * once; refresh tokens, rotated or not), revocation, and bearer-token checks for the API
 * (401 for an unknown, expired or revoked token). Each provider's stand-in (zoom.ts, …) adds
 * its API routes on top.
 */

export interface OAuthProviderOptions {
  clientId: string;
  clientSecret: string;
  /**
   * How the client must authenticate at the token endpoint: HTTP Basic over the form-urlencoded
   * id and secret (RFC 6749 §2.3.1), HTTP Basic over the raw id and secret (Zoom), or in the form body.
   */
  clientAuthentication: 'basic' | 'basic-raw' | 'post';
  /** A new refresh token on every refresh, the old one refused from then on (Zoom); or the same one kept (Google). */
  rotateRefreshTokens: boolean;
  accessTokenSeconds: number;
  /** The e-mail of the account that consents. */
  accountEmail: string;
  /** The provider's clock (the test's), for token expiry. */
  now: () => number;
  /** Without rotation, the refresh answer still carries the refresh token, the same one again (Webex); otherwise none (Google). */
  repeatRefreshToken?: boolean;
  /** More fields of every token answer (Webex's `refresh_token_expires_in`). */
  tokenFields?: Readonly<Record<string, unknown>>;
  /** The provider's own error body, for the API's errors and the token endpoint's (`oauthError` set there); unset, Zoom's `{ code, message }` and RFC 6749's. */
  errorBody?: (status: number, message: string, oauthError?: string) => unknown;
  /** `token_type` as the provider spells it (Google: `Bearer`); `bearer` by default. */
  tokenType?: string;
  /** Sent back as `iss` with the code (RFC 9207), and the issuer of the ID token, where the provider does so (Google). */
  issuer?: string;
  /** Token answers carry an OpenID Connect `id_token` (Google, for `openid`/`email` scopes). */
  idToken?: boolean;
  /** The ID token's `iss`, where it differs from `issuer` (Google documents both `accounts.google.com` and `https://accounts.google.com`). */
  idTokenIssuer?: string;
  /** A refresh token only when the authorization request had `access_type=offline` (Google); always otherwise. */
  refreshTokenOnlyOffline?: boolean;
  /** The provider's `error_description` for a refused code or refresh token. */
  invalidGrantDescription?: string;
  /** The API's answer to a missing, expired or revoked access token (the provider's error shape); Zoom's by default. */
  unauthorizedBody?: unknown;
  /** The API's error body for a failure of `failNextApiCalls`; Zoom's by default. */
  failureBody?: (status: number) => unknown;
  /**
   * The `scope` of a token answer, from the scopes the host granted: them as asked by default
   * (Zoom), the provider's own names for some (Google answers `email` as `…/auth/userinfo.email`),
   * or null for a provider whose token answer carries none (Webex).
   */
  answerScope?: ((granted: readonly string[]) => string) | null;
  /** A refresh token unused for this many days is refused (`invalid_grant`): Zoom's and Webex's after 90, Google's after six months. */
  refreshTokenIdleDays?: number;
}

/**
 * What a token endpoint refuses a code or a refresh with, for good: RFC 6749 §5.2's
 * `invalid_client` (the app's secret expired or is wrong) and `invalid_scope`, and the
 * identity platform's `interaction_required` (multi-factor authentication, conditional access)
 * and `consent_required`, which Microsoft answers at the token endpoint too.
 */
export type TokenRefusal = 'invalid_client' | 'invalid_scope' | 'interaction_required' | 'consent_required';

/** The HTTP status and RFC 6749 description of each refusal (`invalid_client` is 401: the client authenticated by HTTP Basic or in the body). */
export const TOKEN_REFUSALS: Readonly<Record<TokenRefusal, { status: number; description: string }>> = {
  invalid_client: { status: 401, description: 'Client authentication failed: the client secret has expired' },
  invalid_scope: { status: 400, description: 'The requested scope is invalid, unknown, or malformed' },
  interaction_required: { status: 400, description: 'The request requires user interaction: an additional authentication step is required' },
  consent_required: { status: 400, description: 'The request requires user consent' },
};

export interface ApiRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  /** The grant the bearer token belongs to. */
  grant: Grant;
}

export interface ApiReply {
  status: number;
  body?: unknown;
}

export interface Grant {
  id: number;
  accountEmail: string;
  revoked: boolean;
  /** What the host granted at the consent: the scopes asked for, but those they unticked. */
  scopes: string[];
}

export interface TokenCall {
  grantType: string;
  ok: boolean;
}

export interface OAuthProvider {
  baseUrl: string;
  /** Every call to the token endpoint, in order. */
  tokenCalls: TokenCall[];
  /** Every API call (method and path), in order. */
  apiCalls: { method: string; path: string; body: unknown }[];
  /** Refuses every token and refresh of every grant from now on (the host revoked the app at the provider). */
  revokeAllGrants(): void;
  /** Makes every access token issued so far expired. */
  expireAccessTokens(): void;
  /**
   * The next `count` API calls answer `status` (a provider outage), with `headers` where the
   * provider sends some (a 429's or 503's `Retry-After`, RFC 9110 §10.2.3: seconds or a date).
   */
  failNextApiCalls(count: number, status: number, headers?: Readonly<Record<string, string>>): void;
  /** The next `count` API calls are carried out, but their answers are lost (the connection drops). */
  dropNextApiAnswers(count: number): void;
  /** Holds token refreshes until `release` is called (to overlap two instances' refreshes); `waiting`: how many are held now. */
  holdRefreshes(): RefreshGate;
  /** Every revocation request, and whether it named a token of a grant (which is then refused). */
  revocations: { revoked: boolean }[];
  /** Every access and refresh token handed out, to look for in responses and logs. */
  issuedTokens: string[];
  /** The token endpoint answers this instead, until set back to null (a broken or hostile provider). */
  answerTokenEndpointWith(raw: { status: number; contentType: string; body: string } | null): void;
  /** The next `count` token requests (codes and refreshes) are refused with `error`, in the provider's own error shape. */
  refuseNextTokenCalls(count: number, error: TokenRefusal): void;
  /** The next `count` token requests answer 429 with `Retry-After: retryAfterSeconds` (the provider's rate limit). */
  throttleNextTokenCalls(count: number, retryAfterSeconds: number): void;
  /**
   * The host unticks these scopes on the consent screen from now on (Google's granular consent;
   * [] for none): the token answers grant the rest, and their `scope` says so.
   */
  withholdScopes(scopes: readonly string[]): void;
  close(): Promise<void>;
}

export interface RefreshGate {
  /** Refresh requests that reached the token endpoint and wait for `release`. */
  readonly waiting: number;
  release(): void;
}

interface CodeRecord {
  redirectUri: string;
  challenge: string;
  grant: Grant;
  offline: boolean;
}

interface TokenRecord {
  grant: Grant;
  expiresAt: number;
}

export async function startOAuthProvider(
  options: OAuthProviderOptions,
  paths: { authorize: string; token: string; revoke: string },
  api: (request: ApiRequest) => ApiReply | Promise<ApiReply>,
): Promise<OAuthProvider> {
  const codes = new Map<string, CodeRecord>();
  const accessTokens = new Map<string, TokenRecord>();
  /** Each refresh token's grant, and when it was issued or last used. */
  const refreshTokens = new Map<string, { grant: Grant; usedAt: number }>();
  const tokenCalls: TokenCall[] = [];
  const apiCalls: OAuthProvider['apiCalls'] = [];
  const grants: Grant[] = [];
  let failures: { count: number; status: number; headers?: Readonly<Record<string, string>> | undefined } = { count: 0, status: 500 };
  let drops = 0;
  let held: Promise<void> | null = null;
  let waiting = 0;
  let tokenOverride: { status: number; contentType: string; body: string } | null = null;
  let tokenRefusals: { count: number; error: TokenRefusal } = { count: 0, error: 'invalid_client' };
  let tokenThrottle = { count: 0, retryAfterSeconds: 0 };
  let withheldScopes: readonly string[] = [];
  const issuedTokens: string[] = [];
  const revocations: { revoked: boolean }[] = [];
  const token = (prefix: string) => {
    const value = `${prefix}_${randomBytes(18).toString('base64url')}`;
    if (prefix !== 'code') issuedTokens.push(value);
    return value;
  };

  const issue = (grant: Grant, refresh: string | null) => {
    const access = token('at');
    accessTokens.set(access, { grant, expiresAt: options.now() + options.accessTokenSeconds * 1000 });
    const body: Record<string, unknown> = {
      access_token: access,
      token_type: options.tokenType ?? 'bearer',
      expires_in: options.accessTokenSeconds,
      ...options.tokenFields,
    };
    if (options.answerScope !== null) body.scope = (options.answerScope ?? ((granted) => granted.join(' ')))(grant.scopes);
    if (refresh !== null) body.refresh_token = refresh;
    if (options.idToken) body.id_token = idTokenOf(grant);
    return body;
  };

  // Signed by no one: termin does not use the ID token, and a client that checks its claims still can.
  const idTokenOf = (grant: Grant) => {
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const iat = Math.floor(options.now() / 1000);
    const claims = {
      iss: options.idTokenIssuer ?? options.issuer,
      aud: options.clientId,
      azp: options.clientId,
      sub: `1${String(grant.id).padStart(20, '0')}`,
      email: grant.accountEmail,
      email_verified: true,
      iat,
      exp: iat + 3600,
    };
    return `${part({ alg: 'RS256', kid: 'fake', typ: 'JWT' })}.${part(claims)}.${randomBytes(32).toString('base64url')}`;
  };

  const clientAuthenticated = (req: http.IncomingMessage, form: URLSearchParams): boolean => {
    if (options.clientAuthentication === 'basic-raw') {
      // Zoom ("OAuth for user apps"): `Basic base64(client_id:client_secret)` of the values as they are;
      // the RFC's form-urlencoded `%2D`, `%5F`… is another id and secret there.
      return req.headers.authorization === `Basic ${Buffer.from(`${options.clientId}:${options.clientSecret}`, 'utf8').toString('base64')}`;
    }
    if (options.clientAuthentication === 'basic') {
      // RFC 6749 §2.3.1: the id and secret are form-urlencoded before they are joined and base64-encoded.
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (basic === undefined) return false;
      const decoded = Buffer.from(basic, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      const formDecode = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
      return colon > 0 && formDecode(decoded.slice(0, colon)) === options.clientId && formDecode(decoded.slice(colon + 1)) === options.clientSecret;
    }
    return form.get('client_id') === options.clientId && form.get('client_secret') === options.clientSecret;
  };

  const oauthError = (res: http.ServerResponse, status: number, error: string, description: string, headers: Record<string, string> = {}) =>
    res
      .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers })
      .end(JSON.stringify(options.errorBody?.(status, description, error) ?? { error, error_description: description }));

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://localhost');
        const raw = Buffer.concat(chunks).toString('utf8');
        if (req.method === 'GET' && url.pathname === paths.authorize) {
          const q = url.searchParams;
          if (
            q.get('client_id') !== options.clientId ||
            q.get('response_type') !== 'code' ||
            q.get('code_challenge_method') !== 'S256' ||
            !q.get('code_challenge') ||
            !q.get('redirect_uri')
          ) {
            res.writeHead(400, { 'content-type': 'text/plain' }).end('invalid authorization request');
            return;
          }
          const asked = (q.get('scope') ?? '').split(' ').filter((scope) => scope !== '');
          const grant: Grant = { id: grants.length + 1, accountEmail: options.accountEmail, revoked: false, scopes: asked.filter((scope) => !withheldScopes.includes(scope)) };
          grants.push(grant);
          const code = token('code');
          codes.set(code, { redirectUri: q.get('redirect_uri')!, challenge: q.get('code_challenge')!, grant, offline: q.get('access_type') === 'offline' });
          const back = new URL(q.get('redirect_uri')!);
          back.searchParams.set('code', code);
          back.searchParams.set('state', q.get('state') ?? '');
          if (options.issuer !== undefined) back.searchParams.set('iss', options.issuer);
          res.writeHead(302, { location: back.href }).end();
          return;
        }
        if (req.method === 'POST' && url.pathname === paths.token) {
          const form = new URLSearchParams(raw);
          const grantType = form.get('grant_type') ?? '';
          const record = (ok: boolean) => tokenCalls.push({ grantType, ok });
          if (tokenOverride) {
            record(false);
            res.writeHead(tokenOverride.status, { 'content-type': tokenOverride.contentType }).end(tokenOverride.body);
            return;
          }
          if (tokenThrottle.count > 0) {
            tokenThrottle = { ...tokenThrottle, count: tokenThrottle.count - 1 };
            record(false);
            oauthError(res, 429, 'temporarily_unavailable', 'Too many requests: try again later', { 'retry-after': String(tokenThrottle.retryAfterSeconds) });
            return;
          }
          if (tokenRefusals.count > 0) {
            tokenRefusals = { ...tokenRefusals, count: tokenRefusals.count - 1 };
            record(false);
            oauthError(res, TOKEN_REFUSALS[tokenRefusals.error].status, tokenRefusals.error, TOKEN_REFUSALS[tokenRefusals.error].description);
            return;
          }
          if (!clientAuthenticated(req, form)) {
            record(false);
            oauthError(res, 401, 'invalid_client', 'Client authentication failed');
            return;
          }
          if (grantType === 'authorization_code') {
            const code = codes.get(form.get('code') ?? '');
            codes.delete(form.get('code') ?? '');
            const verifier = form.get('code_verifier') ?? '';
            const challenge = createHash('sha256').update(verifier).digest('base64url');
            if (!code || code.redirectUri !== form.get('redirect_uri') || code.challenge !== challenge || code.grant.revoked) {
              record(false);
              oauthError(res, 400, 'invalid_grant', options.invalidGrantDescription ?? 'Invalid authorization code');
              return;
            }
            const refresh = options.refreshTokenOnlyOffline && !code.offline ? null : token('rt');
            if (refresh !== null) refreshTokens.set(refresh, { grant: code.grant, usedAt: options.now() });
            record(true);
            res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(issue(code.grant, refresh)));
            return;
          }
          if (grantType === 'refresh_token') {
            if (held) {
              waiting += 1;
              await held;
              waiting -= 1;
            }
            const given = form.get('refresh_token') ?? '';
            const known = refreshTokens.get(given);
            const grant = known?.grant;
            const lapsed = known !== undefined && options.refreshTokenIdleDays !== undefined && options.now() - known.usedAt > options.refreshTokenIdleDays * 86_400_000;
            if (!grant || grant.revoked || lapsed) {
              record(false);
              oauthError(res, 400, 'invalid_grant', options.invalidGrantDescription ?? 'Invalid refresh token');
              return;
            }
            let refresh: string | null = options.repeatRefreshToken ? given : null;
            known.usedAt = options.now();
            if (options.rotateRefreshTokens) {
              refreshTokens.delete(given);
              refresh = token('rt');
              refreshTokens.set(refresh, { grant, usedAt: options.now() });
            }
            record(true);
            res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(issue(grant, refresh)));
            return;
          }
          record(false);
          oauthError(res, 400, 'unsupported_grant_type', grantType);
          return;
        }
        if (req.method === 'POST' && url.pathname === paths.revoke) {
          const form = new URLSearchParams(raw);
          const given = form.get('token') ?? '';
          const grant = refreshTokens.get(given)?.grant ?? accessTokens.get(given)?.grant;
          if (grant) grant.revoked = true;
          revocations.push({ revoked: grant !== undefined && clientAuthenticated(req, form) });
          res.writeHead(200).end();
          return;
        }
        // The API: a bearer token that is known, unexpired and not revoked.
        const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
        const access = accessTokens.get(bearer);
        let body: unknown;
        try {
          body = raw === '' ? undefined : JSON.parse(raw);
        } catch {
          body = raw;
        }
        apiCalls.push({ method: req.method ?? 'GET', path: url.pathname + url.search, body });
        if (!access || access.grant.revoked || access.expiresAt <= options.now()) {
          res
            .writeHead(401, { 'content-type': 'application/json' })
            .end(JSON.stringify(options.unauthorizedBody ?? options.errorBody?.(401, 'Invalid access token.') ?? { code: 124, message: 'Invalid access token.' }));
          return;
        }
        if (failures.count > 0) {
          failures = { ...failures, count: failures.count - 1 };
          res
            .writeHead(failures.status, { 'content-type': 'application/json', ...failures.headers })
            .end(JSON.stringify(options.failureBody?.(failures.status) ?? options.errorBody?.(failures.status, 'Internal error') ?? { code: 500, message: 'Internal error' }));
          return;
        }
        const reply = await api({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, body, grant: access.grant });
        if (drops > 0) {
          drops -= 1;
          res.socket?.destroy();
          return;
        }
        if (reply.body === undefined) res.writeHead(reply.status).end();
        else res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
      })().catch((error: unknown) => res.writeHead(500).end(String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    tokenCalls,
    apiCalls,
    issuedTokens,
    revocations,
    answerTokenEndpointWith(raw) {
      tokenOverride = raw;
    },
    refuseNextTokenCalls(count, error) {
      tokenRefusals = { count, error };
    },
    throttleNextTokenCalls(count, retryAfterSeconds) {
      tokenThrottle = { count, retryAfterSeconds };
    },
    withholdScopes(scopes) {
      withheldScopes = [...scopes];
    },
    revokeAllGrants() {
      for (const grant of grants) grant.revoked = true;
    },
    expireAccessTokens() {
      for (const record of accessTokens.values()) record.expiresAt = 0;
    },
    failNextApiCalls(count, status, headers) {
      failures = { count, status, headers };
    },
    dropNextApiAnswers(count) {
      drops = count;
    },
    holdRefreshes() {
      let release = (): void => undefined;
      held = new Promise<void>((resolve) => {
        release = () => {
          held = null;
          resolve();
        };
      });
      return {
        get waiting() {
          return waiting;
        },
        release,
      };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
