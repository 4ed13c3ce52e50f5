import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { isEmailAddress } from './account.js';
import type { FieldError } from './errors.js';
import { isMultiLineText, isSingleLineText } from './text.js';

/**
 * A topic's booking questions and the rules for a participant's answers.
 *
 * - `text`: one line (a company name); `textarea`: may span lines (what to talk about);
 * - `select`: one of `options` (exactly as listed); `checkbox`: `true` or `false` (a
 *   required checkbox must be ticked, as a consent box would be);
 * - `email`: an e-mail address; `phone`: E.164 (`+48601234567`), as the SMS reminders take it;
 * - `number`: a number within `min`..`max` (a numeric string is read as one, as a form posts it);
 * - `multiselect`: an array of distinct `options` (required: at least one); `date`: `YYYY-MM-DD`.
 *
 * `showIf: { key, equals }` makes a question apply only when an earlier question applies and
 * its answer equals the value (for a multiselect: includes it). A question that does not
 * apply is not required, and an answer to it is refused: the server, not the page's script,
 * decides what was asked.
 *
 * Topics stored before questions had types read as `text` (`parseStoredFormFields`).
 *
 * `validateFormAnswers({ size: '10-50', extra: 1 }, [{ key: 'size', type: 'select', options: ['1-9', '10-50'], … }])`
 * → `[{ path: '/form/extra', message: 'is not a question of the meeting topic' }]`.
 */
export const FORM_FIELD_TYPES = ['text', 'textarea', 'select', 'checkbox', 'email', 'phone', 'number', 'multiselect', 'date'] as const;
export type FormFieldType = (typeof FORM_FIELD_TYPES)[number];

/** The types whose questions list `options`. */
const CHOICE_TYPES: readonly FormFieldType[] = ['select', 'multiselect'];

/** A condition on an earlier question's answer: `{ key: 'size', equals: '51+' }`. */
export interface ShowIf {
  key: string;
  equals: string | number | boolean;
}

export interface FormField {
  key: string;
  label: string;
  required: boolean;
  type: FormFieldType;
  /** `select` and `multiselect` only: the choices, in the order shown. */
  options?: string[];
  /** `number` only: the smallest and largest answer taken. */
  min?: number;
  max?: number;
  /** Asked only when an earlier question's answer is this value. */
  showIf?: ShowIf;
}

export interface FormFieldInput {
  key: string;
  label: string;
  required?: boolean | undefined;
  type?: FormFieldType | undefined;
  options?: string[] | undefined;
  min?: number | undefined;
  max?: number | undefined;
  showIf?: ShowIf | undefined;
}

export const FORM_LIMITS = {
  options: 50,
  optionLength: 200,
  textAnswer: 1000,
  textareaAnswer: 5000,
} as const;

/** A request's questions with defaults filled in: `type` text, `required` false, labels and options trimmed. */
export function normalizeFormFields(input: readonly FormFieldInput[]): FormField[] {
  return input.map((field) => {
    const type = field.type ?? 'text';
    const normalized: FormField = { key: field.key, label: field.label.trim(), required: field.required ?? false, type };
    if (field.options !== undefined) normalized.options = field.options.map((option) => option.trim());
    if (field.min !== undefined) normalized.min = field.min;
    if (field.max !== undefined) normalized.max = field.max;
    if (field.showIf !== undefined)
      normalized.showIf = { key: field.showIf.key, equals: typeof field.showIf.equals === 'string' ? field.showIf.equals.trim() : field.showIf.equals };
    return normalized;
  });
}

/** Questions as stored: the JSON of a topic, older ones without `type`. */
export function parseStoredFormFields(stored: readonly Partial<FormField>[]): FormField[] {
  return stored.map((field) => {
    const parsed: FormField = { key: String(field.key), label: String(field.label ?? field.key), required: field.required === true, type: field.type ?? 'text' };
    if (Array.isArray(field.options)) parsed.options = field.options;
    if (typeof field.min === 'number') parsed.min = field.min;
    if (typeof field.max === 'number') parsed.max = field.max;
    if (field.showIf && typeof field.showIf.key === 'string') parsed.showIf = { key: field.showIf.key, equals: field.showIf.equals };
    return parsed;
  });
}

/** Rules for a topic's questions the schema cannot express; paths point into the request's `form`. */
export function validateFormFields(fields: readonly FormField[]): FieldError[] {
  const errors: FieldError[] = [];
  const keys = new Set<string>();
  fields.forEach((field, index) => {
    const at = `/form/${index}`;
    if (keys.has(field.key)) errors.push({ path: `${at}/key`, message: 'duplicates an earlier field' });
    keys.add(field.key);
    if (field.label === '') errors.push({ path: `${at}/label`, message: 'must not be empty' });
    if (CHOICE_TYPES.includes(field.type)) {
      const options = field.options ?? [];
      if (options.length === 0) errors.push({ path: `${at}/options`, message: `must list at least one choice for a ${field.type} question` });
      if (options.length > FORM_LIMITS.options) errors.push({ path: `${at}/options`, message: `must list at most ${FORM_LIMITS.options} choices` });
      const seen = new Set<string>();
      options.forEach((option, optionIndex) => {
        if (option === '') errors.push({ path: `${at}/options/${optionIndex}`, message: 'must not be empty' });
        else if (seen.has(option)) errors.push({ path: `${at}/options/${optionIndex}`, message: 'duplicates an earlier choice' });
        seen.add(option);
      });
    } else if (field.options !== undefined) {
      errors.push({ path: `${at}/options`, message: 'is only for select and multiselect questions' });
    }
    if (field.type !== 'number' && field.min !== undefined) errors.push({ path: `${at}/min`, message: 'is only for number questions' });
    if (field.type !== 'number' && field.max !== undefined) errors.push({ path: `${at}/max`, message: 'is only for number questions' });
    if (field.min !== undefined && field.max !== undefined && field.min > field.max) errors.push({ path: `${at}/max`, message: 'must not be less than min' });
    if (field.showIf) errors.push(...validateShowIf(field.showIf, fields.slice(0, index), `${at}/showIf`));
  });
  return errors;
}

/** A condition names an earlier question (so conditions never loop) and a value that question can answer. */
function validateShowIf(showIf: ShowIf, earlier: readonly FormField[], at: string): FieldError[] {
  const target = earlier.find((field) => field.key === showIf.key);
  if (!target) return [{ path: `${at}/key`, message: `must be the key of an earlier question (earlier: ${earlier.map((field) => field.key).join(', ') || 'none'})` }];
  const value = showIf.equals;
  const fits =
    target.type === 'checkbox'
      ? typeof value === 'boolean'
      : target.type === 'number'
        ? typeof value === 'number'
        : CHOICE_TYPES.includes(target.type)
          ? typeof value === 'string' && (target.options ?? []).includes(value)
          : typeof value === 'string';
  if (!fits) {
    const expected =
      target.type === 'checkbox'
        ? 'true or false'
        : target.type === 'number'
          ? 'a number'
          : CHOICE_TYPES.includes(target.type)
            ? `one of: ${(target.options ?? []).join(', ')}`
            : 'a string';
    return [{ path: `${at}/equals`, message: `must be ${expected} (an answer to ${target.key})` }];
  }
  return [];
}

const E164 = /^\+[1-9]\d{6,14}$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `2027-02-29` is no date; `2028-02-29` is. */
function isCalendarDate(value: string): boolean {
  const match = ISO_DATE.exec(value);
  if (!match) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.getUTCFullYear() === Number(match[1]) && date.getUTCMonth() === Number(match[2]) - 1 && date.getUTCDate() === Number(match[3]);
}

/** A number answer as given (a JSON number, or a numeric string as an HTML form posts it); null when it is no number. */
function readNumber(answer: unknown): number | null {
  if (typeof answer === 'number') return Number.isFinite(answer) ? answer : null;
  if (typeof answer === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(answer)) return Number(answer);
  return null;
}

/**
 * The keys of the questions that apply to these answers, in order: a question with `showIf`
 * applies when the question it names applies and was answered with the value.
 * `applicableQuestions({ size: '51+' }, [size, { key: 'budget', showIf: { key: 'size', equals: '51+' } }])` → `Set { 'size', 'budget' }`.
 */
export function applicableQuestions(answers: Record<string, unknown>, questions: readonly FormField[]): Set<string> {
  const applies = new Set<string>();
  for (const question of questions) {
    if (!question.showIf) {
      applies.add(question.key);
      continue;
    }
    const { key, equals } = question.showIf;
    if (!applies.has(key)) continue;
    const target = questions.find((field) => field.key === key);
    const answer = answers[key];
    const given = target?.type === 'number' ? readNumber(answer) : target?.type === 'checkbox' ? answer === true : typeof answer === 'string' ? answer.trim() : answer;
    const matches = Array.isArray(answer) ? answer.some((item) => typeof item === 'string' && item.trim() === equals) : given === equals;
    if (matches) applies.add(question.key);
  }
  return applies;
}

const isBlank = (answer: unknown) => answer === undefined || answer === null || (typeof answer === 'string' && answer.trim() === '');

/**
 * A booking's answers against the topic's questions, every problem at once, each at
 * `/form/<key>`: keys that are no question, answers of the wrong type (text on one line,
 * a select's answer one of its options, a checkbox a boolean), required ones missing.
 */
export function validateFormAnswers(answers: Record<string, unknown>, questions: readonly FormField[]): FieldError[] {
  const errors: FieldError[] = [];
  const byKey = new Map(questions.map((question) => [question.key, question]));
  for (const key of Object.keys(answers)) {
    if (!byKey.has(key)) errors.push({ path: `/form/${key}`, message: `is not a question of the meeting topic (questions: ${questions.map((q) => q.key).join(', ') || 'none'})` });
  }
  const applies = applicableQuestions(answers, questions);
  for (const question of questions) {
    const path = `/form/${question.key}`;
    const answer = answers[question.key];
    if (!applies.has(question.key)) {
      // Unticked boxes and blank fields are what a page without its script posts for questions it could not hide.
      const unanswered = isBlank(answer) || answer === false || (Array.isArray(answer) && answer.length === 0);
      if (!unanswered) errors.push({ path, message: `does not apply: asked only when ${question.showIf!.key} is ${JSON.stringify(question.showIf!.equals)}` });
      continue;
    }
    if (question.type === 'checkbox') {
      if (answer !== undefined && answer !== null && typeof answer !== 'boolean') errors.push({ path, message: 'must be true or false' });
      else if (question.required && answer !== true) errors.push({ path, message: `must be ticked (${question.label})` });
      continue;
    }
    if (isBlank(answer) || (question.type === 'multiselect' && Array.isArray(answer) && answer.length === 0)) {
      if (question.required) errors.push({ path, message: `is required (${question.label})` });
      continue;
    }
    if (question.type === 'multiselect') {
      const options = question.options ?? [];
      if (!Array.isArray(answer) || !answer.every((item) => typeof item === 'string')) errors.push({ path, message: 'must be an array of the options' });
      else if (!answer.every((item) => options.includes(item.trim()))) errors.push({ path, message: `must list only: ${options.join(', ')}` });
      else if (new Set(answer.map((item) => item.trim())).size !== answer.length) errors.push({ path, message: 'must not list an option twice' });
      continue;
    }
    if (question.type === 'number') {
      const value = readNumber(answer);
      if (value === null) errors.push({ path, message: 'must be a number' });
      else if ((question.min !== undefined && value < question.min) || (question.max !== undefined && value > question.max)) {
        errors.push({ path, message: `must be from ${question.min ?? '−∞'} to ${question.max ?? '∞'}` });
      }
      continue;
    }
    if (typeof answer !== 'string') {
      errors.push({ path, message: 'must be a string' });
      continue;
    }
    if (question.type === 'select') {
      if (!(question.options ?? []).includes(answer.trim())) errors.push({ path, message: `must be one of: ${(question.options ?? []).join(', ')}` });
    } else if (question.type === 'email') {
      if (!isEmailAddress(answer.trim())) errors.push({ path, message: 'must be an e-mail address' });
    } else if (question.type === 'phone') {
      const trimmed = answer.trim();
      if (!E164.test(trimmed) || !parsePhoneNumberFromString(trimmed)?.isPossible()) errors.push({ path, message: 'must be a phone number in E.164 format, e.g. +48601234567' });
    } else if (question.type === 'date') {
      if (!isCalendarDate(answer.trim())) errors.push({ path, message: 'must be a date, YYYY-MM-DD' });
    } else if (question.type === 'textarea') {
      if (!isMultiLineText(answer)) errors.push({ path, message: 'must not contain control characters other than line breaks and tabs' });
      else if (answer.length > FORM_LIMITS.textareaAnswer) errors.push({ path, message: `must be at most ${FORM_LIMITS.textareaAnswer} characters` });
    } else {
      if (!isSingleLineText(answer)) errors.push({ path, message: 'must be one line (no control characters)' });
      else if (answer.length > FORM_LIMITS.textAnswer) errors.push({ path, message: `must be at most ${FORM_LIMITS.textAnswer} characters` });
    }
  }
  return errors;
}

/**
 * Valid answers as stored: strings trimmed, numbers as numbers, a multiselect's choices in the
 * order of its options, blank or null optional answers and questions that do not apply left out, in the
 * order of the questions. `cleanFormAnswers({ a: ' x ', b: '' }, …)` → `{ a: 'x' }`.
 */
export function cleanFormAnswers(answers: Record<string, unknown>, questions: readonly FormField[]): Record<string, unknown> {
  const cleaned: Record<string, unknown> = {};
  const applies = applicableQuestions(answers, questions);
  for (const question of questions) {
    const answer = answers[question.key];
    if (!applies.has(question.key)) continue;
    if (question.type === 'checkbox') {
      if (typeof answer === 'boolean') cleaned[question.key] = answer;
    } else if (question.type === 'multiselect') {
      // In the order of the options, whatever order they were ticked in.
      if (Array.isArray(answer) && answer.length > 0)
        cleaned[question.key] = (question.options ?? []).filter((option) => answer.some((item) => typeof item === 'string' && item.trim() === option));
    } else if (question.type === 'number') {
      const value = readNumber(answer);
      if (value !== null) cleaned[question.key] = value;
    } else if (!isBlank(answer) && typeof answer === 'string') {
      cleaned[question.key] = answer.trim();
    }
  }
  return cleaned;
}

/** One answered question as a message shows it: the label, and the answer as text (`Yes`/`No` for a checkbox). */
export interface AnsweredQuestion {
  label: string;
  type: FormFieldType;
  answer: string | boolean;
}

/**
 * The answers of a meeting in the order of the topic's questions; answers to keys that are
 * no longer questions (the topic changed since) come last under their key.
 */
export function answeredQuestions(answers: Record<string, unknown>, questions: readonly FormField[]): AnsweredQuestion[] {
  const result: AnsweredQuestion[] = [];
  const known = new Set<string>();
  for (const question of questions) {
    known.add(question.key);
    const answer = answers[question.key];
    if (typeof answer === 'boolean' || (typeof answer === 'string' && answer.trim() !== '')) result.push({ label: question.label, type: question.type, answer });
    else if (typeof answer === 'number') result.push({ label: question.label, type: question.type, answer: String(answer) });
    else if (Array.isArray(answer) && answer.length > 0) result.push({ label: question.label, type: question.type, answer: answer.map(String).join(', ') });
  }
  for (const [key, answer] of Object.entries(answers)) {
    if (known.has(key)) continue;
    if (typeof answer === 'boolean' || (typeof answer === 'string' && answer.trim() !== '')) result.push({ label: key, type: 'textarea', answer });
    else if (typeof answer === 'number') result.push({ label: key, type: 'text', answer: String(answer) });
  }
  return result;
}
