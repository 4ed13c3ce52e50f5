import { type CallbackOutcome, providerAccountOf } from '../../scheduling/integrations/connections.js';
import { html, htmlDocument, type SafeHtml } from './html.js';

/** The callback page's status: 200 connected; 403 finished in a browser without the `/app` session it was started from; 400 otherwise. */
export function oauthOutcomeStatus(outcome: CallbackOutcome): number {
  return outcome.kind === 'connected' ? 200 : outcome.kind === 'wrong-browser' ? 403 : 400;
}

/**
 * The page a host sees back from a provider: connected (which provider account, for which
 * member of which termin account), or why not. English, like the operator's notices. Whoever
 * finished the authorization learns whose connection it became, and how it is removed.
 */
export function renderOAuthOutcome(outcome: CallbackOutcome): SafeHtml {
  if (outcome.kind === 'connected') {
    const { label, memberName, accountName } = outcome;
    return htmlDocument({
      lang: 'en',
      title: `${label} is connected`,
      body: html`<main>
<h1>${label} is connected</h1>
<p id="whose">${providerAccountOf(label, outcome.connection.accountEmail)} is now connected for ${memberName} at ${accountName}.</p>
<p>termin can now use it: meetings booked with ${memberName} at its place get their own room, and their links reach the participants by e-mail.</p>
<p>${memberName} is e-mailed the same now. If this is not the ${label} account or the termin member you meant, remove it under Connections in termin: <a href="/app/connections">/app/connections</a>.</p>
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
