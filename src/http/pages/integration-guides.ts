import type { IntegrationProvider } from '../../domain/integrations.js';
import { escapeHtml } from '../../domain/text.js';

/**
 * `/docs/integrations`: a guide per OAuth provider, for the business that registers its app
 * there and the admin who connects its hosts. Keyed by provider, so a provider added to
 * INTEGRATION_PROVIDERS is not done until its guide is written; the redirect URI and the
 * scopes come from the running service (PUBLIC_URL, the adapter's own list), not from prose.
 */
interface ProviderGuide {
  label: string;
  /** Where and how the business registers its OAuth app, step by step (`code` spans allowed). */
  register: string[];
  /** What the provider asks of an app before other organisations' users may connect (review, publishing), and what only a real account can confirm. */
  caveats: string[] /** Settings beyond the client id and secret, as they appear in the example's JSON (`"tenant": "…"`). */;
  moreSettings?: string;
}

export const INTEGRATION_GUIDES: Readonly<Record<IntegrationProvider, ProviderGuide>> = {
  zoom: {
    label: 'Zoom',
    register: [
      'Sign in to the Zoom App Marketplace (marketplace.zoom.us) with the account that will own the app, then Develop → Build App → General App.',
      'Choose user-managed: each host authorizes the app for their own Zoom user.',
      'Under OAuth information, set the redirect URL and add the same URL to the OAuth allow list.',
      'Under Scopes, add the scopes listed below.',
      'Copy the Client ID and Client Secret (App Credentials, the Production pair once the app is published; the Development pair while testing).',
    ],
    caveats: [
      'Until the app is published on the Marketplace, only users of the account that owns it can authorize it.',
      'Zoom rotates the refresh token on every refresh; termin keeps the new one. A host who removes the app in Zoom gets the error e-mail at the next refresh.',
    ],
  },
  microsoft: {
    label: 'Microsoft',
    register: [
      'Sign in to the Microsoft Entra admin center (entra.microsoft.com) as an admin of the business’s tenant, then Identity → Applications → App registrations → New registration.',
      'Supported account types: "Accounts in this organizational directory only" when all hosts are in the business’s own tenant (then set `tenant` to its Directory (tenant) ID or a domain, e.g. `contoso.onmicrosoft.com`), or "Accounts in any organizational directory" for hosts in several tenants (`tenant`: `organizations`). The default `common` also admits personal Microsoft accounts, which cannot make Teams meetings for business.',
      'Redirect URI: platform Web, the URI below (Authentication → Web → Redirect URIs, to add it later).',
      'Certificates & secrets → Client secrets → New client secret: copy its Value (not the Secret ID) at once. Secrets expire (at most 24 months): put a new one into termin before that, or every host’s connection stops working at its next refresh.',
      'API permissions → Add a permission → Microsoft Graph → Delegated permissions: the scopes listed below. `Calendars.ReadWrite` is what Graph asks for to create an event with `isOnlineMeeting`; termin does not call `/me/onlineMeetings`, so `OnlineMeetings.ReadWrite` is not needed, and it asks for no `openid`: the host’s e-mail is read from Graph (`/me`).',
      'Admin consent: where the tenant does not let users consent to apps themselves (a common setting), press "Grant admin consent for <tenant>" on the API permissions page; otherwise each host consents when connecting.',
      'Copy the Application (client) ID from Overview: that is `clientId`.',
    ],
    caveats: [
      'Hosts need a work or school account with a Teams licence and an Exchange Online mailbox: the meeting is an event in their Outlook calendar, and that event is also their calendar copy of the meeting.',
      'Outlook sends the participant its own invitation from the host’s mailbox (Graph cannot add an attendee silently), with the same Teams link; a reschedule or cancel updates it the same way.',
      'Microsoft rotates the refresh token on every refresh; termin keeps the new one. Microsoft has no endpoint to revoke one app’s access: disconnecting in termin forgets the tokens, and a host removes the app itself at myapps.microsoft.com (work or school) or account.microsoft.com → Privacy → Apps and services (personal); an admin under Enterprise applications. At the next refresh the connection turns to `error` and the host is e-mailed.',
      'Consent, admin-consent policies, conditional access and the Teams licence only show with a real tenant; the tests use a stand-in written from Microsoft’s documentation.',
      'The same connection also reads the host’s Outlook calendar busy time (no further permission: `Calendars.ReadWrite` covers `calendarView/delta`): `POST /api/v1/users/{userUuid}/calendars` with `{ "type": "microsoft", "connection": "<connection uuid>", "calendarId": "primary", "writeMeetings": true }`. Free and working-elsewhere events do not block; a Teams meeting’s event is already its copy, so it is not written twice.',
    ],
    moreSettings: ', "tenant": "common"',
  },
  webex: {
    label: 'Webex',
    register: [
      'Sign in to developer.webex.com with the account that will own the app, open My Webex Apps (under your avatar) → Create a New App → Create an Integration.',
      'Give it a name, a contact e-mail, an icon and a description (Webex shows them to each host on the consent page).',
      'Under Redirect URI(s), add the redirect URI below, exactly.',
      'Under Scopes, tick the scopes listed below (and nothing else: Webex asks each host for every scope ticked).',
      'Add the integration, then copy its Client ID and Client Secret (the secret is shown once; regenerate it if lost).',
    ],
    caveats: [
      'Each host needs a Webex account that can host meetings (a Webex Meetings site, which Webex’s plans include); an account Webex will not schedule meetings for connects, but its meetings then go out without a link.',
      'Webex has no endpoint to revoke a token: disconnecting a host in termin forgets the tokens, and the host removes termin from the apps their Webex account has authorized (otherwise the refresh token lapses after 90 days unused).',
      'Access tokens last 14 days and refresh tokens 90; termin refreshes before expiry and keeps the refresh token Webex returns. A host who removes the app in Webex gets the error e-mail at the next refresh.',
      'Webex takes no idempotency key: termin writes a request id into each meeting’s agenda and adopts the meeting it finds by it when an answer was lost, so leave that line in the agenda.',
    ],
  },
  google: {
    label: 'Google',
    register: [
      'In the Google Cloud console (console.cloud.google.com), create or pick a project for termin, then APIs & Services → Library → enable the Google Calendar API (Meet links are made through it).',
      'APIs & Services → OAuth consent screen (Google Auth Platform): user type External (any Google account) or Internal (only your Workspace organisation), app name, support e-mail, and the scopes listed below.',
      'APIs & Services → Credentials → Create credentials → OAuth client ID → Web application; add the redirect URI below under Authorized redirect URIs.',
      'Copy the Client ID and Client secret.',
    ],
    caveats: [
      '`https://www.googleapis.com/auth/calendar.events` is a sensitive scope: an External app must pass Google’s verification before users outside the project’s test users can connect without an “unverified app” warning (up to 100 test users meanwhile). An Internal app in Google Workspace needs no verification.',
      'While the consent screen is in Testing, Google expires refresh tokens after 7 days: hosts then get the error e-mail and must connect again. Publish the app to avoid that.',
      'termin asks for offline access with `prompt=consent`, so every connection gets a refresh token; Google keeps that refresh token on refresh (no rotation), and termin keeps it.',
      'Each Meet room is an event in the host’s primary Google Calendar (it is also their calendar copy), made without Google’s own invitation e-mails: the participant gets termin’s. Disconnecting revokes the grant at `oauth2.googleapis.com/revoke`.',
      'The same connection also reads the host’s Google Calendar busy time: `POST /api/v1/users/{userUuid}/calendars` with `{ "type": "google", "connection": "<connection uuid>", "calendarId": "primary", "writeMeetings": true }`.',
    ],
  },
};

export interface IntegrationDocs {
  publicUrl: string;
  scopes: Readonly<Record<IntegrationProvider, readonly string[]>>;
}

function prose(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

function code(text: string): string {
  return `<pre tabindex="0"><code>${escapeHtml(text)}</code></pre>`;
}

export function renderIntegrationGuides(docs: IntegrationDocs): string {
  const providers = Object.keys(INTEGRATION_GUIDES) as IntegrationProvider[];
  const sections = providers.map((provider) => {
    const guide = INTEGRATION_GUIDES[provider];
    const redirect = `${docs.publicUrl}/oauth/${provider}/callback`;
    return `<section id="${provider}"><h2>${escapeHtml(guide.label)}</h2>
<h3>1. Register the app</h3>
<ol>${guide.register.map((step) => `<li>${prose(step)}</li>`).join('')}</ol>
<p>Redirect URI (exactly this, from <code>PUBLIC_URL</code>):</p>${code(redirect)}
<p>Scopes:</p><ul>${docs.scopes[provider].map((scope) => `<li><code>${escapeHtml(scope)}</code></li>`).join('')}</ul>
<h3>2. Give termin the app</h3>
<p>An admin of the account, once; the secret is stored encrypted and never shown again.</p>
${code(`PATCH /api/v1/account
X-Service-Api-Key: tmn_…
Content-Type: application/json

{ "integrations": { "${provider}": { "clientId": "…", "clientSecret": "…"${guide.moreSettings ?? ''} } } }`)}
<h3>3. Connect a host</h3>
<p>By the host, or an admin of one of their teams. Open <code>authorizeUrl</code> in the host's browser: they sign in to ${escapeHtml(guide.label)},
consent, and land on a termin page saying the connection works. The link is good for 15 minutes, once.</p>
${code(`POST /api/v1/users/{userUuid}/connections
{ "provider": "${provider}" }

→ 201 { "uuid": "…", "provider": "${provider}", "status": "pending", "authorizeUrl": "…", … }`)}
<p>Then <code>GET /api/v1/users/{userUuid}/connections</code> shows <code>"status": "connected"</code> and the ${escapeHtml(guide.label)} account's e-mail.</p>
<h3>Good to know</h3>
<ul>${guide.caveats.map((caveat) => `<li>${prose(caveat)}</li>`).join('')}</ul>
</section>`;
  });
  return `<p>Meetings at <code>zoom</code>, <code>google-meet</code>, <code>teamsForBusiness</code> and <code>webex</code> each get a room of their
own, made at the provider through the host's connection. <a href="/docs">Back to the API</a>.</p>
<h2 id="how">How a meeting gets its room</h2>
<ul>
<li>Booking never waits for a provider: <code>POST /schedule</code> answers at once, and the room is made in the background right after
the meeting is confirmed (at once, or when paid). Its join link, meeting id and passcode become the meeting's <code>location</code>, and
webhook event <code>meeting.located</code> says so.</li>
<li>The participant's and host's confirmations wait for the room, up to 10 minutes; then they go out saying the link follows, and an
updated invitation carries it as soon as the room exists. A reschedule moves the room; a cancel deletes it.</li>
<li>A host without a working connection keeps their place bookable: the meeting gets the static link from place details if one is set,
otherwise no link yet, and the host is e-mailed what to connect. Once connected, waiting meetings get their rooms within a minute.
<code>POST /calculate-schedule</code> says per host which places are ready (<code>placesReady</code>), and a team topic's round robin
prefers hosts whose places are.</li>
<li>Passing faults (5xx, timeouts, 429 or 503, waiting out their <code>Retry-After</code>) are retried. A refusal a retry cannot change (a 400 to
a room's create or move, a conference that failed) is final: the meeting's <code>location</code> gets <code>"status": "failed"</code> and a
<code>reason</code>, webhook event <code>meeting.location_failed</code> is sent, a confirmation still waiting says the host will send the link, and
the host is e-mailed (once, then in one digest an hour for the meetings that follow). Moving the meeting asks the provider once more.</li>
<li>When a provider refuses a connection's tokens (the host removed the app, an admin revoked it), the connection shows
<code>"status": "error"</code> with <code>lastError</code>, the host is e-mailed, and webhook event <code>connection.error</code> is sent.
Connecting again (the same POST) fixes it.</li>
<li><code>skypeForBusiness</code> and <code>skypeForConsumer</code> are services Microsoft has retired: they have no rooms and keep the
static link from place details only.</li>
<li>Each provider's endpoints can be pointed elsewhere (a proxy, a test double): <code>ZOOM_AUTHORIZE_URL</code>, <code>ZOOM_TOKEN_URL</code>,
<code>ZOOM_API_URL</code>, and the same for <code>GOOGLE_</code>, <code>MICROSOFT_</code> (<code>MICROSOFT_GRAPH_URL</code>) and <code>WEBEX_</code>.</li>
</ul>
${sections.join('\n')}`;
}
