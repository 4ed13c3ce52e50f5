import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError, ValidationError } from '../../domain/errors.js';
import { INTEGRATION_PROVIDERS, type IntegrationProvider } from '../../domain/integrations.js';
import { updateAccount } from '../../scheduling/account/account.js';
import { getIntegrationSetup, type IntegrationSetup, type IntegrationSetupRow } from '../../scheduling/integrations/apps.js';
import { type SafeHtml, html, sendHtml } from '../pages/html.js';
import { type FormProblems, NO_PROBLEMS, fieldProblem, formProblems, invalidAttributes, problemSummary } from './form-problems.js';
import { OptionalField, PAGE_ROUTE, TextField, field, formRoute, formSchema, requireValidForm, type FormBody } from './forms.js';
import { type AppFrame, type AppPageOptions, csrfField, notice, renderPage, seeOther, sessionOf } from './frame.js';
import { APP_STRINGS, type AppStrings } from './strings.js';

/** One provider's app: the client id, the secret (empty keeps the stored one), Microsoft's tenant. */
const AppFormSchema = formSchema({ clientId: TextField, clientSecret: OptionalField, tenant: OptionalField });
const ButtonFormSchema = formSchema({});

/** The names a provider's form sends, as `PATCH /account` `integrations.{provider}` takes them. */
const APP_FIELDS = ['clientId', 'clientSecret', 'tenant'] as const;

/**
 * `/app/integrations` (admins): the business's OAuth app at each provider, saved through the
 * same use case as `PATCH /account` `integrations`. The secret is write-only: the page says
 * whether one is stored, never what it is; an empty secret field keeps it. Each provider shows
 * the exact redirect URI to register, and the page warns when PUBLIC_URL cannot be one.
 */
export const integrationPages: FastifyPluginAsync<AppPageOptions> = async (app, { ctx, frames }) => {
  async function integrationsPage(
    request: FastifyRequest,
    reply: FastifyReply,
    outcome: { status?: number; flash?: string | null; failed?: { provider: IntegrationProvider; sent: Record<string, string>; problems: FormProblems } } = {},
  ) {
    const setup = await getIntegrationSetup(ctx, sessionOf(request).principal);
    const view: IntegrationsView = { setup, flash: outcome.flash ?? null, failed: outcome.failed ?? null };
    return sendHtml(reply, outcome.status ?? 200, renderIntegrationsPage(frames.memberFrameOf(request, reply), view));
  }

  const providerOf = (value: string): IntegrationProvider => {
    const provider = INTEGRATION_PROVIDERS.find((candidate) => candidate === value);
    if (!provider) throw new NotFoundError(`provider ${value.slice(0, 40)}`);
    return provider;
  };

  app.get<{ Querystring: { done?: string } }>('/app/integrations', PAGE_ROUTE, async (request, reply) => {
    const t = APP_STRINGS[frames.langOf(request, reply)];
    const done = request.query.done;
    return integrationsPage(request, reply, { flash: done === 'saved' ? t.appSaved : done === 'removed' ? t.appRemoved : null });
  });

  app.post<{ Params: { provider: string }; Body: FormBody }>('/app/integrations/:provider', formRoute(AppFormSchema), async (request, reply) => {
    const provider = providerOf(request.params.provider);
    const t = APP_STRINGS[frames.langOf(request, reply)];
    const sent = { clientId: field(request.body, 'clientId').trim(), tenant: field(request.body, 'tenant').trim() };
    const secret = field(request.body, 'clientSecret').trim();
    try {
      requireValidForm(request);
      const settings: Record<string, string> = { clientId: sent.clientId };
      // Left empty: the stored secret stays (the use case refuses when there is none).
      if (secret !== '') settings.clientSecret = secret;
      if (provider === 'microsoft' && sent.tenant !== '') settings.tenant = sent.tenant;
      await updateAccount(ctx, sessionOf(request).principal, { integrations: { [provider]: settings } });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const fieldOf = (path: string) => {
        const name = APP_FIELDS.find((candidate) => path === `/integrations/${provider}/${candidate}` || path === `/${candidate}`);
        return name === undefined ? null : `f-${provider}-${name}`;
      };
      const messages = { [`f-${provider}-clientId`]: t.clientIdError, [`f-${provider}-clientSecret`]: t.clientSecretError, [`f-${provider}-tenant`]: t.tenantError };
      return integrationsPage(request, reply, { status: 400, failed: { provider, sent, problems: formProblems(t, error.errors ?? [], fieldOf, messages) } });
    }
    return seeOther(reply, `/app/integrations?done=saved#app-${provider}`);
  });

  app.post<{ Params: { provider: string }; Body: FormBody }>('/app/integrations/:provider/remove', formRoute(ButtonFormSchema), async (request, reply) => {
    const provider = providerOf(request.params.provider);
    requireValidForm(request);
    await updateAccount(ctx, sessionOf(request).principal, { integrations: { [provider]: null } });
    return seeOther(reply, '/app/integrations?done=removed');
  });
};

// ── Rendering ────────────────────────────────────────────────────────────────────────────

export interface IntegrationsView {
  setup: IntegrationSetup;
  flash: string | null;
  /** The provider whose form came back with problems, and what was sent (never the secret). */
  failed: { provider: IntegrationProvider; sent: Record<string, string>; problems: FormProblems } | null;
}

function renderApp(frame: AppFrame, t: AppStrings, row: IntegrationSetupRow, failed: IntegrationsView['failed']): SafeHtml {
  const p = row.provider;
  const problems = failed?.provider === p ? failed.problems : NO_PROBLEMS;
  const value = (name: string) => (failed?.provider === p ? (failed.sent[name] ?? '') : (row.settings[name] ?? ''));
  const id = (name: string) => `f-${p}-${name}`;
  const status = row.configured ? t.appConfigured : row.reason ? `${t.appNotConfigured} ${row.reason}` : t.appNotConfigured;
  return html`<li class="topic" id="app-${p}">
<h2 id="h-app-${p}">${row.label}</h2>
<p class="status">${status}</p>
<div class="field copy"><label for="${id('redirect')}">${t.redirectUri}</label><input type="text" id="${id('redirect')}" value="${row.redirectUri}" readonly spellcheck="false">
<button type="button" class="copy-link" data-copy="${id('redirect')}" hidden>${t.copyRedirect}</button></div>
${problemSummary(t, problems, { [id('clientId')]: t.clientId, [id('clientSecret')]: t.clientSecret, [id('tenant')]: t.tenant })}
<form method="post" action="/app/integrations/${p}" aria-labelledby="h-app-${p}">
${csrfField(frame)}
<div class="field"><label for="${id('clientId')}">${t.clientId}</label><input type="text" id="${id('clientId')}" name="clientId" value="${value('clientId')}" required maxlength="500" autocomplete="off" spellcheck="false"${invalidAttributes(problems, id('clientId'))}>${fieldProblem(problems, id('clientId'))}</div>
<div class="field"><label for="${id('clientSecret')}">${t.clientSecret}</label><input type="password" id="${id('clientSecret')}" name="clientSecret" value="" maxlength="500" autocomplete="new-password"${row.secretSet ? '' : html` required`}${invalidAttributes(problems, id('clientSecret'), `${id('clientSecret')}-hint`)}>
<p class="hint" id="${id('clientSecret')}-hint">${row.secretSet ? t.secretSet : t.secretNotSet}</p>${fieldProblem(problems, id('clientSecret'))}</div>
${
  p === 'microsoft'
    ? html`<div class="field"><label for="${id('tenant')}">${t.tenant}</label><input type="text" id="${id('tenant')}" name="tenant" value="${value('tenant') || 'common'}" maxlength="253" spellcheck="false"${invalidAttributes(problems, id('tenant'), `${id('tenant')}-hint`)}>
<p class="hint" id="${id('tenant')}-hint">${t.tenantHint}</p>${fieldProblem(problems, id('tenant'))}</div>`
    : ''
}
<p><button type="submit" class="primary">${t.saveApp}</button></p>
</form>
${
  row.settings.clientId !== undefined
    ? html`<form method="post" action="/app/integrations/${p}/remove">${csrfField(frame)}<button type="submit" class="link" aria-describedby="h-app-${p}">${t.removeApp}</button></form>`
    : ''
}
</li>`;
}

export function renderIntegrationsPage(frame: AppFrame, view: IntegrationsView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  const problem = view.setup.publicUrlProblem;
  return renderPage(
    frame,
    t.integrationsTitle,
    'integrations',
    html`${notice(view.flash)}
${problem === null ? '' : html`<p class="alert" role="note" id="public-url-warning">${problem === 'not-https' ? t.publicUrlNotHttps : t.publicUrlNotPublic}</p>`}
<p class="hint">${t.integrationsHint}</p>
<ul class="topics">
${view.setup.apps.map((row) => renderApp(frame, t, row, view.failed))}
</ul>`,
  );
}
