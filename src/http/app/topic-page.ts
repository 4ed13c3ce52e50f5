import type { Place } from '../../domain/account.js';
import { FORM_FIELD_TYPES } from '../../domain/form.js';
import { TOPIC_LIMITS } from '../../domain/meeting-topic.js';
import { PLACE_LABELS } from '../../i18n/place-labels.js';
import { REMINDER_CHANNELS, REMINDER_LIMITS, REMINDER_RECIPIENTS } from '../../domain/reminders.js';
import { type SafeHtml, html } from '../pages/html.js';
import { type AppFrame, csrfField, notice, renderPage } from './frame.js';
import { APP_STRINGS, type AppStrings } from './strings.js';
import type { ShownError } from './topic-errors.js';
import { type NumberField, type TopicForm, translationLangs } from './topic-form.js';
import { TOPIC_STRINGS } from './topic-strings.js';

/** A schedule the topic may use: the host's default hours are '' (no uuid). */
export interface ScheduleChoice {
  uuid: string;
  name: string;
}

export interface TeamOfTopic {
  uuid: string;
  name: string;
  /** Its members in a fixed order (their weight and hours fields are numbered by it). */
  members: readonly { username: string; name: string; schedules: readonly ScheduleChoice[] }[];
}

export interface TopicPageView {
  /** Null for a new topic. */
  uuid: string | null;
  form: TopicForm;
  accountPlaces: readonly Place[];
  link: string | null;
  errors: readonly ShownError[];
  flash: string | null;
  /** Offered places a participant could not attend as set up (no address, nothing to make a room with). */
  warnings: readonly string[];
  /** An individual topic's host's schedules. */
  schedules: readonly ScheduleChoice[];
  /** A team topic's team, when the member administers it. */
  team: TeamOfTopic | null;
  /** A team topic seen by a member who is not its team's admin: shown, not editable. */
  readOnly: boolean;
  teamName: string | null;
}

/**
 * The topic's page: its settings in groups (fieldsets with legends), each field with its
 * refusal beside it (`aria-invalid`, `aria-describedby`), and a summary at the top linking
 * to each. Works without a script: rows are added and removed by submit buttons.
 */
export function renderTopicFormPage(frame: AppFrame, view: TopicPageView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  const s = TOPIC_STRINGS[frame.lang];
  const { form } = view;
  const byField = new Map<string, string[]>();
  for (const error of view.errors) if (error.fieldId) byField.set(error.fieldId, [...(byField.get(error.fieldId) ?? []), error.message]);
  /** The label of each field an error may point at, for the summary. */
  const labels = new Map<string, string>();

  const errorOf = (id: string) => {
    const messages = byField.get(id);
    return messages ? html`<p class="field-error" id="${id}-error">${messages.join(' ')}</p>` : '';
  };
  /** `aria-describedby` (hint, error) and `aria-invalid` of a control. */
  const described = (id: string, hint: boolean) => {
    const ids = [hint ? `${id}-hint` : '', byField.has(id) ? `${id}-error` : ''].filter((one) => one !== '');
    return html`${ids.length > 0 ? html` aria-describedby="${ids.join(' ')}"` : ''}${byField.has(id) ? html` aria-invalid="true"` : ''}`;
  };
  const hintOf = (id: string, hint: string | undefined) => (hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : '');

  const textField = (id: string, name: string, label: string, value: string, extra: SafeHtml | string = '', hint?: string) => {
    labels.set(id, label);
    return html`<div class="field"><label for="${id}">${label}</label><input type="text" id="${id}" name="${name}" value="${value}"${extra}${described(id, hint !== undefined)}>${hintOf(id, hint)}${errorOf(id)}</div>`;
  };
  const numberField = (name: NumberField, label: string, [min, max]: readonly [number, number], hint?: string) => {
    const id = `f-${name}`;
    labels.set(id, label);
    return html`<div class="field"><label for="${id}">${label}</label><input type="number" id="${id}" name="${name}" value="${form.numbers[name]}" min="${min}" max="${max}" step="1" inputmode="numeric"${described(id, hint !== undefined)}>${hintOf(id, hint)}${errorOf(id)}</div>`;
  };
  const checkbox = (name: string, label: string, checked: boolean, value = 'on', id?: string) =>
    html`<label class="choice"${id ? html` for="${id}"` : ''}><input type="checkbox" name="${name}" value="${value}"${id ? html` id="${id}"` : ''}${checked ? html` checked` : ''}> ${label}</label>`;
  const select = (id: string, name: string, label: string, value: string, options: readonly (readonly [string, string])[]) => {
    labels.set(id, label);
    return html`<div class="field"><label for="${id}">${label}</label><select id="${id}" name="${name}"${described(id, false)}>${options.map(
      ([optionValue, optionLabel]) => html`<option value="${optionValue}"${optionValue === value ? html` selected` : ''}>${optionLabel}</option>`,
    )}</select>${errorOf(id)}</div>`;
  };
  /** A group of settings; `id` makes it the target of its own refusals (no place chosen, no host). */
  const group = (legend: string, body: SafeHtml, id?: string) => {
    if (id) labels.set(id, legend);
    return html`<fieldset class="group"${id ? html` id="${id}"` : ''}${id && byField.has(id) ? html` aria-describedby="${id}-error"` : ''}><legend>${legend}</legend>${id ? errorOf(id) : ''}${body}</fieldset>`;
  };
  const rowButton = (op: string, label: string, describedBy: string) =>
    html`<button type="submit" name="op" value="${op}" class="link" aria-describedby="${describedBy}">${label}</button>`;
  const placeLabel = (place: Place) => PLACE_LABELS[frame.lang][place];
  const typeLabel = (type: string) => ((s as unknown as Record<string, unknown>)[`type_${type}`] as string | undefined) ?? type;

  const about = group(
    s.groupAbout,
    html`${textField('f-name', 'name', t.name, form.name, html` required maxlength="200"`)}
${(() => {
  labels.set('f-description', s.description);
  return html`<div class="field"><label for="f-description">${s.description}</label><textarea id="f-description" name="description" rows="3" maxlength="5000"${described('f-description', true)}>${form.description}</textarea>${hintOf('f-description', s.descriptionHint)}${errorOf('f-description')}</div>`;
})()}
${(() => {
  labels.set('f-confirmationMessage', s.confirmationMessage);
  return html`<div class="field"><label for="f-confirmationMessage">${s.confirmationMessage}</label><textarea id="f-confirmationMessage" name="confirmationMessage" rows="3" maxlength="2000"${described('f-confirmationMessage', true)}>${form.confirmationMessage}</textarea>${hintOf('f-confirmationMessage', s.confirmationMessageHint)}${errorOf('f-confirmationMessage')}</div>`;
})()}
${numberField('durationMinutes', t.duration, TOPIC_LIMITS.durationMinutes)}
${textField('f-durations', 'durations', s.durations, form.durations, html` inputmode="numeric" maxlength="40"`, s.durationsHint)}
${view.teamName ? html`<p>${s.teamOf(view.teamName)}</p>` : ''}
${checkbox('public', t.public, form.public)}
${textField('f-slug', 'slug', s.slug, form.slug, html` maxlength="60" spellcheck="false" autocapitalize="none" autocomplete="off"`, s.slugHint('intro-call'))}`,
  );

  const places = group(
    s.groupPlaces,
    html`<div class="choices">${view.accountPlaces.map((place) => checkbox('places', placeLabel(place), form.places.includes(place), place))}</div>
<p class="hint" id="f-pd-hint">${s.placeDetailsHint}</p>
${view.accountPlaces.map((place) =>
  textField(
    `f-pd-${place}`,
    `placeDetails.${place}`,
    s.placeDetail(place, placeLabel(place)),
    form.placeDetails[place] ?? '',
    html` maxlength="500"${place === 'phone-call' ? html` inputmode="tel"` : place === 'offline' ? '' : html` inputmode="url"`}`,
  ),
)}
${checkbox('phoneRequired', s.phoneRequired, form.phoneRequired)}
${checkbox('allowGuests', s.allowGuests, form.allowGuests)}`,
    'f-places',
  );

  const rules = group(
    s.groupRules,
    html`${numberField('slotIntervalMinutes', s.slotInterval, TOPIC_LIMITS.slotIntervalMinutes, s.slotIntervalHint)}
${numberField('minimumNoticeMinutes', s.minimumNotice, TOPIC_LIMITS.minimumNoticeMinutes, s.minimumNoticeHint)}
${numberField('bookingWindowDays', s.bookingWindow, TOPIC_LIMITS.bookingWindowDays)}
${numberField('bufferBeforeMinutes', s.bufferBefore, TOPIC_LIMITS.bufferMinutes)}
${numberField('bufferAfterMinutes', s.bufferAfter, TOPIC_LIMITS.bufferMinutes)}
${numberField('cancellationNoticeMinutes', s.cancellationNotice, TOPIC_LIMITS.cancellationNoticeMinutes)}
${numberField('seats', s.seats, TOPIC_LIMITS.seats, s.seatsHint)}
${
  view.team === null && form.team === null
    ? select('f-schedule', 'schedule', s.schedule, form.schedule, [['', s.defaultHours], ...view.schedules.map((one) => [one.uuid, one.name] as const)])
    : ''
}`,
  );

  const limits = group(
    s.groupLimits,
    html`<p class="hint">${s.limitsHint}</p>
${numberField('dailyLimit', s.dailyLimit, TOPIC_LIMITS.dailyLimit)}
${numberField('weeklyLimit', s.weeklyLimit, TOPIC_LIMITS.weeklyLimit)}
${numberField('monthlyLimit', s.monthlyLimit, TOPIC_LIMITS.monthlyLimit)}`,
  );

  const approval = group(
    s.groupApproval,
    html`${checkbox('requiresApproval', s.requiresApproval, form.requiresApproval)}
${numberField('approvalDeadlineHours', s.approvalDeadline, TOPIC_LIMITS.approvalDeadlineHours, s.approvalDeadlineHint)}`,
  );

  const reminders = group(
    s.groupReminders,
    html`<p class="hint">${s.remindersHint}</p>
${form.reminders.length === 0 ? html`<p>${s.noReminders}</p>` : ''}
${form.reminders.map((row, i) => {
  const id = `f-r${i}`;
  labels.set(`${id}-minutesBefore`, s.reminderMinutes(i + 1));
  labels.set(`${id}-channel`, s.reminderChannel(i + 1));
  labels.set(`${id}-to`, s.reminderTo(i + 1));
  return html`<div class="row" id="${id}">
<div class="field"><label for="${id}-minutesBefore">${s.reminderMinutes(i + 1)}</label><input type="number" id="${id}-minutesBefore" name="reminder.${i}.minutesBefore" value="${row.minutesBefore}" min="${REMINDER_LIMITS.minutesBefore[0]}" max="${REMINDER_LIMITS.minutesBefore[1]}" step="1" inputmode="numeric"${described(`${id}-minutesBefore`, false)}>${errorOf(`${id}-minutesBefore`)}</div>
<div class="field"><label for="${id}-channel">${s.reminderChannel(i + 1)}</label><select id="${id}-channel" name="reminder.${i}.channel"${described(`${id}-channel`, false)}>${REMINDER_CHANNELS.map(
    (channel) => html`<option value="${channel}"${row.channel === channel ? html` selected` : ''}>${s[`channel_${channel}`]}</option>`,
  )}</select>${errorOf(`${id}-channel`)}</div>
<div class="field"><label for="${id}-to">${s.reminderTo(i + 1)}</label><select id="${id}-to" name="reminder.${i}.to"${described(`${id}-to`, false)}>${REMINDER_RECIPIENTS.map(
    (to) => html`<option value="${to}"${row.to === to ? html` selected` : ''}>${s[`to_${to}`]}</option>`,
  )}</select>${errorOf(`${id}-to`)}</div>
${rowButton(`remove-reminder:${i}`, t.remove, `${id}-minutesBefore`)}
</div>`;
})}
${form.reminders.length < REMINDER_LIMITS.perTopic ? html`<p><button type="submit" name="op" value="add-reminder">${s.addReminder}</button></p>` : ''}`,
    'f-reminders',
  );

  const questions = group(
    s.groupQuestions,
    html`${form.questions.length === 0 ? html`<p>${s.noQuestions}</p>` : ''}
${form.questions.map((row, i) => {
  const id = `f-q${i}`;
  labels.set(`${id}-label`, s.questionLabel(i + 1));
  labels.set(`${id}-type`, s.questionType(i + 1));
  labels.set(`${id}-options`, s.questionOptions(i + 1));
  return html`<div class="row question" id="${id}">
<input type="hidden" name="question.${i}.key" value="${row.key}">
${textField(`${id}-label`, `question.${i}.label`, s.questionLabel(i + 1), row.label, html` maxlength="200"`)}
${select(
  `${id}-type`,
  `question.${i}.type`,
  s.questionType(i + 1),
  row.type,
  FORM_FIELD_TYPES.map((type) => [type, typeLabel(type)] as const),
)}
${checkbox(`question.${i}.required`, s.questionRequired(i + 1), row.required, 'on', `${id}-required`)}
${textField(`${id}-min`, `question.${i}.min`, s.questionMin(i + 1), row.min, html` inputmode="decimal" maxlength="20"`)}
${textField(`${id}-max`, `question.${i}.max`, s.questionMax(i + 1), row.max, html` inputmode="decimal" maxlength="20"`)}
${select(`${id}-showIfKey`, `question.${i}.showIfKey`, s.questionShowIf(i + 1), row.showIfKey, [
  ['', s.showIfAlways] as const,
  // Only an earlier, saved question (it has its key): a condition never points forward.
  ...form.questions
    .slice(0, i)
    .filter((earlier) => earlier.key !== '')
    .map((earlier) => [earlier.key, earlier.label] as const),
])}
${textField(`${id}-showIfEquals`, `question.${i}.showIfEquals`, s.questionShowIfEquals(i + 1), row.showIfEquals, html` maxlength="200"`, s.showIfHint)}
<div class="field"><label for="${id}-options">${s.questionOptions(i + 1)}</label><textarea id="${id}-options" name="question.${i}.options" rows="2"${described(`${id}-options`, false)}>${row.options}</textarea>${errorOf(`${id}-options`)}</div>
${rowButton(`remove-question:${i}`, t.remove, `${id}-label`)}
</div>`;
})}
<p><button type="submit" name="op" value="add-question">${s.addQuestion}</button></p>`,
  );

  const price = group(
    s.groupPrice,
    html`${textField('f-price', 'price', t.price, form.price, html` inputmode="decimal"`, s.priceHint)}
${textField('f-currency', 'currency', t.currency, form.currency, html` maxlength="3" autocapitalize="characters"`)}
<p class="hint">${s.variantsHint}</p>
${form.variants.map((row, i) => {
  const id = `f-v${i}`;
  return html`<div class="row" id="${id}">
<input type="hidden" name="variant.${i}.uuid" value="${row.uuid}">
${textField(`${id}-name`, `variant.${i}.name`, s.variantName(i + 1), row.name, html` maxlength="200"`)}
${textField(`${id}-price`, `variant.${i}.price`, s.variantPrice(i + 1), row.price, html` inputmode="decimal"`)}
${rowButton(`remove-variant:${i}`, t.remove, `${id}-name`)}
</div>`;
})}
<p><button type="submit" name="op" value="add-variant">${s.addVariant}</button></p>`,
  );

  const team = view.team;
  const hosts = team
    ? html`${group(
        s.groupHosts,
        html`${checkbox('allTeamMembers', s.allTeamMembers, form.allTeamMembers)}
<p class="hint">${s.hostsHint}</p>
<div class="choices">${team.members.map((member) => checkbox('hosts', member.name, form.hosts.includes(member.username), member.username))}</div>`,
        'f-hosts',
      )}
${(() => {
  labels.set('f-assignment', s.assignment);
  const radio = (value: string, label: string) =>
    html`<label class="choice"><input type="radio" name="assignment" value="${value}"${form.assignment === value ? html` checked` : ''}> ${label}</label>`;
  return html`<fieldset class="group" id="f-assignment"${byField.has('f-assignment') ? html` aria-describedby="f-assignment-error"` : ''}><legend>${s.assignment}</legend>${errorOf('f-assignment')}
${radio('round-robin', s.assignment_roundRobin)}${radio('collective', s.assignment_collective)}
<p class="hint" id="f-weights-hint">${s.weightHint}</p>
${team.members.map((member, i) => {
  const id = `f-w${i}`;
  labels.set(id, s.weight(member.name));
  return html`<div class="field"><label for="${id}">${s.weight(member.name)}</label><input type="number" id="${id}" name="weight.${member.username}" value="${form.weights[member.username] ?? ''}" min="${TOPIC_LIMITS.hostWeight[0]}" max="${TOPIC_LIMITS.hostWeight[1]}" step="1" inputmode="numeric"${described(id, false)}>${errorOf(id)}</div>`;
})}
</fieldset>`;
})()}
${group(
  s.schedule,
  html`${team.members.map((member, i) =>
    select(`f-hs${i}`, `hostSchedule.${member.username}`, s.hostSchedule(member.name), form.hostSchedules[member.username] ?? '', [
      ['', s.defaultHoursOf],
      ...member.schedules.map((one) => [one.uuid, one.name] as const),
    ]),
  )}`,
)}`
    : '';

  /**
   * The topic's own words in each other language: name, description, message after booking and
   * each saved question's label; an empty field shows the topic's own words in that language.
   */
  const languageName = new Intl.DisplayNames([frame.lang], { type: 'language' });
  const nameOf = (lang: string) => languageName.of(lang) ?? lang;
  const savedQuestions = form.questions.map((row, index) => ({ row, index })).filter(({ row }) => row.key !== '');
  const translations = group(
    s.translations.title,
    html`<p class="hint" id="f-translations-hint">${s.translations.hint}</p>
${translationLangs(frame.lang).map((lang) => {
  const row = form.translations[lang] ?? { name: '', description: '', confirmationMessage: '', labels: {} };
  const language = nameOf(lang);
  const id = `f-tr-${lang}`;
  // Each label names its language ("Name (German)"): the topic's own Name field is on the same page.
  const text = (part: string, name: string, label: string, value: string, max: number) => {
    labels.set(`${id}-${part}`, label);
    return html`<div class="field"><label for="${id}-${part}">${label}</label><input type="text" id="${id}-${part}" name="${name}" value="${value}" lang="${lang}" maxlength="${max}"${described(`${id}-${part}`, false)}>${errorOf(`${id}-${part}`)}</div>`;
  };
  const area = (part: string, label: string, value: string, max: number) => {
    labels.set(`${id}-${part}`, label);
    return html`<div class="field"><label for="${id}-${part}">${label}</label><textarea id="${id}-${part}" name="translation.${lang}.${part}" rows="2" lang="${lang}" maxlength="${max}"${described(`${id}-${part}`, false)}>${value}</textarea>${errorOf(`${id}-${part}`)}</div>`;
  };
  return html`<fieldset class="group translation" id="${id}"><legend lang="${lang}">${language.charAt(0).toLocaleUpperCase(frame.lang)}${language.slice(1)}</legend>
${text('name', `translation.${lang}.name`, s.translations.name(language), row.name, 200)}
${area('description', s.translations.description(language), row.description, 5000)}
${area('confirmationMessage', s.translations.confirmationMessage(language), row.confirmationMessage, 2000)}
${savedQuestions.map(({ row: question, index }) =>
  text(
    `label-${question.key}`,
    `translation.${lang}.label.${question.key}`,
    s.translations.questionLabel(index + 1, question.label, language),
    row.labels[question.key] ?? '',
    200,
  ),
)}
</fieldset>`;
})}
${savedQuestions.length < form.questions.length ? html`<p class="hint">${s.translations.newQuestionsLater}</p>` : ''}`,
    'f-translations',
  );

  const fieldsets = html`${about}${places}${rules}${limits}${approval}${reminders}${questions}${translations}${price}${hosts}`;
  const action = view.uuid === null ? '/app/topics' : `/app/topics/${view.uuid}`;
  const submit = view.uuid === null ? t.create : t.save;
  const body = view.readOnly
    ? html`<p class="alert info">${s.readOnly}</p><form class="topic-form" action="${action}" method="post"><fieldset class="locked" disabled>${fieldsets}</fieldset></form>`
    : html`<form method="post" action="${action}" class="topic-form" novalidate>
${csrfField(frame)}
${form.team !== null ? html`<input type="hidden" name="team" value="${form.team}">` : ''}
<button type="submit" name="op" value="save" class="default-submit" tabindex="-1" aria-hidden="true">${submit}</button>
${fieldsets}
<p><button type="submit" name="op" value="save" class="primary" id="save">${submit}</button></p>
</form>`;

  const summary =
    view.errors.length === 0
      ? ''
      : html`<div class="alert" role="alert" id="form-errors"><p>${s.fixMarked}</p><ul>${view.errors.map((error) =>
          error.fieldId ? html`<li><a href="#${error.fieldId}">${labels.get(error.fieldId) ?? ''}</a>: ${error.message}</li>` : html`<li>${error.message}</li>`,
        )}</ul></div>`;
  const warnings =
    view.warnings.length === 0
      ? ''
      : html`<div class="alert info warnings" id="place-warnings"><p>${s.warningsTitle}</p><ul>${view.warnings.map((warning) => html`<li>${warning}</li>`)}</ul></div>`;
  const title = view.uuid === null ? (view.teamName ? s.newTeamTopic(view.teamName) : t.newTopic) : `${t.editTopic}: ${form.name}`;
  return renderPage(
    frame,
    title,
    'topics',
    html`${notice(view.flash)}${summary}${warnings}
${
  view.link
    ? html`<div class="field copy"><label for="public-link">${t.publicLink}</label><input type="text" id="public-link" value="${view.link}" readonly>
<button type="button" class="copy-link" data-copy="public-link" hidden>${t.copyLink}</button> <a id="open-link" href="${view.link}">${view.link}</a></div>`
    : ''
}
${view.uuid !== null ? embedBox(t, view.link, form.name) : ''}
${body}
<p><a href="/app/topics">${t.back}</a></p>`,
  );
}

/**
 * The Embed box: the snippet that puts this topic's booking page on the business's own site
 * (assets/embed.js, which sizes the frame to the page), a button to copy it, and a live
 * preview of the page in a frame. Closed until opened, so the preview loads only when asked
 * for. A topic without a booking page says how to get one.
 */
function embedBox(t: AppStrings, link: string | null, topicName: string): SafeHtml {
  if (link === null) return html`<details class="embed" id="embed"><summary>${t.embedTitle}</summary><p class="hint">${t.embedNeedsPublic}</p></details>`;
  const url = new URL(link);
  const snippet = `<script src="${url.origin}/embed.js" data-termin-booking="${link}" data-termin-title="${topicName.replace(/"/g, '&quot;')}"></script>`;
  return html`<details class="embed" id="embed"><summary>${t.embedTitle}</summary>
<p class="hint" id="embed-code-hint">${t.embedHint}</p>
<div class="field copy"><label for="embed-code">${t.embedCode}</label><textarea id="embed-code" rows="3" readonly spellcheck="false" aria-describedby="embed-code-hint">${snippet}</textarea>
<button type="button" class="copy-link" data-copy="embed-code" hidden>${t.copyEmbed}</button></div>
<h2 class="embed-preview-title">${t.embedPreview}</h2>
<iframe class="embed-preview" id="embed-preview" src="${url.pathname}" title="${t.embedPreviewTitle(topicName)}" loading="lazy"></iframe>
</details>`;
}
