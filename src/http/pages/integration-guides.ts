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
  caveats: string[];
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

{ "integrations": { "${provider}": { "clientId": "…", "clientSecret": "…" } } }`)}
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
