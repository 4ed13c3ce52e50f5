import type { FieldError } from './errors.js';
import type { FormField } from './form.js';
import { isLang, LANGS, type Lang } from './lang.js';
import { isMultiLineText, isSingleLineText } from './text.js';

/**
 * A topic's own words in another language: `translations: { "pl": { "name": "Konsultacja",
 * "form": { "company": { "label": "Firma" } } } }`. Every field is optional: what is not
 * translated shows the topic's own words. The languages are LANGS (domain/meeting.ts), the
 * one list a new language is added to.
 */
export interface TopicTranslation {
  name?: string | undefined;
  description?: string | undefined;
  confirmationMessage?: string | undefined;
  form?: Readonly<Record<string, { label?: string | undefined; options?: string[] | undefined }>> | undefined;
}

export type TopicTranslations = Partial<Record<Lang, TopicTranslation>>;

export const CONFIRMATION_MESSAGE_MAX = 2000;

const pointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * The rules of `translations` beyond its JSON shape: only supported languages, only the
 * topic's own question keys, as many options as the question has, text without control
 * characters. `validateTopicTranslations({ it: {} }, [])` → an error at `/translations/it`
 * while Italian is not in LANGS.
 */
export function validateTopicTranslations(translations: Readonly<Record<string, TopicTranslation>>, form: readonly FormField[]): FieldError[] {
  const errors: FieldError[] = [];
  const questions = new Map(form.map((field) => [field.key, field]));
  for (const [lang, translation] of Object.entries(translations)) {
    const at = `/translations/${pointer(lang)}`;
    if (!isLang(lang)) {
      errors.push({ path: at, message: `is not a supported language (supported: ${LANGS.join(', ')})` });
      continue;
    }
    if (translation.name !== undefined && (translation.name.trim() === '' || !isSingleLineText(translation.name))) {
      errors.push({ path: `${at}/name`, message: 'must be one line of text, not blank' });
    }
    if (translation.description !== undefined && !isMultiLineText(translation.description)) errors.push({ path: `${at}/description`, message: 'must be plain text' });
    if (translation.confirmationMessage !== undefined) errors.push(...checkConfirmationMessage(translation.confirmationMessage, `${at}/confirmationMessage`));
    for (const [key, question] of Object.entries(translation.form ?? {})) {
      const field = questions.get(key);
      const fieldAt = `${at}/form/${pointer(key)}`;
      if (!field) {
        errors.push({ path: fieldAt, message: 'is not a question of the topic' });
        continue;
      }
      if (question.label !== undefined && (question.label.trim() === '' || !isSingleLineText(question.label))) {
        errors.push({ path: `${fieldAt}/label`, message: 'must be one line of text, not blank' });
      }
      if (question.options !== undefined) {
        const count = field.options?.length ?? 0;
        if (question.options.length !== count) errors.push({ path: `${fieldAt}/options`, message: `must have ${count} options, one per option of the question, in its order` });
        question.options.forEach((option, index) => {
          if (option.trim() === '' || !isSingleLineText(option)) errors.push({ path: `${fieldAt}/options/${index}`, message: 'must be one line of text, not blank' });
        });
      }
    }
  }
  return errors;
}

/** ≤ 2,000 characters of plain text (line breaks allowed). */
export function checkConfirmationMessage(message: string, path: string): FieldError[] {
  if ([...message].length > CONFIRMATION_MESSAGE_MAX) return [{ path, message: `must be at most ${CONFIRMATION_MESSAGE_MAX} characters` }];
  if (!isMultiLineText(message)) return [{ path, message: 'must be plain text without control characters' }];
  return [];
}

/** The words of a topic that a participant reads. */
export interface TopicWords {
  name: string;
  description: string;
  confirmationMessage: string;
  form: FormField[];
}

/**
 * The topic's words in `lang`: each translated field where there is one, else the topic's
 * own. `translateTopic({ name: 'Intro', description: 'Hi', confirmationMessage: '', form: [],
 * translations: { pl: { name: 'Wstęp' } } }, 'pl')` → name 'Wstęp', description 'Hi'.
 * A translation's options apply only while their count still matches the question's (a
 * question edited after it was translated shows its own options rather than wrong ones).
 */
export function translateTopic(topic: TopicWords & { translations: TopicTranslations }, lang: Lang): TopicWords {
  const translation = topic.translations[lang];
  const own = { name: topic.name, description: topic.description, confirmationMessage: topic.confirmationMessage, form: topic.form };
  if (!translation) return own;
  const nonBlank = (value: string | undefined, fallback: string) => (value !== undefined && value.trim() !== '' ? value : fallback);
  return {
    name: nonBlank(translation.name, topic.name),
    description: nonBlank(translation.description, topic.description),
    confirmationMessage: nonBlank(translation.confirmationMessage, topic.confirmationMessage),
    form: topic.form.map((field) => {
      const words = translation.form?.[field.key];
      if (!words) return field;
      const translated: FormField = { ...field, label: nonBlank(words.label, field.label) };
      if (field.options && words.options && words.options.length === field.options.length) translated.options = [...words.options];
      return translated;
    }),
  };
}
