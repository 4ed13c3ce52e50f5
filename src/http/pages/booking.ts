import type { Gateway, Place } from '../../domain/account.js';
import { LANGS, type Lang } from '../../domain/lang.js';
import { isPaidTopic, type FormField, type Money, type PriceVariant } from '../../domain/meeting-topic.js';
import type { PublicTopic } from '../../scheduling/booking/public-topics.js';
import { formatMoney, type FormatLocale } from '../../domain/formats.js';
import { calendarMarkup, hourSwitch } from './calendar.js';
import { html, htmlDocument, type SafeHtml } from './html.js';
import { brandedStylesheets, brandLine, brandName, businessMessage, type PageBranding } from './branding.js';
import { GATEWAY_LABELS, LANGUAGE_NAMES, PLACE_LABELS, STRINGS, clientStrings, type Strings } from './i18n.js';

export interface BookingPageView {
  lang: Lang;
  /** How money reads: the visitor's locale when known (pickLocale), else the language. */
  locale: FormatLocale;
  accountName: string;
  topic: PublicTopic;
  /** The host of an individual topic; null for a team topic (any free host). */
  username: string | null;
  team: string | null;
  /** Shown under the title: the host's name, or the team's. */
  hostLabel: string | null;
  gateways: Gateway[];
  /** Places whose link can follow by e-mail when the slot's host has none yet (see placesReady). */
  roomPlaces: Place[];
  /** A phone call needs the participant's number (see TopicPage.phoneCallNeedsNumber): the phone field is required while that place is chosen. */
  phoneCallNeedsNumber?: boolean;
  /** `?timezone=`; otherwise the browser's zone is used. */
  timezone: string | null;
  /** `?timezone=` that is not a zone: said on the page, not silently dropped. */
  timezoneError: string | null;
  /** If the browser names no zone: the host's. */
  fallbackTimezone: string;
  /** Inside the embed's iframe: the host page's origin, to which height and the booking are posted. */
  embedOrigin: string | null;
  /** Opened through a single-use link: its token, which the page's booking sends (singleUseToken). */
  singleUseToken?: string | undefined;
  stylesheet: string;
  script: string;
  /** The business's name, logo and colour; absent: the account's name in termin's colours. */
  branding?: PageBranding | null | undefined;
  /** The topic's own message after booking, in the page's language ("" for none): shown with the confirmation. */
  confirmationMessage?: string | undefined;
  /** The questions' options in the page's language, by question key (values sent stay the topic's own). */
  optionLabels?: Readonly<Record<string, string[]>> | undefined;
}

export interface TopicListView {
  lang: Lang;
  locale: FormatLocale;
  hostName: string;
  accountName: string;
  topics: { url: string; name: string; description: string; durationMinutes: number; durations?: number[]; price: Money | null; priceVariants: PriceVariant[] }[];
  stylesheet: string;
  branding?: PageBranding | null | undefined;
}

/** "150,00 zł", or "from 100,00 zł" when variants differ, or null for a free topic. */
function priceLabel(topic: Pick<PublicTopic, 'price' | 'priceVariants'>, locale: FormatLocale, t: Strings): string | null {
  const prices = [...(topic.price ? [topic.price] : []), ...topic.priceVariants.map((variant) => variant.price)];
  const first = prices[0];
  if (!first) return null;
  const lowest = prices.reduce((min, price) => (price.currency === min.currency && price.amount < min.amount ? price : min), first);
  const same = prices.every((price) => price.amount === lowest.amount && price.currency === lowest.currency);
  const money = formatMoney(lowest.amount, lowest.currency, locale);
  return same ? money : t.from(money);
}

function facts(
  topic: Pick<PublicTopic, 'durationMinutes' | 'price' | 'priceVariants'> & { places?: Place[]; durations?: number[] },
  lang: Lang,
  locale: FormatLocale,
  t: Strings,
): SafeHtml {
  const price = priceLabel(topic, locale, t);
  // Several lengths read as "15 / 30 / 60 min".
  const lengths = topic.durations && topic.durations.length > 1 ? topic.durations.join(' / ') : String(topic.durationMinutes);
  return html`<ul class="facts">
<li>${lengths} ${t.minutes}</li>
${topic.places ? html`<li>${topic.places.map((place) => PLACE_LABELS[lang][place]).join(' · ')}</li>` : ''}
<li>${price ?? t.free}</li>
</ul>`;
}

/** Every language the page speaks, each named in itself; the current one marked, not linked. */
function langSwitch(lang: Lang, t: Strings): SafeHtml {
  return html`<nav class="lang" aria-label="${t.language}"><ul>${LANGS.map((code) =>
    code === lang
      ? html`<li><span lang="${code}" aria-current="true">${LANGUAGE_NAMES[code]}</span></li>`
      : html`<li><a href="?lang=${code}" hreflang="${code}" lang="${code}">${LANGUAGE_NAMES[code]}</a></li>`,
  )}</ul></nav>`;
}

function optionalMark(required: boolean, t: Strings): SafeHtml {
  return required ? html`` : html` <span class="opt">${t.optional}</span>`;
}

function textField(
  name: string,
  label: string,
  t: Strings,
  options: { type?: string; required?: boolean; keepOptionalMark?: boolean; autocomplete?: string; multiline?: boolean; maxLength?: number } = {},
): SafeHtml {
  const id = `f-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  const required = options.required ?? false;
  // A field the script makes required or optional as other choices change: both states in the markup.
  const mark = options.keepOptionalMark ? html` <span class="opt"${required ? html` hidden` : ''}>${t.optional}</span>` : optionalMark(required, t);
  const control = options.multiline
    ? html`<textarea id="${id}" name="${name}" rows="3" maxlength="${options.maxLength ?? 5000}" ${required ? html`required` : ''} aria-describedby="${id}-error"></textarea>`
    : html`<input id="${id}" name="${name}" type="${options.type ?? 'text'}" maxlength="${options.maxLength ?? 200}" ${options.autocomplete ? html`autocomplete="${options.autocomplete}"` : ''} ${required ? html`required` : ''} aria-describedby="${id}-error">`;
  return html`<div class="field"><label for="${id}">${label}${mark}</label>${control}<p class="field-error" id="${id}-error"></p></div>`;
}

/**
 * A question that applies only when an earlier answer has a value: the field says so in a
 * hint (the page without its script shows every question), and the script hides it until it
 * applies. The server decides in the end (form.ts applicableQuestions).
 */
function conditional(field: FormField, all: readonly FormField[], t: Strings, control: SafeHtml): SafeHtml {
  if (!field.showIf) return control;
  const target = all.find((other) => other.key === field.showIf!.key);
  const equals = field.showIf.equals;
  const value = typeof equals === 'boolean' ? (equals ? t.yes : t.no) : String(equals);
  const hint = t.showIfHint(target?.label ?? field.showIf.key, value);
  return html`<div class="conditional" data-show-if-key="${field.showIf.key}" data-show-if-equals="${JSON.stringify(equals)}">${control}<p class="hint show-if-hint">${hint}</p></div>`;
}

/** A topic's question as its type asks: a line, a text area, a choice of options, a checkbox, an address, a number, a date (named `form.<key>`). */
function questionField(field: FormField, t: Strings, all: readonly FormField[] = [], optionLabels?: readonly string[]): SafeHtml {
  return conditional(field, all, t, questionControl(field, t, optionLabels));
}

function questionControl(field: FormField, t: Strings, optionLabels?: readonly string[]): SafeHtml {
  const name = `form.${field.key}`;
  const id = `f-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  const type = field.type ?? 'text';
  if (type === 'email') return textField(name, field.label, t, { type: 'email', required: field.required, maxLength: 320, autocomplete: 'off' });
  if (type === 'phone') return textField(name, field.label, t, { type: 'tel', required: field.required, maxLength: 16 });
  if (type === 'date') return textField(name, field.label, t, { type: 'date', required: field.required, maxLength: 10 });
  if (type === 'number') {
    const bounds = html`${field.min !== undefined ? html` min="${String(field.min)}"` : ''}${field.max !== undefined ? html` max="${String(field.max)}"` : ''}`;
    return html`<div class="field"><label for="${id}">${field.label}${optionalMark(field.required, t)}</label><input id="${id}" name="${name}" type="number" step="any" inputmode="decimal"${bounds} ${field.required ? html`required` : ''} aria-describedby="${id}-error"><p class="field-error" id="${id}-error"></p></div>`;
  }
  if (type === 'multiselect') {
    // A group of tick boxes under one name: the script sends the ticked ones as an array.
    return html`<fieldset class="choices" id="${id}" data-multi="${name}" aria-describedby="${id}-error"><legend>${field.label}${optionalMark(field.required, t)}</legend>
${(field.options ?? []).map((option) => html`<label class="choice"><input type="checkbox" name="${name}" value="${option}"> <span>${option}</span></label>`)}
<p class="field-error" id="${id}-error"></p></fieldset>`;
  }
  if (type === 'textarea') return textField(name, field.label, t, { required: field.required, multiline: true, maxLength: 5000 });
  if (type === 'select') {
    const control = html`<select id="${id}" name="${name}" ${field.required ? html`required` : ''} aria-describedby="${id}-error"><option value="">—</option>${(field.options ?? []).map((option, index) => html`<option value="${option}">${optionLabels?.[index] ?? option}</option>`)}</select>`;
    return html`<div class="field"><label for="${id}">${field.label}${optionalMark(field.required, t)}</label>${control}<p class="field-error" id="${id}-error"></p></div>`;
  }
  if (type === 'checkbox') {
    return html`<div class="field"><label class="choice" for="${id}"><input id="${id}" name="${name}" type="checkbox" value="true" ${field.required ? html`required` : ''} aria-describedby="${id}-error"> <span>${field.label}${optionalMark(field.required, t)}</span></label><p class="field-error" id="${id}-error"></p></div>`;
  }
  return textField(name, field.label, t, { required: field.required, maxLength: 1000 });
}

/** A price choice for one length carries it (`data-minutes`): the script offers it only with that length. */
type ChoiceOption = { value: string; label: string; minutes?: number | undefined };

function choiceGroup(name: string, legend: string, options: ChoiceOption[]): SafeHtml {
  const minutes = (option: ChoiceOption) => (option.minutes === undefined ? '' : html` data-minutes="${String(option.minutes)}"`);
  if (options.length === 1) return html`<input type="hidden" name="${name}" value="${options[0]!.value}"${minutes(options[0]!)}>`;
  return html`<fieldset class="choices" aria-describedby="f-${name}-error"><legend>${legend}</legend>
${options.map((option, index) => html`<label class="choice"><input type="radio" name="${name}" value="${option.value}"${minutes(option)} ${index === 0 ? html`checked` : ''} required> <span>${option.label}</span></label>`)}
<p class="field-error" id="f-${name}-error"></p></fieldset>`;
}

/**
 * The topic's own price as a choice beside its variants, unless a variant already costs the
 * same: two options at one price read as a mistake, and the variant names what it is.
 */
function baseOption(topic: PublicTopic, locale: FormatLocale): { value: string; label: string } | null {
  const base = topic.price;
  if (base === null || topic.priceVariants.some((variant) => variant.price.amount === base.amount && variant.price.currency === base.currency)) return null;
  return { value: '', label: `${topic.name} — ${formatMoney(base.amount, base.currency, locale)}` };
}

/**
 * What "Continue to payment" shows for each price choice (the radio's value: '' for the
 * topic's own price, else the variant's uuid), formatted here so page and e-mail agree.
 */
function totalsOf(topic: PublicTopic, locale: FormatLocale): Record<string, string> {
  const totals: Record<string, string> = {};
  if (topic.price) totals[''] = formatMoney(topic.price.amount, topic.price.currency, locale);
  for (const variant of topic.priceVariants) totals[variant.uuid] = formatMoney(variant.price.amount, variant.price.currency, locale);
  return totals;
}

/** `GET /book/{username}/{topicUuid}` and `GET /book/teams/{teamUuid}/{topicUuid}`. */
export function renderBookingPage(view: BookingPageView): SafeHtml {
  const { lang, topic } = view;
  const t = STRINGS[lang];
  const paid = isPaidTopic(topic);
  const base = baseOption(topic, view.locale);
  const variantOptions = topic.priceVariants.map((variant) => ({
    value: variant.uuid,
    label: `${variant.name} — ${formatMoney(variant.price.amount, variant.price.currency, view.locale)}`,
    minutes: variant.durationMinutes,
  }));
  const priceOptions = base ? [base, ...variantOptions] : variantOptions;
  const totals = paid ? totalsOf(topic, view.locale) : {};
  // The first choice is the checked one; without variants, the topic's own price.
  const firstTotal = totals[priceOptions[0]?.value ?? ''] ?? null;
  // A topic the host approves takes a request, not a booking (and nothing is paid before the approval).
  const submitLabel = topic.requiresApproval ? t.requestBooking : paid ? t.confirmPay : t.confirm;
  const config = {
    lang,
    strings: clientStrings(lang),
    topic: topic.uuid,
    username: view.username,
    team: view.team,
    timezone: view.timezone,
    fallbackTimezone: view.fallbackTimezone,
    timezoneError: view.timezoneError !== null,
    paid,
    embedOrigin: view.embedOrigin,
    singleUseToken: view.singleUseToken ?? null,
    roomPlaces: view.roomPlaces,
    // A topic that requires a phone keeps it required whatever the place.
    phoneCallNeedsNumber: !topic.phoneRequired && (view.phoneCallNeedsNumber ?? false),
    totals,
    durationMinutes: topic.durationMinutes,
  };
  const body = html`<main id="booking" class="page${view.embedOrigin ? ' embedded' : ''}" data-config="${JSON.stringify(config)}">
${view.embedOrigin ? '' : langSwitch(lang, t)}
<header class="topic">
${brandLine(view.branding, view.accountName, view.hostLabel ? html` · ${view.hostLabel}` : '')}
<h1>${topic.name}</h1>
${facts(topic, lang, view.locale, t)}
${topic.description ? html`<p class="description">${topic.description}</p>` : ''}
</header>
<noscript><p class="notice">${t.noscript}</p></noscript>
<div id="alert" class="alert" role="alert" aria-live="assertive"></div>
<section id="step-time" class="step" aria-labelledby="h-day">
${
  topic.durations.length > 1
    ? html`<fieldset class="choices durations" id="durations"><legend>${t.duration}</legend>
${topic.durations.map((minutes) => html`<label class="choice"><input type="radio" name="duration" value="${String(minutes)}" ${minutes === topic.durationMinutes ? html`checked` : ''}> <span>${String(minutes)} ${t.minutes}</span></label>`)}
</fieldset>`
    : ''
}
${calendarMarkup(t, {
  heading: html`<h2 id="h-day">${t.chooseDay}</h2>
`,
  level: 2,
  // On a phone the month comes first, then the zone and the 12/24-hour switch, then the day's times;
  // on a wider screen the zone and the switch sit beside the month, above the times (booking.css).
  beforeTimes: html`<div class="tz field">
<label for="tz">${t.timezone}</label>
<input id="tz" name="tz" type="text" role="combobox" aria-autocomplete="list" aria-expanded="false" aria-controls="tz-options" autocomplete="off" spellcheck="false" value="${view.timezone ?? ''}" aria-describedby="tz-now tz-hint tz-error"${view.timezoneError ? html` aria-invalid="true"` : ''}>
<ul id="tz-options" class="tz-options" role="listbox" aria-label="${t.timezone}" hidden></ul>
<p class="tz-now" id="tz-now"></p>
<p class="field-error" id="tz-error" role="status">${view.timezoneError ? t.tzLinkUnknown(view.timezoneError) : ''}</p>
<p class="hint" id="tz-hint">${t.timezoneHint}</p>
</div>
${hourSwitch(t)}
`,
})}
</section>
<form id="details" class="step details" hidden>
<h2 id="h-details" tabindex="-1">${t.yourDetails}</h2>
<p class="selected"><span>${t.selected}:</span> <strong id="selected-label"></strong> <button type="button" id="change-time" class="link">${t.changeTime}</button></p>
${textField('name', t.name, t, { required: true, autocomplete: 'name' })}
${textField('email', t.email, t, { type: 'email', required: true, autocomplete: 'email', maxLength: 320 })}
${textField('phone', t.phone, t, {
  type: 'tel',
  // Required at first when the phone call is the place checked first (the script then follows the chosen place); both marks stay in the markup for it.
  required: topic.phoneRequired || (view.phoneCallNeedsNumber === true && topic.places[0] === 'phone-call'),
  keepOptionalMark: !topic.phoneRequired && view.phoneCallNeedsNumber === true,
  autocomplete: 'tel',
  maxLength: 50,
})}
${choiceGroup(
  'place',
  t.place,
  topic.places.map((place) => ({ value: place, label: PLACE_LABELS[lang][place] })),
)}
<p class="hint" id="place-note" hidden></p>
${topic.priceVariants.length > 0 ? choiceGroup('priceVariant', t.priceVariant, priceOptions) : ''}
${topic.form.map((field) => questionField(field, t, topic.form, view.optionLabels?.[field.key]))}
${
  topic.allowGuests
    ? html`<div class="field"><label for="f-guests">${t.guests}${optionalMark(false, t)}</label><textarea id="f-guests" name="guests" rows="2" maxlength="3300" autocomplete="off" aria-describedby="f-guests-hint f-guests-error"></textarea><p class="hint" id="f-guests-hint">${t.guestsHint}</p><p class="field-error" id="f-guests-error"></p></div>`
    : ''
}
${textField('note', t.note, t, { multiline: true })}
${
  paid
    ? html`${textField('discount', t.discount, t, { maxLength: 100, autocomplete: 'off' })}
<p class="hint" id="discount-status" aria-live="polite"></p>
<details class="invoice"><summary>${t.invoice}</summary>
${textField('invoiceName', t.invoiceName, t, { autocomplete: 'organization', maxLength: 500 })}
${textField('invoiceAddress', t.invoiceAddress, t, { autocomplete: 'street-address', maxLength: 500 })}
${textField('invoicePostalCode', t.invoicePostalCode, t, { autocomplete: 'postal-code', maxLength: 50 })}
${textField('invoiceCity', t.invoiceCity, t, { autocomplete: 'address-level2' })}
${textField('invoiceTaxNumber', t.invoiceTaxNumber, t, { maxLength: 100 })}
</details>
${choiceGroup(
  'gateway',
  t.gateway,
  view.gateways.map((code) => ({ value: code, label: GATEWAY_LABELS[lang][code] })),
)}`
    : ''
}
<div class="hp" aria-hidden="true"><label for="f-website">${t.honeypot}</label><input id="f-website" name="website" type="text" tabindex="-1" autocomplete="off"></div>
<button type="submit" id="submit" class="primary" data-label="${submitLabel}">${paid && firstTotal ? `${submitLabel} · ${firstTotal}` : submitLabel}</button>
</form>
<section id="done" class="step done" hidden aria-labelledby="h-done">
<h2 id="h-done" tabindex="-1"></h2>
<p id="done-text"></p>
<dl id="done-details" class="summary"></dl>
${topic.requiresApproval ? '' : businessMessage(view.confirmationMessage ?? '', 'done-message')}
</section>
</main>`;
  return htmlDocument({
    lang,
    title: `${topic.name} · ${brandName(view.branding, view.accountName)}`,
    body,
    stylesheets: brandedStylesheets(view.stylesheet, view.branding),
    scripts: [view.script],
  });
}

/** `GET /book/{username}`: the host's public topics, each linking to its page. */
export function renderTopicList(view: TopicListView): SafeHtml {
  const t = STRINGS[view.lang];
  const body = html`<main class="page">
${langSwitch(view.lang, t)}
<header class="topic">${brandLine(view.branding, view.accountName)}<h1>${t.bookWith(view.hostName)}</h1></header>
${
  view.topics.length === 0
    ? html`<p>${t.topicsEmpty}</p>`
    : html`<ul class="topic-list">${view.topics.map(
        (topic) =>
          html`<li><a class="topic-card" href="${topic.url}"><span class="topic-name">${topic.name}</span>${facts(topic, view.lang, view.locale, t)}${topic.description ? html`<span class="description">${topic.description}</span>` : ''}</a></li>`,
      )}</ul>`
}
</main>`;
  return htmlDocument({ lang: view.lang, title: t.bookWith(view.hostName), body, stylesheets: brandedStylesheets(view.stylesheet, view.branding) });
}

/** `GET /book/once/{token}` of a link used, expired or unknown: 410, said kindly. */
export function renderSingleUseGone(lang: Lang, stylesheet: string): SafeHtml {
  const t = STRINGS[lang];
  return htmlDocument({ lang, title: t.onceGoneTitle, body: html`<main class="page"><h1>${t.onceGoneTitle}</h1><p>${t.onceGone}</p></main>`, stylesheets: [stylesheet] });
}
