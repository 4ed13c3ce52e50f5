import type { CallbackOutcome } from '../../scheduling/integrations/connections.js';
import { html, htmlDocument, type SafeHtml } from './html.js';

/** The page a host sees back from a provider: connected (with which account), or why not. English, like the operator's notices. */
export function renderOAuthOutcome(outcome: CallbackOutcome): SafeHtml {
  if (outcome.kind === 'connected') {
    const account = outcome.connection.accountEmail === null ? '' : ` as ${outcome.connection.accountEmail}`;
    return htmlDocument({
      lang: 'en',
      title: `${outcome.label} is connected`,
      body: html`<main>
<h1>${outcome.label} is connected</h1>
<p>termin can now use your ${outcome.label} account${account}: meetings booked at its place get their own room, and their links reach the participants by e-mail.</p>
<p>You can close this window.</p>
</main>`,
    });
  }
  return htmlDocument({
    lang: 'en',
    title: 'Not connected',
    body: html`<main>
<h1>Not connected</h1>
<p>${outcome.reason}</p>
</main>`,
  });
}
