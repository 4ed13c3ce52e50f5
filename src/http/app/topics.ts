import type { FastifyPluginAsync } from 'fastify';
import { PLACES, isPlace, type Place } from '../../domain/account.js';
import { ValidationError, type FieldError } from '../../domain/errors.js';
import type { FormFieldInput } from '../../domain/form.js';
import { formatMoney, type FormatLocale } from '../../domain/formats.js';
import { MoneyFormatError, formatMinorUnits, parseDecimalAmount } from '../../domain/money.js';
import type { MeetingTopic } from '../../domain/meeting-topic.js';
import { PLACE_LABELS } from '../../domain/place-labels.js';
import { getAccount } from '../../scheduling/account/account.js';
import { createMeetingTopic, getMeetingTopic, listMeetingTopics, updateMeetingTopic } from '../../scheduling/topics/meeting-topics.js';
import { type SafeHtml, html, sendHtml } from '../pages/html.js';
import { Checkbox, OptionalField, PAGE_ROUTE, RepeatedField, TextField, field, fields, formRoute, formSchema, requireValidForm, type FormBody } from './forms.js';
import { type AppFrame, type AppPageOptions, csrfField, errorList, notice, renderPage, requireUuid, seeOther, sessionOf } from './frame.js';
import { APP_STRINGS, type AppStrings } from './strings.js';

/** The topic form: a price left empty is free, no questions is none, `places` one checkbox per place. */
const TopicFormSchema = formSchema({
  name: TextField,
  durationMinutes: TextField,
  places: RepeatedField,
  price: OptionalField,
  currency: OptionalField,
  questions: OptionalField,
  public: Checkbox,
});

/** Topics: the member's topics with their public links; create and edit one. */
export const topicPages: FastifyPluginAsync<AppPageOptions> = async (app, { ctx, frames }) => {
  const publicLinkOf = (topic: MeetingTopic, username: string): string | null => {
    if (!topic.public) return null;
    return topic.teamUuid === null
      ? `${ctx.config.publicUrl}/book/${encodeURIComponent(username)}/${topic.uuid}`
      : `${ctx.config.publicUrl}/book/teams/${topic.teamUuid}/${topic.uuid}`;
  };

  app.get<{ Querystring: { done?: string } }>('/app/topics', PAGE_ROUTE, async (request, reply) => {
    const session = sessionOf(request);
    const topics = await listMeetingTopics(ctx, session.principal, { username: session.user.username });
    const links = new Map<string, string>();
    for (const topic of topics) {
      const link = publicLinkOf(topic, session.user.username);
      if (link) links.set(topic.uuid, link);
    }
    return sendHtml(reply, 200, renderTopicsPage(frames.memberFrameOf(request, reply), { topics, links, flash: null }));
  });

  app.get('/app/topics/new', PAGE_ROUTE, async (request, reply) => {
    const account = await getAccount(ctx, sessionOf(request).principal);
    const form: TopicForm = { name: '', durationMinutes: '30', places: account.places.slice(0, 1), price: '', currency: 'PLN', questions: '', public: true };
    return sendHtml(
      reply,
      200,
      renderTopicFormPage(frames.memberFrameOf(request, reply), { uuid: null, form, accountPlaces: account.places, link: null, errors: [], flash: null }),
    );
  });

  app.post<{ Body: FormBody }>('/app/topics', formRoute(TopicFormSchema), async (request, reply) => {
    const session = sessionOf(request);
    const form = readTopicForm(request.body);
    const account = await getAccount(ctx, session.principal);
    try {
      requireValidForm(request);
      const topic = await createMeetingTopic(ctx, session.principal, topicInputOf(form, []));
      return seeOther(reply, `/app/topics/${topic.uuid}?done=created`);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return sendHtml(
        reply,
        400,
        renderTopicFormPage(frames.memberFrameOf(request, reply), { uuid: null, form, accountPlaces: account.places, link: null, errors: error.errors ?? [], flash: null }),
      );
    }
  });

  app.get<{ Params: { uuid: string }; Querystring: { done?: string } }>('/app/topics/:uuid', PAGE_ROUTE, async (request, reply) => {
    requireUuid(request.params.uuid);
    const session = sessionOf(request);
    const topic = await getMeetingTopic(ctx, session.principal, request.params.uuid);
    const account = await getAccount(ctx, session.principal);
    const f = frames.memberFrameOf(request, reply);
    const flash = request.query.done === 'created' ? APP_STRINGS[f.lang].created : request.query.done === 'saved' ? APP_STRINGS[f.lang].saved : null;
    const view = { uuid: topic.uuid, form: toTopicForm(topic), accountPlaces: account.places, link: publicLinkOf(topic, session.user.username), errors: [], flash };
    return sendHtml(reply, 200, renderTopicFormPage(f, view));
  });

  app.post<{ Params: { uuid: string }; Body: FormBody }>('/app/topics/:uuid', formRoute(TopicFormSchema), async (request, reply) => {
    requireUuid(request.params.uuid);
    const session = sessionOf(request);
    const current = await getMeetingTopic(ctx, session.principal, request.params.uuid);
    const form = readTopicForm(request.body);
    try {
      requireValidForm(request);
      await updateMeetingTopic(ctx, session.principal, current.uuid, topicInputOf(form, current.form));
      return seeOther(reply, `/app/topics/${current.uuid}?done=saved`);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const account = await getAccount(ctx, session.principal);
      const view = { uuid: current.uuid, form, accountPlaces: account.places, link: publicLinkOf(current, session.user.username), errors: error.errors ?? [], flash: null };
      return sendHtml(reply, 400, renderTopicFormPage(frames.memberFrameOf(request, reply), view));
    }
  });
};

// ── The form ⇄ the domain ────────────────────────────────────────────────────────────────

/** The topic form's fields as typed (strings), so an invalid form comes back as it was sent. */
export interface TopicForm {
  name: string;
  durationMinutes: string;
  places: Place[];
  price: string;
  currency: string;
  questions: string;
  public: boolean;
}

function toTopicForm(topic: MeetingTopic): TopicForm {
  return {
    name: topic.name,
    durationMinutes: String(topic.durationMinutes),
    places: [...topic.places],
    price: topic.price ? formatMinorUnits(topic.price.amount, topic.price.currency) : '',
    currency: topic.price?.currency ?? 'PLN',
    questions: topic.form.map((question) => `${question.label}${question.required ? ' *' : ''}`).join('\n'),
    public: topic.public,
  };
}

function readTopicForm(body: FormBody): TopicForm {
  return {
    name: field(body, 'name').trim(),
    durationMinutes: field(body, 'durationMinutes').trim(),
    places: fields(body, 'places').filter((place): place is Place => isPlace(place) && PLACES.includes(place)),
    price: field(body, 'price').trim(),
    currency: field(body, 'currency').trim().toUpperCase(),
    questions: field(body, 'questions'),
    public: field(body, 'public') === 'on',
  };
}

/**
 * The form as the topic use cases take it. Questions are one per line (`*` at the end:
 * required); a line whose label a current question has keeps that question (its key, type and
 * choices), so editing the list never turns a choice into free text.
 */
function topicInputOf(form: TopicForm, current: readonly FormFieldInput[]) {
  const errors: FieldError[] = [];
  const duration = /^\d{1,4}$/.test(form.durationMinutes) ? Number(form.durationMinutes) : Number.NaN;
  if (Number.isNaN(duration)) errors.push({ path: '/durationMinutes', message: 'must be a whole number of minutes' });
  let price: { amount: number; currency: string } | null = null;
  if (form.price !== '') {
    try {
      price = { amount: parseDecimalAmount(form.price.replace(',', '.'), form.currency), currency: form.currency };
    } catch (error) {
      if (!(error instanceof MoneyFormatError)) throw error;
      errors.push({ path: '/price', message: error.message });
    }
  }
  if (form.places.length === 0) errors.push({ path: '/places', message: 'choose at least one place' });
  if (errors.length > 0) throw new ValidationError(errors);
  const used = new Set(current.map((question) => question.key));
  let next = 1;
  const questions: FormFieldInput[] = form.questions
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .slice(0, 50)
    .map((line) => {
      const required = line.endsWith('*');
      const label = required ? line.slice(0, -1).trim() : line;
      const existing = current.find((question) => question.label === label);
      if (existing) return { ...existing, required };
      while (used.has(`q${next}`)) next += 1;
      used.add(`q${next}`);
      return { key: `q${next}`, label, required, type: 'text' as const };
    });
  return { name: form.name, durationMinutes: duration, places: form.places, price, form: questions, public: form.public };
}

// ── Rendering ────────────────────────────────────────────────────────────────────────────

export interface TopicsView {
  topics: readonly MeetingTopic[];
  /** The public booking page of each topic the member hosts, by uuid. */
  links: ReadonlyMap<string, string>;
  flash: string | null;
}

function priceLabel(t: AppStrings, topic: MeetingTopic, locale: FormatLocale): string {
  return topic.price ? formatMoney(topic.price.amount, topic.price.currency, locale) : t.free;
}

export function renderTopicsPage(frame: AppFrame, view: TopicsView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  return renderPage(
    frame,
    t.topics,
    'topics',
    html`${notice(view.flash)}
<p><a class="primary" href="/app/topics/new">${t.newTopic}</a></p>
${
  view.topics.length === 0
    ? html`<p>${t.noTopicsYet}</p>`
    : html`<ul class="topics">${view.topics.map((topic) => {
        const link = view.links.get(topic.uuid);
        return html`<li class="topic" id="t-${topic.uuid}">
<h2 id="h-${topic.uuid}">${topic.name}</h2>
<p class="facts">${topic.durationMinutes} ${t.minutes} · ${topic.places.map((place) => PLACE_LABELS[frame.lang][place]).join(', ')} · ${priceLabel(t, topic, frame.locale)}${topic.teamUuid ? ` · ${t.team}` : ''}</p>
${
  link
    ? html`<div class="field copy"><label for="link-${topic.uuid}">${t.publicLink}</label><input type="text" id="link-${topic.uuid}" value="${link}" readonly>
<button type="button" class="copy-link" data-copy="link-${topic.uuid}" hidden>${t.copyLink}</button> <a href="${link}">${link}</a></div>`
    : ''
}
<p><a href="/app/topics/${topic.uuid}" aria-describedby="h-${topic.uuid}">${t.edit}</a></p>
</li>`;
      })}</ul>`
}`,
  );
}

export interface TopicFormView {
  /** Null for a new topic. */
  uuid: string | null;
  form: TopicForm;
  accountPlaces: readonly Place[];
  link: string | null;
  errors: readonly FieldError[];
  flash: string | null;
}

export function renderTopicFormPage(frame: AppFrame, view: TopicFormView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  const { form } = view;
  const title = view.uuid === null ? t.newTopic : `${t.editTopic}: ${form.name}`;
  return renderPage(
    frame,
    title,
    'topics',
    html`${notice(view.flash)}${errorList(t, view.errors)}
${
  view.link
    ? html`<div class="field copy"><label for="public-link">${t.publicLink}</label><input type="text" id="public-link" value="${view.link}" readonly>
<button type="button" class="copy-link" data-copy="public-link" hidden>${t.copyLink}</button> <a id="open-link" href="${view.link}">${view.link}</a></div>`
    : ''
}
<form method="post" action="${view.uuid === null ? '/app/topics' : `/app/topics/${view.uuid}`}" class="topic-form">
${csrfField(frame)}
<div class="field"><label for="f-name">${t.name}</label><input type="text" id="f-name" name="name" value="${form.name}" required maxlength="200"></div>
<div class="field"><label for="f-duration">${t.duration}</label><input type="number" id="f-duration" name="durationMinutes" value="${form.durationMinutes}" min="5" max="720" step="5" required></div>
<fieldset class="choices"><legend>${t.places}</legend>
${view.accountPlaces.map(
  (place) =>
    html`<label class="choice"><input type="checkbox" name="places" value="${place}"${form.places.includes(place) ? html` checked` : ''}> ${PLACE_LABELS[frame.lang][place]}</label>`,
)}
</fieldset>
<div class="field"><label for="f-price">${t.price}</label><input type="text" id="f-price" name="price" value="${form.price}" inputmode="decimal" aria-describedby="f-price-hint"><p class="hint" id="f-price-hint">${t.priceHint}</p></div>
<div class="field"><label for="f-currency">${t.currency}</label><input type="text" id="f-currency" name="currency" value="${form.currency}" maxlength="3"></div>
<div class="field"><label for="f-questions">${t.questions}</label><textarea id="f-questions" name="questions" rows="4" aria-describedby="f-questions-hint">${form.questions}</textarea><p class="hint" id="f-questions-hint">${t.questionsHint}</p></div>
<label class="choice"><input type="checkbox" name="public" value="on"${form.public ? html` checked` : ''}> ${t.public}</label>
<p><button type="submit" class="primary">${view.uuid === null ? t.create : t.save}</button></p>
</form>
<p><a href="/app/topics">${t.back}</a></p>`,
  );
}
