import type { ProviderEndpoints } from '../../config.js';
import type { VendorHttp } from '../../net/vendor-http.js';
import { createProviderClient, objectOf, optionalString, type ProviderClient, type RefusalReader, scopeRefusal } from '../http.js';
import { createOAuthProvider } from '../oauth.js';
import type { OAuthProvider } from '../ports.js';

/**
 * Zoom's REST API v2 (developers.zoom.us/docs/api) under the configured base URL, and how a
 * host connects it. OAuth: the app authenticates at the token endpoint with HTTP Basic, and
 * Zoom rotates the refresh token on every refresh.
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
      clientAuthentication: 'basic',
    },
    async (accessToken) => optionalString((await api.call('read the user', { method: 'GET', path: '/v2/users/me', accessToken }, [200])).body, 'email'),
  );
}
