import type { FieldError } from './errors.js';
import { isMultiLineText, isSingleLineText } from './text.js';

/**
 * A topic's booking questions and the rules for a participant's answers.
 *
 * - `text`: one line (a company name); `textarea`: may span lines (what to talk about);
 * - `select`: one of `options` (exactly as listed); `checkbox`: `true` or `false` (a
 *   required checkbox must be ticked, as a consent box would be).
 *
 * Topics stored before questions had types read as `text` (`parseStoredFormFields`).
 *
 * `validateFormAnswers({ size: '10-50', extra: 1 }, [{ key: 'size', type: 'select', options: ['1-9', '10-50'], … }])`
 * → `[{ path: '/form/extra', message: 'is not a question of the meeting topic' }]`.
 */
export const FORM_FIELD_TYPES = ['text', 'textarea', 'select', 'checkbox'] as const;
export type FormFieldType = (typeof FORM_FIELD_TYPES)[number];

export interface FormField {
  key: string;
  label: string;
  required: boolean;
  type: FormFieldType;
  /** `select` only: the choices, in the order shown. */
  options?: string[];
}

export interface FormFieldInput {
  key: string;
  label: string;
  required?: boolean | undefined;
  type?: FormFieldType | undefined;
  options?: string[] | undefined;
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
    return normalized;
  });
}

/** Questions as stored: the JSON of a topic, older ones without `type`. */
export function parseStoredFormFields(stored: readonly Partial<FormField>[]): FormField[] {
  return stored.map((field) => {
    const parsed: FormField = { key: String(field.key), label: String(field.label ?? field.key), required: field.required === true, type: field.type ?? 'text' };
    if (Array.isArray(field.options)) parsed.options = field.options;
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
    if (field.type === 'select') {
      const options = field.options ?? [];
      if (options.length === 0) errors.push({ path: `${at}/options`, message: 'must list at least one choice for a select question' });
      if (options.length > FORM_LIMITS.options) errors.push({ path: `${at}/options`, message: `must list at most ${FORM_LIMITS.options} choices` });
      const seen = new Set<string>();
      options.forEach((option, optionIndex) => {
        if (option === '') errors.push({ path: `${at}/options/${optionIndex}`, message: 'must not be empty' });
        else if (seen.has(option)) errors.push({ path: `${at}/options/${optionIndex}`, message: 'duplicates an earlier choice' });
        seen.add(option);
      });
    } else if (field.options !== undefined) {
      errors.push({ path: `${at}/options`, message: 'is only for select questions' });
    }
  });
  return errors;
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
  for (const question of questions) {
    const path = `/form/${question.key}`;
    const answer = answers[question.key];
    if (question.type === 'checkbox') {
      if (answer !== undefined && answer !== null && typeof answer !== 'boolean') errors.push({ path, message: 'must be true or false' });
      else if (question.required && answer !== true) errors.push({ path, message: `must be ticked (${question.label})` });
      continue;
    }
    if (isBlank(answer)) {
      if (question.required) errors.push({ path, message: `is required (${question.label})` });
      continue;
    }
    if (typeof answer !== 'string') {
      errors.push({ path, message: 'must be a string' });
      continue;
    }
    if (question.type === 'select') {
      if (!(question.options ?? []).includes(answer.trim())) errors.push({ path, message: `must be one of: ${(question.options ?? []).join(', ')}` });
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
 * Valid answers as stored: strings trimmed, blank or null optional answers left out, in the
 * order of the questions. `cleanFormAnswers({ a: ' x ', b: '' }, …)` → `{ a: 'x' }`.
 */
export function cleanFormAnswers(answers: Record<string, unknown>, questions: readonly FormField[]): Record<string, unknown> {
  const cleaned: Record<string, unknown> = {};
  for (const question of questions) {
    const answer = answers[question.key];
    if (question.type === 'checkbox') {
      if (typeof answer === 'boolean') cleaned[question.key] = answer;
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
  }
  for (const [key, answer] of Object.entries(answers)) {
    if (known.has(key)) continue;
    if (typeof answer === 'boolean' || (typeof answer === 'string' && answer.trim() !== '')) result.push({ label: key, type: 'textarea', answer });
    else if (typeof answer === 'number') result.push({ label: key, type: 'text', answer: String(answer) });
  }
  return result;
}
