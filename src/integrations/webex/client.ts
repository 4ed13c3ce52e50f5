import type { ProviderEndpoints } from '../../config.js';
import type { VendorHttp } from '../../net/vendor-http.js';
import { createProviderClient, type ProviderClient, type RefusalReader, scopeRefusal } from '../http.js';
import { createOAuthProvider } from '../oauth.js';
import type { OAuthProvider } from '../ports.js';

/**
 * Webex's REST API (developer.webex.com) under the configured base URL, and how a host
 * connects it. OAuth: the app authenticates at the token endpoint with
 * `client_id`/`client_secret` in the form body, PKCE (S256) as "Login with Webex" documents
 * it; access tokens last 14 days and refresh tokens 90, the refresh token comes back with
 * every refresh (kept, whichever it is), and Webex offers no revocation endpoint.
 */
export function createWebexClient(urls: ProviderEndpoints, http: VendorHttp): ProviderClient {
  return createProviderClient(http, 'Webex', urls.api, readWebexRefusal);
}

/**
 * A 403 whose text says the access token "is missing required scopes" is the grant's fault,
 * final until the host connects again; any other 403 is the call's (final, for it alone).
 */
export const readWebexRefusal: RefusalReader = (operation, { status, body }) => {
  if (status !== 403) return null;
  const text = webexTextOf(body);
  return /missing required scopes/i.test(text) ? scopeRefusal('Webex', operation, status, text) : null;
};

/** The text of a Webex error body, `{ message, errors: [{ description }] }`, in one line. */
function webexTextOf(body: unknown): string {
  if (!isRecord(body)) return '';
  return [body.message, ...(Array.isArray(body.errors) ? body.errors.map((e) => (isRecord(e) ? e.description : undefined)) : [])]
    .filter((text): text is string => typeof text === 'string')
    .join(' ');
}

export function createWebexOAuth(urls: ProviderEndpoints, api: ProviderClient): OAuthProvider {
  return createOAuthProvider(
    api,
    urls,
    {
      scopes: ['spark:people_read', 'meeting:schedules_read', 'meeting:schedules_write'],
      revokeUrl: null,
      clientAuthentication: 'post',
      tokenErrorOf: webexTokenError,
    },
    async (accessToken) => {
      const answer = await api.call('read the person', { method: 'GET', path: '/v1/people/me', accessToken }, [200]);
      const emails = (answer.body as { emails?: unknown } | undefined)?.emails;
      return Array.isArray(emails) && typeof emails[0] === 'string' && emails[0] !== '' ? emails[0] : null;
    },
  );
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * Webex's token endpoint answers errors in its API's shape, `{ message, errors: [{ description }],
 * trackingId }`, the identity broker's OAuth error inside the text (`… error = '(invalid_grant)
 * Invalid refresh token.'`). That error, as RFC 6749 names it, or null for an answer that is
 * already standard or names none (then it is read as an outage):
 * `webexTokenError(400, { message: "… '(invalid_grant) Invalid refresh token.'" })` → `{ error: 'invalid_grant', … }`.
 */
export function webexTokenError(status: number, body: unknown): { error: string; error_description?: string } | null {
  if (!isRecord(body) || typeof body.error === 'string') return null;
  const text = webexTextOf(body);
  const named = /\b(invalid_grant|invalid_client|invalid_request|unauthorized_client|access_denied|invalid_scope|unsupported_grant_type)\b/.exec(text)?.[1];
  const error = named ?? (status === 401 ? 'invalid_client' : null);
  if (error === null) return null;
  return { error, error_description: text.replace(/\s+/g, ' ').slice(0, 200) };
}
