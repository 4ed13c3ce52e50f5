import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ConnectedCalendar } from '../../domain/calendar.js';
import { type DomainError, NotFoundError, SecretUnreadableError, ValidationError } from '../../domain/errors.js';
import { INTEGRATION_PROVIDERS, type Connection, type IntegrationProvider } from '../../domain/integrations.js';
import type { Lang } from '../../domain/meeting.js';
import { addCalendar, getFeedUrl, listCalendars, removeCalendar, rotateFeed } from '../../scheduling/calendars/calendars.js';
import { resumeAppSession } from '../../scheduling/host-app/sign-in.js';
import { listIntegrations } from '../../scheduling/integrations/apps.js';
import { completeConnection, listConnections, removeConnection, startConnection } from '../../scheduling/integrations/connections.js';
import { type SafeHtml, html, sendHtml } from '../pages/html.js';
import { oauthOutcomeStatus, renderOAuthOutcome } from '../pages/oauth.js';
import { OAuthCallbackParams, OAuthCallbackQuery } from '../schemas/connections.js';
import { SESSION_COOKIE, parseCookies, serializeCookie } from './cookies.js';
import { PROBLEM_KINDS } from '../problems.js';
import { Checkbox, OptionalField, PAGE_ROUTE, TextField, field, formRoute, formSchema, isCorrectable, requireValidForm, type FormBody } from './forms.js';
import { type AppFrame, type AppPageOptions, csrfField, notice, renderPage, requireUuid, seeOther, sessionOf } from './frame.js';
import { plainErrorMessage } from './field-errors.js';
import { APP_STRINGS, type AppStrings } from './strings.js';

/** Adding a calendar: its type and URL, the credentials when it needs them, and what it is used for. */
const AddCalendarFormSchema = formSchema({
  type: TextField,
  url: TextField,
  username: OptionalField,
  password: OptionalField,
  checkConflicts: Checkbox,
  writeMeetings: Checkbox,
});
/** A Google or Microsoft calendar on the member's connection to that provider: the provider's calendar id and what it is used for. */
const AddConnectionCalendarFormSchema = formSchema({
  calendarId: TextField,
  checkConflicts: Checkbox,
  writeMeetings: Checkbox,
});
/** Connect, disconnect, remove a calendar, a new feed link: buttons with nothing but the token. */
const ButtonFormSchema = formSchema({});

/**
 * A refusal in the page's words: the two the page itself raises (no app at the provider, no
 * connection for a calendar) by their path, the rest through the shared field-error words.
 */
function connectionErrorText(lang: Lang, error: DomainError): string {
  const t = APP_STRINGS[lang];
  const first = error.errors?.[0];
  if (first?.path === '/provider') return t.connectNeedsApp;
  if (first?.path === '/connection') return t.connectFirst(/^connect (.+) first$/.exec(first.message)?.[1] ?? '');
  return plainErrorMessage(lang, error);
}

/** Connections: accounts (OAuth), calendars, the private feed, all the member's own. */
export const connectionPages: FastifyPluginAsync<AppPageOptions> = async (app, { ctx, frames }) => {
  async function connectionsPage(
    request: FastifyRequest,
    reply: FastifyReply,
    outcome: { flash?: string | null; error?: DomainError; authorize?: { label: string; url: string } },
  ) {
    const session = sessionOf(request);
    const [connections, calendars, feed, apps] = await Promise.all([
      listConnections(ctx, session.principal, session.user.uuid),
      listCalendars(ctx, session.principal, session.user.uuid),
      // A feed address stored under a secret key the server no longer has: the page says so, and the rest of it works.
      getFeedUrl(ctx, session.principal, session.user.uuid).then(
        (url) => ({ url, problem: null }),
        (error: unknown) => {
          if (error instanceof SecretUnreadableError) return { url: null, problem: error.message };
          throw error;
        },
      ),
      listIntegrations(ctx, session.principal.accountUuid),
    ]);
    const providers = INTEGRATION_PROVIDERS.map((provider) => ({
      provider,
      label: ctx.integrations.oauth[provider].label,
      connection: connections.find((connection) => connection.provider === provider) ?? null,
      // Without the business's app at the provider, "Connect" cannot work: the button is off and says why.
      appConfigured: apps.some((integration) => integration.provider === provider && integration.configured),
    }));
    const view = {
      providers,
      calendars,
      feedUrl: feed.url,
      feedProblem: feed.problem,
      flash: outcome.flash ?? null,
      error: outcome.error ? connectionErrorText(frames.langOf(request, reply), outcome.error) : null,
      authorize: outcome.authorize ?? null,
    };
    return sendHtml(reply, outcome.error ? PROBLEM_KINDS[outcome.error.code].status : 200, renderConnectionsPage(frames.memberFrameOf(request, reply), view));
  }

  app.get<{ Querystring: { done?: string } }>('/app/connections', PAGE_ROUTE, async (request, reply) => {
    const t = APP_STRINGS[frames.langOf(request, reply)];
    const flashes: Record<string, string> = { 'calendar-added': t.calendarAdded, 'calendar-removed': t.calendarRemoved, feed: t.feedRotated, disconnected: t.disconnected };
    return connectionsPage(request, reply, { flash: flashes[request.query.done ?? ''] ?? null });
  });

  app.post<{ Body: FormBody }>('/app/connections/calendars', formRoute(AddCalendarFormSchema), async (request, reply) => {
    const session = sessionOf(request);
    const body = request.body;
    const type = field(body, 'type');
    try {
      requireValidForm(request);
      if (type !== 'caldav' && type !== 'ics') throw new ValidationError([{ path: '/type', message: 'must be caldav or ics' }]);
      await addCalendar(ctx, session.principal, session.user.uuid, {
        type,
        url: field(body, 'url').trim(),
        username: field(body, 'username').trim() || undefined,
        password: field(body, 'password') || undefined,
        checkConflicts: field(body, 'checkConflicts') === 'on',
        writeMeetings: field(body, 'writeMeetings') === 'on',
      });
    } catch (error) {
      if (isCorrectable(error)) return connectionsPage(request, reply, { error });
      throw error;
    }
    return seeOther(reply, '/app/connections?done=calendar-added');
  });

  app.post<{ Params: { uuid: string }; Body: FormBody }>('/app/connections/calendars/:uuid/remove', formRoute(ButtonFormSchema), async (request, reply) => {
    requireUuid(request.params.uuid);
    requireValidForm(request);
    const session = sessionOf(request);
    await removeCalendar(ctx, session.principal, session.user.uuid, request.params.uuid);
    return seeOther(reply, '/app/connections?done=calendar-removed');
  });

  app.post<{ Body: FormBody }>('/app/connections/feed', formRoute(ButtonFormSchema), async (request, reply) => {
    requireValidForm(request);
    const session = sessionOf(request);
    await rotateFeed(ctx, session.principal, session.user.uuid);
    return seeOther(reply, '/app/connections?done=feed');
  });

  const providerOf = (value: string): IntegrationProvider => {
    const provider = INTEGRATION_PROVIDERS.find((candidate) => candidate === value);
    if (!provider) throw new NotFoundError(`provider ${value.slice(0, 40)}`);
    return provider;
  };

  // The provider's page is reached by a link the member follows (not a redirect from this
  // form post, which the pages' CSP form-action 'self' would stop in the browser).
  app.post<{ Params: { provider: string }; Body: FormBody }>('/app/connections/:provider', formRoute(ButtonFormSchema), async (request, reply) => {
    const provider = providerOf(request.params.provider);
    const session = sessionOf(request);
    try {
      requireValidForm(request);
      // Bound to this session: only this browser, signed in as this member, finishes it (oauthReturnPage).
      const started = await startConnection(ctx, session.principal, session.user.uuid, provider, { appSessionUuid: session.uuid });
      return connectionsPage(request, reply, { authorize: { label: ctx.integrations.oauth[provider].label, url: started.authorizeUrl } });
    } catch (error) {
      if (isCorrectable(error)) return connectionsPage(request, reply, { error });
      throw error;
    }
  });

  // A calendar on a connection: the same use case as POST /users/{uuid}/calendars with type google|microsoft,
  // on the member's own connection to the provider (the use case checks it is theirs and of that provider).
  app.post<{ Params: { provider: string }; Body: FormBody }>('/app/connections/:provider/calendars', formRoute(AddConnectionCalendarFormSchema), async (request, reply) => {
    const provider = providerOf(request.params.provider);
    const session = sessionOf(request);
    const body = request.body;
    try {
      requireValidForm(request);
      if (provider !== 'google' && provider !== 'microsoft') throw new ValidationError([{ path: '/type', message: 'must be google or microsoft' }]);
      const connection = (await listConnections(ctx, session.principal, session.user.uuid)).find((candidate) => candidate.provider === provider);
      if (!connection) throw new ValidationError([{ path: '/connection', message: `connect ${ctx.integrations.oauth[provider].label} first` }]);
      await addCalendar(ctx, session.principal, session.user.uuid, {
        type: provider,
        connection: connection.uuid,
        calendarId: field(body, 'calendarId').trim() || 'primary',
        checkConflicts: field(body, 'checkConflicts') === 'on',
        writeMeetings: field(body, 'writeMeetings') === 'on',
      });
    } catch (error) {
      if (isCorrectable(error)) return connectionsPage(request, reply, { error });
      throw error;
    }
    return seeOther(reply, '/app/connections?done=calendar-added');
  });

  app.post<{ Params: { provider: string }; Body: FormBody }>('/app/connections/:provider/remove', formRoute(ButtonFormSchema), async (request, reply) => {
    const provider = providerOf(request.params.provider);
    requireValidForm(request);
    const session = sessionOf(request);
    const connection = (await listConnections(ctx, session.principal, session.user.uuid)).find((candidate) => candidate.provider === provider);
    if (!connection) throw new NotFoundError('connection');
    await removeConnection(ctx, session.principal, session.user.uuid, connection.uuid);
    return seeOther(reply, '/app/connections?done=disconnected');
  });
};

/**
 * `GET /app/oauth/{provider}/callback`: where `/oauth/{provider}/callback` sends the browser
 * back from a connection started here, as only `/app` paths receive the session cookie. Open
 * to browsers without a session (no sign-in redirect): they get the refusal page, and the code
 * is not used. Registered outside the session guard, beside the sign-in pages.
 */
export const oauthReturnPage: FastifyPluginAsync<AppPageOptions> = async (app, { ctx, frames }) => {
  app.get<{ Params: { provider: string }; Querystring: Record<string, string> }>(
    '/app/oauth/:provider/callback',
    { schema: { hide: true, params: OAuthCallbackParams, querystring: OAuthCallbackQuery } },
    async (request, reply) => {
      const provider = INTEGRATION_PROVIDERS.find((candidate) => candidate === request.params.provider);
      if (!provider) return sendHtml(reply, 404, renderOAuthOutcome({ kind: 'refused', reason: 'There is no such provider.' }));
      const cookie = parseCookies(request.headers.cookie)[SESSION_COOKIE];
      const session = await resumeAppSession(ctx, cookie);
      if (session?.renewedUntil != null) {
        reply.header('set-cookie', serializeCookie(SESSION_COOKIE, cookie!, { maxAge: Math.floor((session.renewedUntil - ctx.now()) / 1000), secure: frames.secure }));
      }
      const outcome = await completeConnection(ctx, provider, request.query, session?.uuid ?? null);
      return sendHtml(reply, oauthOutcomeStatus(outcome), renderOAuthOutcome(outcome));
    },
  );
};

// ── Rendering ────────────────────────────────────────────────────────────────────────────

export interface ConnectionsView {
  /** One row per provider the service supports, with the member's connection when there is one. */
  providers: readonly { provider: string; label: string; connection: Connection | null; appConfigured: boolean }[];
  calendars: readonly ConnectedCalendar[];
  /** Null when it cannot be shown (`feedProblem` says why and what to do). */
  feedUrl: string | null;
  feedProblem: string | null;
  flash: string | null;
  error: string | null;
  /** Set after "Connect": the provider's authorization page to continue to. */
  authorize: { label: string; url: string } | null;
}

/**
 * "Add calendar" on a working Google or Microsoft connection. termin has no call that lists the
 * provider's calendars, so the member names one: `primary` (their main calendar) unless they
 * give another calendar's id.
 */
function connectionCalendarForm(frame: AppFrame, provider: 'google' | 'microsoft', label: string): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  const id = `f-${provider}-cal`;
  return html`<form method="post" action="/app/connections/${provider}/calendars" class="connection-calendar" aria-labelledby="${id}-h">
${csrfField(frame)}
<h4 id="${id}-h">${t.addProviderCalendar(label)}</h4>
<div class="field"><label for="${id}-id">${t.calendarId}</label><input type="text" id="${id}-id" name="calendarId" value="primary" required maxlength="1024" autocomplete="off" aria-describedby="${id}-hint"><p class="hint" id="${id}-hint">${t.calendarIdHint}</p></div>
<label class="choice"><input type="checkbox" name="checkConflicts" value="on" checked> ${t.checkConflicts}</label>
<label class="choice"><input type="checkbox" name="writeMeetings" value="on" checked> ${t.writeMeetings}</label>
<p><button type="submit">${t.addProviderCalendar(label)}</button></p>
</form>`;
}

/**
 * A calendar's heading in words: its kind, then its name. termin stores no name of its own for
 * a Google or Microsoft calendar, only the id the member gave (`google:primary` as stored),
 * so `primary` reads as the main calendar and another id as itself; CalDAV and ICS show their
 * address (an ICS feed's with its secret part hidden, as stored for display).
 */
export function calendarTitle(t: AppStrings, calendar: Pick<ConnectedCalendar, 'type' | 'displayUrl'>): string {
  const kind = t[`calendarKind_${calendar.type}`];
  if (calendar.type !== 'google' && calendar.type !== 'microsoft') return `${kind}: ${calendar.displayUrl}`;
  const id = calendar.displayUrl.startsWith(`${calendar.type}:`) ? calendar.displayUrl.slice(calendar.type.length + 1) : calendar.displayUrl;
  return `${kind}: ${id === 'primary' ? t.mainCalendar : id}`;
}

export function renderConnectionsPage(frame: AppFrame, view: ConnectionsView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  const statusOf = (connection: Connection | null) =>
    connection === null
      ? t.notConnected
      : connection.status === 'connected'
        ? `${t.connectedAs}${connection.accountEmail ? `: ${connection.accountEmail}` : ''}`
        : connection.status === 'pending'
          ? t.pending
          : `${t.failedStatus}${connection.lastError ? `: ${connection.lastError}` : ''}`;
  return renderPage(
    frame,
    t.connections,
    'connections',
    html`${notice(view.flash)}${view.error ? html`<div class="alert" role="alert">${view.error}</div>` : ''}
${
  view.authorize
    ? html`<p class="notice" role="status"><a id="authorize" class="primary" href="${view.authorize.url}" rel="noopener" target="_blank">${t.continueTo} ${view.authorize.label}</a> ${t.continueHint}</p>`
    : ''
}
<section aria-labelledby="h-accounts"><h2 id="h-accounts">${t.roomsAndCalendars}</h2>
<p class="hint">${t.roomsHint}</p>
<ul class="topics">
${view.providers.map(
  (row) => html`<li class="topic" id="p-${row.provider}">
<h3 id="hp-${row.provider}">${row.label}</h3>
<p class="status">${statusOf(row.connection)}</p>
<div class="actions">
${
  row.appConfigured
    ? html`<form method="post" action="/app/connections/${row.provider}">${csrfField(frame)}<button type="submit" aria-describedby="hp-${row.provider}">${row.connection ? t.reconnect : t.connect}</button></form>`
    : html`<button type="button" disabled aria-describedby="hp-${row.provider} why-${row.provider}">${t.connect}</button>
<p class="hint" id="why-${row.provider}">${t.connectNeedsApp}${frame.teams.length > 0 ? html` <a href="/app/integrations#app-${row.provider}">${t.integrationsTitle}</a>` : ''}</p>`
}
${
  row.connection
    ? html`<form method="post" action="/app/connections/${row.provider}/remove">${csrfField(frame)}<button type="submit" class="link" aria-describedby="hp-${row.provider}">${t.disconnect}</button></form>`
    : ''
}
</div>
${row.connection?.status === 'connected' && (row.provider === 'google' || row.provider === 'microsoft') ? connectionCalendarForm(frame, row.provider, row.label) : ''}
</li>`,
)}
</ul>
</section>
<section aria-labelledby="h-calendars"><h2 id="h-calendars">${t.calendars}</h2>
<p class="hint">${t.calendarsHint}</p>
${
  view.calendars.length === 0
    ? html`<p>${t.noCalendars}</p>`
    : html`<ul class="topics">${view.calendars.map(
        (calendar) => html`<li class="topic" id="c-${calendar.uuid}">
<h3 id="hc-${calendar.uuid}">${calendarTitle(t, calendar)}</h3>
<p class="status">${t[`calendarSync_${calendar.status}`]}${calendar.lastError ? `: ${calendar.lastError}` : ''}</p>
<form method="post" action="/app/connections/calendars/${calendar.uuid}/remove">${csrfField(frame)}<button type="submit" class="link" aria-describedby="hc-${calendar.uuid}">${t.removeCalendar}</button></form>
</li>`,
      )}</ul>`
}
<h3 id="h-add-calendar">${t.addCalendar}</h3>
<form method="post" action="/app/connections/calendars" aria-labelledby="h-add-calendar">
${csrfField(frame)}
<div class="field"><label for="f-cal-type">${t.calendarType}</label><select id="f-cal-type" name="type"><option value="caldav">${t.calendarTypeOption_caldav}</option><option value="ics">${t.calendarTypeOption_ics}</option></select></div>
<div class="field"><label for="f-cal-url">${t.calendarUrl}</label><input type="url" id="f-cal-url" name="url" required maxlength="2000"></div>
<div class="field"><label for="f-cal-user">${t.calendarUser} <span class="opt">${t.optional}</span></label><input type="text" id="f-cal-user" name="username" maxlength="200" autocomplete="off"></div>
<div class="field"><label for="f-cal-password">${t.calendarPassword} <span class="opt">${t.optional}</span></label><input type="password" id="f-cal-password" name="password" maxlength="500" autocomplete="new-password"></div>
<label class="choice"><input type="checkbox" name="checkConflicts" value="on" checked> ${t.checkConflicts}</label>
<label class="choice"><input type="checkbox" name="writeMeetings" value="on"> ${t.writeMeetings}</label>
<p><button type="submit" class="primary">${t.addCalendar}</button></p>
</form>
</section>
<section aria-labelledby="h-feed"><h2 id="h-feed">${t.feed}</h2>
<p class="hint" id="feed-hint">${t.feedHint}</p>
${
  view.feedUrl === null
    ? html`<p class="alert" role="alert">${view.feedProblem ?? ''}</p>`
    : html`<div class="field copy"><label for="feed-url">${t.feed}</label><input type="text" id="feed-url" value="${view.feedUrl}" readonly aria-describedby="feed-hint">
<button type="button" class="copy-link" data-copy="feed-url" hidden>${t.copyLink}</button></div>`
}
<form method="post" action="/app/connections/feed">${csrfField(frame)}<button type="submit">${t.newFeedLink}</button></form>
</section>`,
  );
}
