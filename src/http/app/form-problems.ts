import type { FieldError } from '../../domain/errors.js';
import { type SafeHtml, html } from '../pages/html.js';
import type { AppStrings } from './strings.js';

/**
 * A form's problems, each under the field it is about, in the page's words: the use cases'
 * messages are English and name API paths, so each field says what its page expects instead
 * (`messages[field]`), and a problem of no field of the form shows as "Check this field" at the top.
 */
export interface FormProblems {
  /** By the field's input id. */
  byField: ReadonlyMap<string, string>;
  /** Problems of no field on the form (a general refusal), already in the page's words. */
  general: readonly string[];
}

export const NO_PROBLEMS: FormProblems = { byField: new Map(), general: [] };

/**
 * `fieldOf` names the input a path belongs to (`/name` → `f-key-name`), or null; `messages`
 * says, per input id, what to tell the member.
 * `formProblems(t, [{ path: '/url', message: '…' }], (p) => (p === '/url' ? 'f-url' : null), { 'f-url': 'Enter a public https address' })`
 * → `{ byField: Map { 'f-url' => 'Enter a public https address' }, general: [] }`.
 */
export function formProblems(t: AppStrings, errors: readonly FieldError[], fieldOf: (path: string) => string | null, messages: Readonly<Record<string, string>>): FormProblems {
  const byField = new Map<string, string>();
  const general: string[] = [];
  for (const error of errors) {
    const id = fieldOf(error.path);
    if (id !== null) byField.set(id, messages[id] ?? t.fieldInvalid);
    else if (!general.includes(t.fieldInvalid)) general.push(t.fieldInvalid);
  }
  return { byField, general };
}

/** The summary above a form: "Please correct these", each problem a link to its field. */
export function problemSummary(t: AppStrings, problems: FormProblems, labels: Readonly<Record<string, string>>): SafeHtml {
  if (problems.byField.size === 0 && problems.general.length === 0) return html``;
  return html`<div class="alert" role="alert"><p>${t.fixErrors}</p><ul>${[...problems.byField].map(
    ([id, message]) => html`<li><a href="#${id}">${labels[id] ?? ''}: ${message}</a></li>`,
  )}${problems.general.map((message) => html`<li>${message}</li>`)}</ul></div>`;
}

/** The attributes of an input with a problem (pointing at its message), or none. */
export function invalidAttributes(problems: FormProblems, id: string, hintId?: string): SafeHtml {
  const described = [problems.byField.has(id) ? `${id}-error` : null, hintId ?? null].filter((part) => part !== null).join(' ');
  return html`${problems.byField.has(id) ? html` aria-invalid="true"` : ''}${described ? html` aria-describedby="${described}"` : ''}`;
}

/** The message under an input with a problem. */
export function fieldProblem(problems: FormProblems, id: string): SafeHtml {
  const message = problems.byField.get(id);
  return message === undefined ? html`` : html`<p class="field-error" id="${id}-error">${message}</p>`;
}
