import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { type FieldError, ValidationError } from '../../domain/errors.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../domain/events.js';
import { formatDateTime } from '../../domain/formats.js';
import type { WebhookDelivery, WebhookSubscription } from '../../domain/webhook.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  listWebhooks,
  MAX_WEBHOOKS_PER_ACCOUNT,
  retryWebhookDelivery,
  updateWebhook,
} from '../../scheduling/webhooks/subscriptions.js';
import { type SafeHtml, html, sendHtml } from '../pages/html.js';
import { type FormProblems, NO_PROBLEMS, fieldProblem, formProblems, invalidAttributes, problemSummary } from './form-problems.js';
import { Checkbox, OptionalField, PAGE_ROUTE, RepeatedField, TextField, field, fields, formErrorsOf, formRoute, formSchema, requireValidForm, type FormBody } from './forms.js';
import { type AppFrame, type AppPageOptions, csrfField, notice, renderPage, requireUuid, seeOther, sessionOf } from './frame.js';
import { APP_STRINGS, type AppStrings } from './strings.js';

const WebhookFormSchema = formSchema({ url: TextField, events: RepeatedField, description: OptionalField, enabled: Checkbox });
const ButtonFormSchema = formSchema({});

/** The deliveries a subscription's page lists at a time, the most recent first; "Older" pages through the rest with the API's cursor. */
const DELIVERIES_PER_PAGE = 25;

/** The webhook form as sent (strings), so a refused one comes back as it was. */
interface WebhookForm {
  url: string;
  events: WebhookEventType[];
  description: string;
  enabled: boolean;
}

const EMPTY_FORM: WebhookForm = { url: '', events: [], description: '', enabled: true };

function readWebhookForm(body: FormBody): WebhookForm {
  return {
    url: field(body, 'url').trim(),
    events: fields(body, 'events').filter((event): event is WebhookEventType => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(event)),
    description: field(body, 'description').trim(),
    enabled: field(body, 'enabled') === 'on',
  };
}

/** What the form's own checks refuse before the use case runs (the use case checks the URL against the outbound guard). */
function checkWebhookForm(request: FastifyRequest<{ Body: FormBody }>, form: WebhookForm): void {
  const errors: FieldError[] = formErrorsOf(request);
  if (form.url.length > 2000 || !/^https?:\/\//i.test(form.url) || !URL.canParse(form.url)) errors.push({ path: '/url', message: 'must be an absolute http(s) URL' });
  if (form.events.length === 0 || form.events.length !== fields(request.body, 'events').length) errors.push({ path: '/events', message: 'choose at least one known event' });
  if (form.description.length > 500) errors.push({ path: '/description', message: 'at most 500 characters' });
  if (errors.length > 0) throw new ValidationError(errors);
}

function webhookProblems(t: AppStrings, error: ValidationError): FormProblems {
  const ids: Record<string, string> = { '/url': 'f-wh-url', '/events': 'f-wh-events', '/description': 'f-wh-description' };
  const fieldOf = (path: string) => ids[path] ?? (path.startsWith('/events/') ? 'f-wh-events' : null);
  return formProblems(t, error.errors ?? [], fieldOf, { 'f-wh-url': t.webhookUrlError, 'f-wh-events': t.webhookEventsError, 'f-wh-description': t.webhookDescriptionError });
}

/**
 * `/app/webhooks` (admins): the account's subscriptions through the same use cases as
 * `/api/v1/webhooks` with the member as the caller: add one (its signing secret shown in that
 * answer only), edit, switch off, delete (after a confirmation page); each one's recent
 * deliveries with their status and attempts, and "Retry" on any not delivered.
 */
export const webhookPages: FastifyPluginAsync<AppPageOptions> = async (app, { ctx, frames }) => {
  async function listPage(
    request: FastifyRequest,
    reply: FastifyReply,
    outcome: { status?: number; flash?: string | null; created?: { webhook: WebhookSubscription; secret: string }; form?: WebhookForm; problems?: FormProblems } = {},
  ) {
    const page = await listWebhooks(ctx, sessionOf(request).principal, { limit: MAX_WEBHOOKS_PER_ACCOUNT });
    const view: WebhooksView = {
      webhooks: page.items,
      timezone: sessionOf(request).user.timezone,
      flash: outcome.flash ?? null,
      created: outcome.created ?? null,
      form: outcome.form ?? EMPTY_FORM,
      problems: outcome.problems ?? NO_PROBLEMS,
    };
    return sendHtml(reply, outcome.status ?? 200, renderWebhooksPage(frames.memberFrameOf(request, reply), view));
  }

  async function detailPage(
    request: FastifyRequest<{ Params: { uuid: string } }>,
    reply: FastifyReply,
    outcome: { status?: number; flash?: string | null; form?: WebhookForm; problems?: FormProblems } = {},
  ) {
    const principal = sessionOf(request).principal;
    const webhook = await getWebhook(ctx, principal, request.params.uuid);
    // An older page of the log, when asked for (the "Older" link); a form's answer shows the newest.
    const cursor = request.method === 'GET' ? (request.query as { cursor?: string } | undefined)?.cursor : undefined;
    const { deliveries, nextCursor } = await listWebhookDeliveries(ctx, principal, webhook.uuid, { limit: DELIVERIES_PER_PAGE, cursor: cursor || undefined });
    const view: WebhookView = {
      webhook,
      deliveries,
      nextCursor,
      paged: Boolean(cursor),
      timezone: sessionOf(request).user.timezone,
      flash: outcome.flash ?? null,
      form: outcome.form ?? { url: webhook.url, events: webhook.events, description: webhook.description ?? '', enabled: webhook.enabled },
      problems: outcome.problems ?? NO_PROBLEMS,
    };
    return sendHtml(reply, outcome.status ?? 200, renderWebhookPage(frames.memberFrameOf(request, reply), view));
  }

  app.get<{ Querystring: { done?: string } }>('/app/webhooks', PAGE_ROUTE, async (request, reply) => {
    const t = APP_STRINGS[frames.langOf(request, reply)];
    return listPage(request, reply, { flash: request.query.done === 'deleted' ? t.webhookDeleted : null });
  });

  app.post<{ Body: FormBody }>('/app/webhooks', formRoute(WebhookFormSchema), async (request, reply) => {
    const t = APP_STRINGS[frames.langOf(request, reply)];
    const form = readWebhookForm(request.body);
    try {
      checkWebhookForm(request, form);
      const created = await createWebhook(ctx, sessionOf(request).principal, { url: form.url, events: form.events, description: form.description || null });
      // The secret is in this answer only: no redirect, which would have to carry it.
      return listPage(request, reply, { created });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return listPage(request, reply, { status: 400, form, problems: webhookProblems(t, error) });
    }
  });

  app.get<{ Params: { uuid: string }; Querystring: { done?: string; cursor?: string } }>('/app/webhooks/:uuid', PAGE_ROUTE, async (request, reply) => {
    requireUuid(request.params.uuid);
    const t = APP_STRINGS[frames.langOf(request, reply)];
    const done = request.query.done;
    return detailPage(request, reply, { flash: done === 'saved' ? t.webhookSaved : done === 'retried' ? t.retried : null });
  });

  app.post<{ Params: { uuid: string }; Body: FormBody }>('/app/webhooks/:uuid', formRoute(WebhookFormSchema), async (request, reply) => {
    requireUuid(request.params.uuid);
    const t = APP_STRINGS[frames.langOf(request, reply)];
    const form = readWebhookForm(request.body);
    try {
      checkWebhookForm(request, form);
      await updateWebhook(ctx, sessionOf(request).principal, request.params.uuid, {
        url: form.url,
        events: form.events,
        description: form.description || null,
        enabled: form.enabled,
      });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return detailPage(request, reply, { status: 400, form, problems: webhookProblems(t, error) });
    }
    return seeOther(reply, `/app/webhooks/${request.params.uuid}?done=saved`);
  });

  app.get<{ Params: { uuid: string } }>('/app/webhooks/:uuid/delete', PAGE_ROUTE, async (request, reply) => {
    requireUuid(request.params.uuid);
    const webhook = await getWebhook(ctx, sessionOf(request).principal, request.params.uuid);
    return sendHtml(reply, 200, renderDeletePage(frames.memberFrameOf(request, reply), webhook));
  });

  app.post<{ Params: { uuid: string }; Body: FormBody }>('/app/webhooks/:uuid/delete', formRoute(ButtonFormSchema), async (request, reply) => {
    requireUuid(request.params.uuid);
    requireValidForm(request);
    await deleteWebhook(ctx, sessionOf(request).principal, request.params.uuid);
    return seeOther(reply, '/app/webhooks?done=deleted');
  });

  app.post<{ Params: { uuid: string; deliveryUuid: string }; Body: FormBody }>(
    '/app/webhooks/:uuid/deliveries/:deliveryUuid/retry',
    formRoute(ButtonFormSchema),
    async (request, reply) => {
      requireUuid(request.params.uuid);
      requireUuid(request.params.deliveryUuid);
      requireValidForm(request);
      await retryWebhookDelivery(ctx, sessionOf(request).principal, request.params.uuid, request.params.deliveryUuid);
      return seeOther(reply, `/app/webhooks/${request.params.uuid}?done=retried#deliveries`);
    },
  );
};

// ── Rendering ────────────────────────────────────────────────────────────────────────────

export interface WebhooksView {
  webhooks: readonly WebhookSubscription[];
  timezone: string;
  flash: string | null;
  /** The subscription just added, its signing secret shown this once. */
  created: { webhook: WebhookSubscription; secret: string } | null;
  form: WebhookForm;
  problems: FormProblems;
}

export interface WebhookView {
  webhook: WebhookSubscription;
  deliveries: readonly WebhookDelivery[];
  /** The cursor of the next (older) page of deliveries; null on the last. */
  nextCursor: string | null;
  /** Showing an older page: a link back to the newest. */
  paged: boolean;
  timezone: string;
  flash: string | null;
  form: WebhookForm;
  problems: FormProblems;
}

const LABELS = (t: AppStrings) => ({ 'f-wh-url': t.webhookUrl, 'f-wh-events': t.webhookEvents, 'f-wh-description': t.webhookDescription });

/** The fields of both the add and the edit form. */
function webhookFields(t: AppStrings, form: WebhookForm, problems: FormProblems, withEnabled: boolean): SafeHtml {
  return html`<div class="field"><label for="f-wh-url">${t.webhookUrl}</label><input type="url" id="f-wh-url" name="url" value="${form.url}" required maxlength="2000" placeholder="https://" spellcheck="false"${invalidAttributes(problems, 'f-wh-url')}>${fieldProblem(problems, 'f-wh-url')}</div>
<fieldset class="choices" id="f-wh-events"${invalidAttributes(problems, 'f-wh-events')}><legend>${t.webhookEvents}</legend>
${WEBHOOK_EVENT_TYPES.map(
  (event) => html`<label class="choice"><input type="checkbox" name="events" value="${event}"${form.events.includes(event) ? html` checked` : ''}> <code>${event}</code></label>`,
)}
${fieldProblem(problems, 'f-wh-events')}</fieldset>
<div class="field"><label for="f-wh-description">${t.webhookDescription} <span class="opt">${t.optional}</span></label><textarea id="f-wh-description" name="description" rows="2" maxlength="500"${invalidAttributes(problems, 'f-wh-description')}>${form.description}</textarea>${fieldProblem(problems, 'f-wh-description')}</div>
${withEnabled ? html`<label class="choice"><input type="checkbox" name="enabled" value="on"${form.enabled ? html` checked` : ''}> ${t.webhookEnabled}</label>` : ''}`;
}

function webhookState(t: AppStrings, frame: AppFrame, webhook: WebhookSubscription, timezone: string): string {
  if (!webhook.enabled) return t.webhookOff;
  if (webhook.failingSince !== null) return `${t.webhookFailing} ${formatDateTime(webhook.failingSince, timezone, frame.locale)}`;
  return t.webhookEnabled;
}

export function renderWebhooksPage(frame: AppFrame, view: WebhooksView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  return renderPage(
    frame,
    t.webhooksTitle,
    'webhooks',
    html`${notice(view.flash)}
${
  view.created
    ? html`<section class="notice secret" aria-labelledby="h-new-secret"><h2 id="h-new-secret">${t.webhookCreated}</h2>
<p id="new-secret-hint">${view.created.webhook.url}. ${t.webhookSecretOnce}</p>
<div class="field copy"><label for="new-secret">${t.copySecret}</label><input type="text" id="new-secret" value="${view.created.secret}" readonly autocomplete="off" spellcheck="false" aria-describedby="new-secret-hint">
<button type="button" class="copy-link" data-copy="new-secret" hidden>${t.copySecret}</button></div>
<p><a href="/app/webhooks/${view.created.webhook.uuid}">${t.editWebhook}</a></p>
</section>`
    : ''
}
<p class="hint">${t.webhooksHint}</p>
<section aria-labelledby="h-webhooks"><h2 id="h-webhooks">${t.webhooksTitle}</h2>
${
  view.webhooks.length === 0
    ? html`<p>${t.noWebhooks}</p>`
    : html`<ul class="topics">${view.webhooks.map(
        (webhook) => html`<li class="topic" id="w-${webhook.uuid}">
<h3 id="hw-${webhook.uuid}">${webhook.url}</h3>
<p class="facts">${webhookState(t, frame, webhook, view.timezone)} · ${webhook.events.join(', ')}${webhook.description ? ` · ${webhook.description}` : ''}</p>
<p><a href="/app/webhooks/${webhook.uuid}" aria-describedby="hw-${webhook.uuid}">${t.editWebhook}</a></p>
</li>`,
      )}</ul>`
}
</section>
<section aria-labelledby="h-add-webhook"><h2 id="h-add-webhook">${t.createWebhook}</h2>
${problemSummary(t, view.problems, LABELS(t))}
<form method="post" action="/app/webhooks" aria-labelledby="h-add-webhook">
${csrfField(frame)}
${webhookFields(t, view.form, view.problems, false)}
<p><button type="submit" class="primary">${t.createWebhook}</button></p>
</form>
</section>`,
  );
}

export function renderWebhookPage(frame: AppFrame, view: WebhookView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  const { webhook } = view;
  const when = (instant: number | null) => (instant === null ? '—' : formatDateTime(instant, view.timezone, frame.locale));
  return renderPage(
    frame,
    `${t.webhooksTitle}: ${webhook.url}`,
    'webhooks',
    html`${notice(view.flash)}
<p class="status">${webhookState(t, frame, webhook, view.timezone)}</p>
${problemSummary(t, view.problems, LABELS(t))}
<form method="post" action="/app/webhooks/${webhook.uuid}">
${csrfField(frame)}
${webhookFields(t, view.form, view.problems, true)}
<p><button type="submit" class="primary">${t.save}</button></p>
</form>
<p><a href="/app/webhooks/${webhook.uuid}/delete">${t.deleteWebhook}</a></p>
<section aria-labelledby="deliveries"><h2 id="deliveries">${t.deliveries}</h2>
${
  view.deliveries.length === 0
    ? html`<p>${t.noDeliveries}</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-labelledby="deliveries"><table class="deliveries">
<thead><tr><th scope="col">${t.when}</th><th scope="col">${t.event}</th><th scope="col">${t.status}</th><th scope="col">${t.attempts}</th><th scope="col">${t.response}</th><th scope="col">${t.nextAttempt}</th><th scope="col"><span class="visually-hidden">${t.retry}</span></th></tr></thead>
<tbody>${view.deliveries.map(
        (delivery) => html`<tr id="d-${delivery.uuid}">
<td>${when(delivery.createdAt)}</td><td><code>${delivery.eventType}</code></td><td class="delivery-status">${t[`delivery_${delivery.status}`]}</td><td>${delivery.attempts}</td>
<td>${delivery.responseStatus ?? delivery.lastError ?? '—'}</td><td>${delivery.status === 'pending' ? when(delivery.nextAttemptAt) : '—'}</td>
<td>${
          delivery.status === 'delivered' || (delivery.status === 'pending' && delivery.attempts === 0)
            ? ''
            : html`<form method="post" action="/app/webhooks/${webhook.uuid}/deliveries/${delivery.uuid}/retry">${csrfField(frame)}<button type="submit" aria-label="${t.retry}: ${delivery.eventType}, ${when(delivery.createdAt)}">${t.retry}</button></form>`
        }</td>
</tr>`,
      )}</tbody></table></div>`
}
<p class="week-nav">${view.paged ? html`<a href="/app/webhooks/${webhook.uuid}#deliveries">${t.newest}</a> ` : ''}${
      view.nextCursor ? html`<a href="/app/webhooks/${webhook.uuid}?cursor=${encodeURIComponent(view.nextCursor)}#deliveries" rel="next">${t.older}</a>` : ''
    }</p>
</section>
<p><a href="/app/webhooks">${t.back}</a></p>`,
  );
}

function renderDeletePage(frame: AppFrame, webhook: WebhookSubscription): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  return renderPage(
    frame,
    t.deleteWebhookTitle,
    'webhooks',
    html`<p><strong>${webhook.url}</strong></p>
<p class="alert" role="note">${t.deleteWebhookWarning}</p>
<form method="post" action="/app/webhooks/${webhook.uuid}/delete">${csrfField(frame)}<button type="submit" class="primary">${t.deleteWebhook}</button></form>
<p><a href="/app/webhooks/${webhook.uuid}">${t.back}</a></p>`,
  );
}
