import type { ProviderEndpoints } from '../../config.js';
import type { VendorHttp } from '../../net/vendor-http.js';
import { createProviderClient, objectOf, optionalString, type ProviderClient, type RefusalReader, scopeRefusal } from '../http.js';
import type { OAuthProvider } from '../ports.js';

/**
 * Microsoft Graph (learn.microsoft.com/graph) under the configured base URL, shared by the
 * Teams rooms and the Outlook calendar, the marks termin puts on the events it makes, and how
 * a host connects. OAuth: the Microsoft identity platform v2.0 endpoints under the account's
 * tenant, client secret in the form body, PKCE; the refresh token is rotated on every refresh
 * (termin keeps the new one) and a refresh must name the scopes again. There is no revocation
 * endpoint.
 */
export function createMicrosoftClient(urls: ProviderEndpoints, http: VendorHttp): ProviderClient {
  return createProviderClient(http, 'Microsoft', urls.api, readGraphRefusal);
}

/**
 * A Graph 403 whose error names scopes (`Forbidden`: "Missing scope permissions on the
 * request. API requires one of 'Calendars.ReadWrite'", or an `ErrorAccessDenied` /
 * `Authorization_RequestDenied` saying so) is a grant without what termin needs: the
 * connection's, final until the host connects again. A 403 that names none (a calendar the
 * host may only read) is this call's alone.
 */
export const readGraphRefusal: RefusalReader = (operation, { status, body }) => {
  if (status !== 403) return null;
  const message = optionalString(objectOf(objectOf(body)?.error), 'message') ?? '';
  return /\bscopes?\b/i.test(message) ? scopeRefusal('Microsoft', operation, status, message) : null;
};

/**
 * What termin asks for: a refresh token (`offline_access`), the host's profile for the
 * connection's e-mail (`User.Read`), and their calendar, where Teams meetings are made as
 * events (`Calendars.ReadWrite` is all `POST /me/events` with `isOnlineMeeting` needs;
 * `OnlineMeetings.ReadWrite` is for `/me/onlineMeetings`, which termin does not call). Not
 * `openid`: termin reads the e-mail from Graph, and an ID token's issuer names the host's own
 * tenant, which a `common` authority cannot check.
 */
export const MICROSOFT_SCOPES = ['offline_access', 'User.Read', 'Calendars.ReadWrite'] as const;

/** The extended property holding termin's request id on each event: a GUID namespace of termin's own and a name. */
export const REQUEST_ID_PROPERTY = 'String {1f0c8a52-7d3b-4c1e-9a64-3b6f2d9e8c17} Name terminRequestId';

/**
 * Every event termin makes carries a `transactionId` starting with this: Graph returns it in
 * every read, delta reads included, which return no extended properties, so the calendar sync
 * knows termin's own events (they block as meetings already) by it.
 */
export const TERMIN_TRANSACTION_PREFIX = 'termin-';

/** Graph answers times in this zone instead of the mailbox's. */
export const GRAPH_IN_UTC = { prefer: 'outlook.timezone="UTC"' };

/** `2027-03-29T07:00:00.0000000`: Graph's dateTime, read in the zone named beside it (UTC here). */
export function graphTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}.0000000`;
}

export function createMicrosoftOAuth(urls: ProviderEndpoints, api: ProviderClient): OAuthProvider {
  const scopes = [...MICROSOFT_SCOPES];
  return {
    label: api.label,
    scopes,
    authorizationServer: (app) => {
      // Checked when saved (checkMicrosoftTenant); encoded all the same, as it lands in a URL path.
      const tenant = encodeURIComponent(app.settings.tenant ?? 'common');
      return {
        authorizeUrl: urls.authorize.replaceAll('{tenant}', tenant),
        tokenUrl: urls.token.replaceAll('{tenant}', tenant),
        // Microsoft has no revocation endpoint for a single grant: the host removes the app in their account.
        revokeUrl: null,
        scopes,
        // The token answer's `scope` lists what was consented to (an admin may have consented to
        // fewer); without the calendar termin can make no Teams meeting. `User.Read` is only for the e-mail.
        requiredScopes: { 'Calendars.ReadWrite': 'Have full access to your calendars' },
        scopeKey: (scope) => scope.toLowerCase().replace(/^https:\/\/graph\.microsoft\.com\//, ''),
        clientAuthentication: 'post',
        refreshParams: { scope: scopes.join(' ') },
      };
    },
    async fetchAccountEmail(accessToken) {
      const answer = await api.call('read the user', { method: 'GET', path: '/v1.0/me?$select=mail,userPrincipalName', accessToken }, [200]);
      // `mail` is empty for accounts without an Exchange mailbox; the sign-in name is then what the host knows.
      return optionalString(answer.body, 'mail') ?? optionalString(answer.body, 'userPrincipalName');
    },
  };
}
