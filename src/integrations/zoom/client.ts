import type { ProviderEndpoints } from '../../config.js';
import type { VendorHttp } from '../../net/vendor-http.js';
import { createProviderClient, objectOf, optionalString, type ProviderClient, type RefusalReader, scopeRefusal } from '../http.js';
import { createOAuthProvider } from '../oauth.js';
import type { OAuthProvider } from '../ports.js';

/**
 * Zoom's REST API v2 (developers.zoom.us/docs/api) under the configured base URL, and how a
 * host connects it. OAuth: the app authenticates at the token endpoint (and at `/oauth/revoke`)
 * with HTTP Basic over its raw client id and secret, as Zoom documents it (not form-urlencoded
 * first, as RFC 6749 would have it), and Zoom rotates the refresh token on every refresh.
 */
export function createZoomClient(urls: ProviderEndpoints, http: VendorHttp): ProviderClient {
  return createProviderClient(http, 'Zoom', urls.api, readZoomRefusal);
}

/**
 * Zoom names its refusals by `code`, whatever the HTTP status: 4711 ("Invalid access token,
 * does not contain scopes:[meeting:write:meeting]") is a grant without a scope termin needs,
 * final until the host connects again and allows it; not a token to refresh, nor a call to retry.
 */
export const readZoomRefusal: RefusalReader = (operation, { status, body }) =>
  Number(objectOf(body)?.code) === 4711 ? scopeRefusal('Zoom', operation, status, optionalString(body, 'message') ?? '') : null;

export function createZoomOAuth(urls: ProviderEndpoints, api: ProviderClient): OAuthProvider {
  return createOAuthProvider(
    api,
    urls,
    {
      // Zoom's granular scopes: read the host's own profile, and manage their meetings.
      scopes: ['user:read:user', 'meeting:write:meeting', 'meeting:update:meeting', 'meeting:delete:meeting', 'meeting:read:list_meetings', 'meeting:read:meeting'],
      revokeUrl: urls.token.replace(/\/token$/, '/revoke'),
      // No requiredScopes: a Zoom app's scopes are set on the app in the Marketplace, and its token
      // answer names them as the app has them (classic `meeting:write` or granular), not as asked.
      clientAuthentication: 'basic-raw',
    },
    async (accessToken) => optionalString((await api.call('read the user', { method: 'GET', path: '/v2/users/me', accessToken }, [200])).body, 'email'),
  );
}
