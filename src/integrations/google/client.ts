import type { ProviderEndpoints } from '../../config.js';
import type { VendorHttp } from '../../net/vendor-http.js';
import { createProviderClient, objectOf, optionalString, type ProviderClient, type RefusalReader, scopeRefusal } from '../http.js';
import { createOAuthProvider } from '../oauth.js';
import type { OAuthProvider } from '../ports.js';
import { ProviderError } from '../ports.js';

/** Google's reasons for a 403 that mean "slow down", not "not allowed" (developers.google.com/calendar/api/guides/errors). */
const GOOGLE_RATE_LIMIT_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'quotaExceeded']);

/** Google's marks of a grant without a scope termin needs: the reason in `errors`, and the `ErrorInfo` reason in `details`. */
const GOOGLE_SCOPE_REASONS = new Set(['insufficientPermissions', 'ACCESS_TOKEN_SCOPE_INSUFFICIENT']);

/**
 * Calls to Google's APIs (Calendar v3, userinfo) under the configured base URL, shared by the
 * Meet rooms and the calendar, where a 403 is read before it is judged (readGoogleRefusal).
 */
export function createGoogleClient(urls: ProviderEndpoints, http: VendorHttp): ProviderClient {
  return createProviderClient(http, 'Google', urls.api, readGoogleRefusal);
}

/**
 * Google answers different things with 403: its rate limits (`rateLimitExceeded`,
 * `userRateLimitExceeded`: retried later, like a 429, with any `Retry-After`), a grant without
 * the scope the call needs (`insufficientPermissions`, `ACCESS_TOKEN_SCOPE_INSUFFICIENT`: the
 * connection's, final until the host connects again), and a refusal of this call alone
 * (`forbiddenForNonOrganizer`, `requiredAccessLevel`, …: final). Its reasons are named in the message.
 */
export const readGoogleRefusal: RefusalReader = (operation, { status, body, retryAfterMs }) => {
  if (status !== 403) return null;
  const error = objectOf(objectOf(body)?.error);
  const reasonsIn = (list: unknown) => (Array.isArray(list) ? list : []).map((entry) => optionalString(entry, 'reason')).filter((reason) => reason !== null);
  const reasons = reasonsIn(error?.errors);
  if ([...reasons, ...reasonsIn(error?.details)].some((reason) => GOOGLE_SCOPE_REASONS.has(reason))) return scopeRefusal('Google', operation, status, '');
  const limited = reasons.some((reason) => GOOGLE_RATE_LIMIT_REASONS.has(reason));
  return new ProviderError(`Google ${operation}: HTTP 403${reasons.length > 0 ? ` ${reasons.join(', ').slice(0, 100)}` : ''}`, limited, 403, limited ? retryAfterMs : null);
};

/**
 * How a host connects Google. The app authenticates in the form body; Google keeps the
 * refresh token it gave (a refresh answers none: the stored one stays); `access_type=offline`
 * and `prompt=consent` make it give one at every connection. Tokens are revoked at `/revoke`
 * beside the token endpoint (`https://oauth2.googleapis.com/revoke` for the default
 * `GOOGLE_TOKEN_URL`).
 */
export function createGoogleOAuth(urls: ProviderEndpoints, api: ProviderClient): OAuthProvider {
  return createOAuthProvider(
    api,
    urls,
    {
      scopes: ['openid', 'email', 'https://www.googleapis.com/auth/calendar.events'],
      // Google's granular consent lets the host untick Calendar and allow the rest; the token answer's
      // `scope` then lacks it ("How to handle granular permissions"). `email` comes back as
      // `…/auth/userinfo.email`, and is only for the account's e-mail: not required.
      requiredScopes: { 'https://www.googleapis.com/auth/calendar.events': 'View and edit events on all your calendars' },
      revokeUrl: urls.token.replace(/\/token$/, '/revoke'),
      issuer: 'https://accounts.google.com',
      clientAuthentication: 'post',
      authorizeParams: { access_type: 'offline', prompt: 'consent' },
    },
    async (accessToken) => optionalString((await api.call('read the user', { method: 'GET', path: '/oauth2/v3/userinfo', accessToken }, [200])).body, 'email'),
  );
}
