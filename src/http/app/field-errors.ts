import type { DomainError, FieldError } from '../../domain/errors.js';
import type { Lang } from '../../domain/meeting.js';
import { type SafeHtml, html } from '../pages/html.js';
import { APP_STRINGS } from './strings.js';

/**
 * The API's field errors in a page's words: a JSON Pointer and an English rule
 * (`/weekly/monday/1: must start before it ends`) become a sentence in the page's language
 * ("Starts after it ends." / "Początek jest po końcu.") shown next to the field it is about,
 * with the form's summary linking to it. A page says which field a path belongs to; a rule
 * this table does not know keeps its English words in English and a plain "check this" in
 * every other language, and never shows the pointer.
 */

/** The rules of the use cases' messages, most specific first: `must start before it ends` → startsAfterEnd. */
const RULES: readonly { pattern: RegExp; key: keyof FieldErrorWords }[] = [
  { pattern: /^must start before it ends$/, key: 'startsAfterEnd' },
  { pattern: /^must be a time HH:MM/, key: 'notATime' },
  { pattern: /^overlaps /, key: 'overlaps' },
  { pattern: /^must be a real calendar date/, key: 'notADate' },
  { pattern: /^duplicates an earlier override$/, key: 'duplicateDate' },
  { pattern: /^must be a valid IANA time zone$/, key: 'notAZone' },
  { pattern: /^is not an allowed field$/, key: 'unknownField' },
];

export interface FieldErrorWords {
  startsAfterEnd: string;
  notATime: string;
  overlaps: string;
  notADate: string;
  duplicateDate: string;
  notAZone: string;
  /** A name the form's schema does not know (a stale page, a hand-made post). */
  unknownField: string;
  /** A rule without words of its own, in a language other than English. */
  checkValue: string;
}

/** One field error in the page's language, without its path. */
export function plainFieldMessage(lang: Lang, error: FieldError): string {
  const words = APP_STRINGS[lang].fieldErrors;
  const rule = RULES.find((candidate) => candidate.pattern.test(error.message));
  if (rule) return words[rule.key];
  return lang === 'en' ? capitalize(error.message) : words.checkValue;
}

/** A refusal of a use case in the page's language: its field errors' words, else its code's. */
export function plainErrorMessage(lang: Lang, error: DomainError): string {
  if (error.errors && error.errors.length > 0) return error.errors.map((fieldError) => plainFieldMessage(lang, fieldError)).join(' ');
  const byCode: Record<string, string | undefined> = APP_STRINGS[lang].errorCodes;
  return byCode[error.code] ?? (lang === 'en' ? error.message : (APP_STRINGS[lang].errorCodes.OTHER ?? error.message));
}

function capitalize(message: string): string {
  const sentence = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

/** Where an error is shown: the field's element id (for the summary's link) and its name as the page labels it. */
export interface FieldPlace {
  id: string;
  label: string;
}

/** A form's errors, each at its field (`place` of its path, null when the page has no such field). */
export interface PlacedErrors {
  /** By field id: the messages shown next to that field. */
  at: ReadonlyMap<string, readonly string[]>;
  /** The summary above the form: each message with its field's label and link. */
  summary: readonly { message: string; place: FieldPlace | null }[];
}

export function placeErrors(lang: Lang, errors: readonly FieldError[], placeOf: (path: string) => FieldPlace | null): PlacedErrors {
  const at = new Map<string, string[]>();
  const summary: { message: string; place: FieldPlace | null }[] = [];
  for (const error of errors) {
    const message = plainFieldMessage(lang, error);
    const place = placeOf(error.path);
    if (place) {
      const messages = at.get(place.id) ?? [];
      // Start and end both wrong on one row are one row's problem: said once.
      if (!messages.includes(message)) messages.push(message);
      at.set(place.id, messages);
    }
    if (!summary.some((entry) => entry.message === message && entry.place?.id === place?.id)) summary.push({ message, place });
  }
  return { at, summary };
}

/** The summary above a form: "Please correct these", each item linking to its field. */
export function errorSummary(lang: Lang, placed: PlacedErrors): SafeHtml {
  if (placed.summary.length === 0) return html``;
  const t = APP_STRINGS[lang];
  return html`<div class="alert" role="alert" id="error-summary"><p>${t.fixErrors}</p><ul>${placed.summary.map((entry) =>
    entry.place ? html`<li><a href="#${entry.place.id}">${entry.place.label}</a>: ${entry.message}</li>` : html`<li>${entry.message}</li>`,
  )}</ul></div>`;
}

/** The id of the message next to a field, for its inputs' aria-describedby. */
export function errorIdOf(fieldId: string): string {
  return `${fieldId}-error`;
}

/** The messages next to one field (nothing when it has none). */
export function fieldErrorText(placed: PlacedErrors, fieldId: string): SafeHtml {
  const messages = placed.at.get(fieldId);
  if (!messages) return html``;
  return html`<p class="field-error" id="${errorIdOf(fieldId)}">${messages.join(' ')}</p>`;
}

/** `aria-invalid` and `aria-describedby` for a field's inputs when it has an error. */
export function invalidAttributes(placed: PlacedErrors, fieldId: string): SafeHtml {
  return placed.at.has(fieldId) ? html` aria-invalid="true" aria-describedby="${errorIdOf(fieldId)}"` : html``;
}
