import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyRecord } from '../../domain/api-key.js';
import { DomainError, type FieldError, ValidationError } from '../../domain/errors.js';
import { formatDateTime } from '../../domain/formats.js';
import { createApiKey, getApiKey, listApiKeys, revokeApiKey } from '../../scheduling/account/api-keys.js';
import { type SafeHtml, html, sendHtml } from '../pages/html.js';
import { type FormProblems, NO_PROBLEMS, fieldProblem, formProblems, invalidAttributes, problemSummary } from './form-problems.js';
import { PAGE_ROUTE, TextField, field, formErrorsOf, formRoute, formSchema, requireValidForm, type FormBody } from './forms.js';
import { type AppFrame, type AppPageOptions, csrfField, notice, renderPage, requireUuid, seeOther, sessionOf } from './frame.js';
import { APP_STRINGS } from './strings.js';

const CreateKeyFormSchema = formSchema({ name: TextField });
const ButtonFormSchema = formSchema({});

/** As the API takes a key's name: one line, not blank, at most 200 characters. */
const KEY_NAME_MAX = 200;

/**
 * `/app/keys` ("API keys"): the signed-in admin's own keys, as `GET|POST|DELETE /api-keys` with
 * the member as the caller (a key is always its creator's, as in the API). A new key's secret
 * is in the answer to the form's POST only, never in a page reached by GET, and no page here
 * may be stored by a cache (sendHtml answers `Cache-Control: no-store`).
 */
export const keyPages: FastifyPluginAsync<AppPageOptions> = async (app, { ctx, frames }) => {
  async function keysPage(
    request: FastifyRequest,
    reply: FastifyReply,
    outcome: { status?: number; flash?: string | null; created?: { name: string; apiKey: string }; name?: string; problems?: FormProblems } = {},
  ) {
    const keys = await listApiKeys(ctx, sessionOf(request).principal);
    const view: KeysView = {
      keys,
      timezone: sessionOf(request).user.timezone,
      flash: outcome.flash ?? null,
      created: outcome.created ?? null,
      name: outcome.name ?? '',
      problems: outcome.problems ?? NO_PROBLEMS,
    };
    return sendHtml(reply, outcome.status ?? 200, renderKeysPage(frames.memberFrameOf(request, reply), view));
  }

  app.get<{ Querystring: { done?: string } }>('/app/keys', PAGE_ROUTE, async (request, reply) => {
    const t = APP_STRINGS[frames.langOf(request, reply)];
    return keysPage(request, reply, { flash: request.query.done === 'revoked' ? t.keyRevoked : null });
  });

  app.post<{ Body: FormBody }>('/app/keys', formRoute(CreateKeyFormSchema), async (request, reply) => {
    const t = APP_STRINGS[frames.langOf(request, reply)];
    const name = field(request.body, 'name').trim();
    const errors: FieldError[] = formErrorsOf(request);
    if (name === '' || name.length > KEY_NAME_MAX || /[\u0000-\u001f\u007f]/.test(name)) errors.push({ path: '/name', message: 'must be one line of 1 to 200 characters' });
    try {
      if (errors.length > 0) throw new ValidationError(errors);
      const created = await createApiKey(ctx, sessionOf(request).principal, name);
      // Shown in this answer only (no redirect: a GET would have to carry the secret).
      return keysPage(request, reply, { created: { name: created.name, apiKey: created.apiKey } });
    } catch (error) {
      if (error instanceof ValidationError) {
        return keysPage(request, reply, {
          status: 400,
          name,
          problems: formProblems(t, error.errors ?? [], (path) => (path === '/name' ? 'f-key-name' : null), { 'f-key-name': t.keyLabelError }),
        });
      }
      if (error instanceof DomainError && error.code === 'PLAN_LIMIT_REACHED') {
        return keysPage(request, reply, { status: 403, name, problems: { byField: new Map(), general: [t.keyLimit] } });
      }
      throw error;
    }
  });

  // "Revoke" asks first, on a page of its own: a confirmation that needs no script.
  app.get<{ Params: { uuid: string } }>('/app/keys/:uuid/revoke', PAGE_ROUTE, async (request, reply) => {
    requireUuid(request.params.uuid);
    const key = await getApiKey(ctx, sessionOf(request).principal, request.params.uuid);
    return sendHtml(reply, 200, renderRevokePage(frames.memberFrameOf(request, reply), key));
  });

  app.post<{ Params: { uuid: string }; Body: FormBody }>('/app/keys/:uuid/revoke', formRoute(ButtonFormSchema), async (request, reply) => {
    requireUuid(request.params.uuid);
    requireValidForm(request);
    await revokeApiKey(ctx, sessionOf(request).principal, request.params.uuid);
    return seeOther(reply, '/app/keys?done=revoked');
  });
};

// ── Rendering ────────────────────────────────────────────────────────────────────────────

export interface KeysView {
  keys: readonly ApiKeyRecord[];
  timezone: string;
  flash: string | null;
  /** The key just made, its secret shown this once. */
  created: { name: string; apiKey: string } | null;
  /** The label as sent, when the form comes back with a problem. */
  name: string;
  problems: FormProblems;
}

export function renderKeysPage(frame: AppFrame, view: KeysView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  const when = (instant: number) => formatDateTime(instant, view.timezone, frame.locale);
  return renderPage(
    frame,
    t.keysTitle,
    'keys',
    html`${notice(view.flash)}
${
  view.created
    ? html`<section class="notice secret" aria-labelledby="h-new-key"><h2 id="h-new-key">${t.keyCreated}: ${view.created.name}</h2>
<p id="new-key-hint">${t.keyShownOnce}</p>
<div class="field copy"><label for="new-key">${t.keyCreated}</label><input type="text" id="new-key" value="${view.created.apiKey}" readonly autocomplete="off" spellcheck="false" aria-describedby="new-key-hint">
<button type="button" class="copy-link" data-copy="new-key" hidden>${t.copyKey}</button></div>
</section>`
    : ''
}
<p class="hint">${t.keysHint}</p>
<section aria-labelledby="h-create-key"><h2 id="h-create-key">${t.createKey}</h2>
${problemSummary(t, view.problems, { 'f-key-name': t.keyLabel })}
<form method="post" action="/app/keys" aria-labelledby="h-create-key">
${csrfField(frame)}
<div class="field"><label for="f-key-name">${t.keyLabel}</label><input type="text" id="f-key-name" name="name" value="${view.name}" required maxlength="${KEY_NAME_MAX}"${invalidAttributes(view.problems, 'f-key-name', 'f-key-name-hint')}>
<p class="hint" id="f-key-name-hint">${t.keyLabelHint}</p>${fieldProblem(view.problems, 'f-key-name')}</div>
<p><button type="submit" class="primary">${t.createKey}</button></p>
</form>
</section>
<section aria-labelledby="h-keys"><h2 id="h-keys">${t.keysTitle}</h2>
${
  view.keys.length === 0
    ? html`<p>${t.noKeys}</p>`
    : html`<ul class="topics">${view.keys.map(
        (key) => html`<li class="topic" id="k-${key.uuid}">
<h3 id="hk-${key.uuid}">${key.name}</h3>
<dl class="facts">
<dt>${t.keyId}</dt><dd><code>${key.uuid}</code></dd>
<dt>${t.createdOn}</dt><dd>${when(key.createdAt)}</dd>
<dt>${t.lastUsed}</dt><dd>${key.lastUsedAt === null ? t.neverUsed : when(key.lastUsedAt)}</dd>
</dl>
<p><a href="/app/keys/${key.uuid}/revoke" aria-describedby="hk-${key.uuid}">${t.revokeKey}</a></p>
</li>`,
      )}</ul>`
}
</section>`,
  );
}

function renderRevokePage(frame: AppFrame, key: ApiKeyRecord): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  return renderPage(
    frame,
    t.revokeKeyTitle,
    'keys',
    html`<p><strong>${key.name}</strong> (<code>${key.uuid}</code>)</p>
<p class="alert" role="note">${t.revokeKeyWarning}</p>
<form method="post" action="/app/keys/${key.uuid}/revoke">${csrfField(frame)}<button type="submit" class="primary">${t.revokeKey}</button></form>
<p><a href="/app/keys">${t.back}</a></p>`,
  );
}
