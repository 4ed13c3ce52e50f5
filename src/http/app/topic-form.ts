import { PLACES, isPlace, type Place } from '../../domain/account.js';
import { ValidationError, type FieldError } from '../../domain/errors.js';
import { FORM_FIELD_TYPES, type FormFieldInput, type FormFieldType } from '../../domain/form.js';
import { LANGS, type Lang } from '../../domain/lang.js';
import { ASSIGNMENTS, type Assignment, type MeetingTopic } from '../../domain/meeting-topic.js';
import { formatMinorUnits, isIso4217Currency, parseDecimalAmount } from '../../domain/money.js';
import { REMINDER_CHANNELS, REMINDER_LIMITS, REMINDER_RECIPIENTS, type Reminder } from '../../domain/reminders.js';
import type { TopicTranslation, TopicTranslations } from '../../domain/topic-translations.js';
import type { CreateTopicInput, UpdateTopicInput } from '../../scheduling/topics/meeting-topics.js';
import { type FormBody, OptionalField, RepeatedField, TextField, Checkbox, field, fields, formSchema } from './forms.js';

/**
 * The topic form (/app/topics/new, /app/topics/{uuid}): every setting of the API's topic, as
 * the page holds it (strings, so an invalid form comes back exactly as typed), read from and
 * turned into the input of createMeetingTopic / updateMeetingTopic. Rows (reminders,
 * questions, price variants) are numbered fields (`reminder.0.minutesBefore`); a pressed
 * button's `op` adds or removes one without a script, as on the availability page.
 */

/** Settings that are one number each: the form's field is named as the API's. */
export const NUMBER_FIELDS = [
  'durationMinutes',
  'slotIntervalMinutes',
  'bufferBeforeMinutes',
  'bufferAfterMinutes',
  'minimumNoticeMinutes',
  'bookingWindowDays',
  'cancellationNoticeMinutes',
  'seats',
  'approvalDeadlineHours',
  'dailyLimit',
  'weeklyLimit',
  'monthlyLimit',
] as const;
export type NumberField = (typeof NUMBER_FIELDS)[number];

/** What an empty number means: the API's default, "the meeting's length" (`duration`), or no limit (null). */
const WHEN_EMPTY: Record<NumberField, number | 'duration' | null | 'required'> = {
  durationMinutes: 'required',
  slotIntervalMinutes: 'duration',
  bufferBeforeMinutes: 0,
  bufferAfterMinutes: 0,
  minimumNoticeMinutes: 0,
  bookingWindowDays: 60,
  cancellationNoticeMinutes: 0,
  seats: 1,
  approvalDeadlineHours: 24,
  dailyLimit: null,
  weeklyLimit: null,
  monthlyLimit: null,
};

const ROW = '\\d{1,2}';
/** A question's key as the domain allows it (form.ts). */
const QUESTION_KEY = '[A-Za-z][A-Za-z0-9_-]{0,63}';
export const TopicFormSchema = formSchema(
  {
    op: OptionalField,
    team: OptionalField,
    name: TextField,
    description: OptionalField,
    confirmationMessage: OptionalField,
    ...(Object.fromEntries(NUMBER_FIELDS.map((name) => [name, OptionalField])) as Record<NumberField, typeof OptionalField>),
    places: RepeatedField,
    phoneRequired: Checkbox,
    requiresApproval: Checkbox,
    schedule: OptionalField,
    price: OptionalField,
    currency: OptionalField,
    public: Checkbox,
    slug: OptionalField,
    durations: OptionalField,
    allowGuests: Checkbox,
    allTeamMembers: Checkbox,
    hosts: RepeatedField,
    assignment: OptionalField,
  },
  {
    patternProperties: {
      [`^placeDetails\\.(${PLACES.join('|')})$`]: TextField,
      [`^reminder\\.${ROW}\\.(minutesBefore|channel|to)$`]: TextField,
      [`^question\\.${ROW}\\.(key|label|type|options|min|max|showIfKey|showIfEquals)$`]: TextField,
      [`^question\\.${ROW}\\.required$`]: Checkbox,
      [`^variant\\.${ROW}\\.(uuid|name|price)$`]: TextField,
      '^(weight|hostSchedule)\\..{1,120}$': TextField,
      [`^translation\\.(${LANGS.join('|')})\\.(name|description|confirmationMessage)$`]: TextField,
      [`^translation\\.(${LANGS.join('|')})\\.label\\.${QUESTION_KEY}$`]: TextField,
    },
  },
);

export interface ReminderRow {
  minutesBefore: string;
  channel: string;
  to: string;
}
export interface QuestionRow {
  /** The question's key, kept across edits (answers of booked meetings refer to it); '' for a new one. */
  key: string;
  label: string;
  type: string;
  required: boolean;
  /** One choice per line. */
  options: string;
  /** A number question's bounds, as typed ('' for none). */
  min: string;
  max: string;
  /** The earlier question (its key) this one depends on, '' for none, and the answer that shows it. */
  showIfKey: string;
  showIfEquals: string;
}
export interface VariantRow {
  /** '' for a new variant. */
  uuid: string;
  name: string;
  price: string;
}

/** The topic's own words in another language as the form holds them: '' is "not translated" (the topic's own words show). */
export interface TranslationRow {
  name: string;
  description: string;
  confirmationMessage: string;
  /** By question key: the question's label in that language. */
  labels: Record<string, string>;
}

export interface TopicForm {
  /** The team of a team topic (chosen when it is created), else null. */
  team: string | null;
  name: string;
  description: string;
  /** Shown after booking (the confirmation page and e-mail); '' for none. */
  confirmationMessage: string;
  numbers: Record<NumberField, string>;
  places: Place[];
  placeDetails: Partial<Record<Place, string>>;
  phoneRequired: boolean;
  requiresApproval: boolean;
  /** A schedule uuid, or '' for the default hours (individual topics). */
  schedule: string;
  reminders: ReminderRow[];
  questions: QuestionRow[];
  price: string;
  currency: string;
  variants: VariantRow[];
  public: boolean;
  /** The booking link's readable last part; '' for none. */
  slug: string;
  /** The lengths offered besides durationMinutes, as typed: minutes separated by commas ('' for one length). */
  durations: string;
  allowGuests: boolean;
  // Team topics
  allTeamMembers: boolean;
  hosts: string[];
  assignment: Assignment;
  /** By username: a weight as typed ('' is 1). */
  weights: Record<string, string>;
  /** By username: a schedule uuid, '' for their default hours. */
  hostSchedules: Record<string, string>;
  /** The topic's words in the languages the form offers (translationLangs), by language. */
  translations: Partial<Record<Lang, TranslationRow>>;
}

/**
 * The languages the form offers translations for: every language but the one the member
 * writes the topic's own words in, which is the page's (`own`). A translation into the page's
 * language made through the API is kept as it is (topicInputOf).
 */
export function translationLangs(own: Lang): Lang[] {
  return LANGS.filter((lang) => lang !== own);
}

function translationRowOf(translation: TopicTranslation | undefined): TranslationRow {
  return {
    name: translation?.name ?? '',
    description: translation?.description ?? '',
    confirmationMessage: translation?.confirmationMessage ?? '',
    labels: Object.fromEntries(Object.entries(translation?.form ?? {}).flatMap(([key, words]) => (words.label === undefined ? [] : [[key, words.label]]))),
  };
}

export function newTopicForm(places: readonly Place[], team: string | null): TopicForm {
  const numbers = Object.fromEntries(NUMBER_FIELDS.map((name) => [name, ''])) as Record<NumberField, string>;
  Object.assign(numbers, { durationMinutes: '30', bookingWindowDays: '60', seats: '1', approvalDeadlineHours: '24', bufferBeforeMinutes: '0', bufferAfterMinutes: '0' });
  Object.assign(numbers, { minimumNoticeMinutes: '0', cancellationNoticeMinutes: '0' });
  return {
    team,
    name: '',
    description: '',
    confirmationMessage: '',
    numbers,
    places: places.slice(0, 1),
    placeDetails: {},
    phoneRequired: false,
    requiresApproval: false,
    schedule: '',
    reminders: [],
    questions: [],
    price: '',
    currency: 'PLN',
    variants: [],
    public: true,
    slug: '',
    durations: '',
    allowGuests: false,
    allTeamMembers: team !== null,
    hosts: [],
    assignment: 'round-robin',
    weights: {},
    hostSchedules: {},
    translations: {},
  };
}

export function toTopicForm(topic: MeetingTopic): TopicForm {
  const numbers = {} as Record<NumberField, string>;
  for (const name of NUMBER_FIELDS) numbers[name] = topic[name] === null ? '' : String(topic[name]);
  const currency = topic.price?.currency ?? topic.priceVariants[0]?.price.currency ?? 'PLN';
  return {
    team: topic.teamUuid,
    name: topic.name,
    description: topic.description,
    confirmationMessage: topic.confirmationMessage,
    numbers,
    places: [...topic.places],
    placeDetails: { ...topic.placeDetails },
    phoneRequired: topic.phoneRequired,
    requiresApproval: topic.requiresApproval,
    schedule: topic.schedule ?? '',
    reminders: topic.reminders.map((reminder) => ({ minutesBefore: String(reminder.minutesBefore), channel: reminder.channel, to: reminder.to })),
    questions: topic.form.map((question) => ({
      key: question.key,
      label: question.label,
      type: question.type,
      required: question.required,
      options: (question.options ?? []).join('\n'),
      min: question.min === undefined ? '' : String(question.min),
      max: question.max === undefined ? '' : String(question.max),
      showIfKey: question.showIf?.key ?? '',
      showIfEquals: question.showIf === undefined ? '' : String(question.showIf.equals),
    })),
    price: topic.price ? formatMinorUnits(topic.price.amount, topic.price.currency) : '',
    currency,
    variants: topic.priceVariants.map((variant) => ({ uuid: variant.uuid, name: variant.name, price: formatMinorUnits(variant.price.amount, variant.price.currency) })),
    public: topic.public,
    slug: topic.slug ?? '',
    durations: topic.durations.length > 1 ? topic.durations.join(', ') : '',
    allowGuests: topic.allowGuests,
    allTeamMembers: topic.allTeamMembers,
    hosts: topic.hosts.map((host) => host.username),
    assignment: topic.assignment,
    weights: Object.fromEntries(Object.entries(topic.hostWeights).map(([username, weight]) => [username, String(weight)])),
    hostSchedules: { ...topic.hostSchedules },
    translations: Object.fromEntries(LANGS.map((lang) => [lang, translationRowOf(topic.translations[lang])])),
  };
}

/** Numbered rows in the order of their numbers, so a removed row's gap closes up. */
function rows(body: FormBody, prefix: string, names: readonly string[]): Record<string, string>[] {
  const indices = new Set<number>();
  const pattern = new RegExp(`^${prefix}\\.(\\d{1,2})\\.`);
  for (const key of Object.keys(body)) {
    const match = pattern.exec(key);
    if (match) indices.add(Number(match[1]));
  }
  return [...indices].sort((a, b) => a - b).map((index) => Object.fromEntries(names.map((name) => [name, field(body, `${prefix}.${index}.${name}`)])));
}

function byPrefix(body: FormBody, prefix: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const key of Object.keys(body)) if (key.startsWith(prefix)) found[key.slice(prefix.length)] = field(body, key).trim();
  return found;
}

/** The posted form as the page holds it; `team` comes from the page (a new team topic) or the topic itself, never trusted from an edit's body. */
export function readTopicForm(body: FormBody, team: string | null): TopicForm {
  const numbers = Object.fromEntries(NUMBER_FIELDS.map((name) => [name, field(body, name).trim()])) as Record<NumberField, string>;
  const placeDetails: Partial<Record<Place, string>> = {};
  for (const place of PLACES) {
    const value = field(body, `placeDetails.${place}`).trim();
    if (value !== '') placeDetails[place] = value;
  }
  const assignment = field(body, 'assignment');
  return {
    team,
    name: field(body, 'name').trim(),
    description: field(body, 'description').trim(),
    confirmationMessage: field(body, 'confirmationMessage').trim(),
    numbers,
    places: fields(body, 'places').filter((place): place is Place => isPlace(place)),
    placeDetails,
    phoneRequired: field(body, 'phoneRequired') === 'on',
    requiresApproval: field(body, 'requiresApproval') === 'on',
    schedule: field(body, 'schedule').trim(),
    reminders: rows(body, 'reminder', ['minutesBefore', 'channel', 'to']).map((row) => ({ minutesBefore: row.minutesBefore!.trim(), channel: row.channel!, to: row.to! })),
    questions: rows(body, 'question', ['key', 'label', 'type', 'required', 'options', 'min', 'max', 'showIfKey', 'showIfEquals']).map((row) => ({
      key: row.key!.trim(),
      label: row.label!.trim(),
      type: row.type!,
      required: row.required === 'on',
      options: row.options!,
      min: row.min!.trim(),
      max: row.max!.trim(),
      showIfKey: row.showIfKey!.trim(),
      showIfEquals: row.showIfEquals!.trim(),
    })),
    price: field(body, 'price').trim(),
    currency: field(body, 'currency').trim().toUpperCase(),
    variants: rows(body, 'variant', ['uuid', 'name', 'price']).map((row) => ({ uuid: row.uuid!.trim(), name: row.name!.trim(), price: row.price!.trim() })),
    public: field(body, 'public') === 'on',
    slug: field(body, 'slug').trim(),
    durations: field(body, 'durations').trim(),
    allowGuests: field(body, 'allowGuests') === 'on',
    allTeamMembers: field(body, 'allTeamMembers') === 'on',
    hosts: fields(body, 'hosts'),
    assignment: (ASSIGNMENTS as readonly string[]).includes(assignment) ? (assignment as Assignment) : 'round-robin',
    weights: byPrefix(body, 'weight.'),
    hostSchedules: byPrefix(body, 'hostSchedule.'),
    translations: readTranslations(body),
  };
}

/** The translation fields posted, by language: a language the form did not show is absent (its stored words are kept). */
function readTranslations(body: FormBody): Partial<Record<Lang, TranslationRow>> {
  const translations: Partial<Record<Lang, TranslationRow>> = {};
  for (const lang of LANGS) {
    const prefix = `translation.${lang}.`;
    if (!Object.keys(body).some((key) => key.startsWith(prefix))) continue;
    translations[lang] = {
      name: field(body, `${prefix}name`).trim(),
      description: field(body, `${prefix}description`).trim(),
      confirmationMessage: field(body, `${prefix}confirmationMessage`).trim(),
      labels: Object.fromEntries(Object.entries(byPrefix(body, `${prefix}label.`)).filter(([, label]) => label !== '')),
    };
  }
  return translations;
}

/**
 * The `translations` of the input: each language the form showed from its fields (an empty
 * field is "not translated"), each other language as stored. What the form cannot show is
 * kept: translated choices (the API's `options`) while the question keeps as many choices.
 * A question removed takes its translated words with it.
 */
export function translationsOf(form: TopicForm, questions: readonly FormFieldInput[], stored: TopicTranslations): TopicTranslations {
  const byKey = new Map(questions.map((question) => [question.key, question]));
  const result: TopicTranslations = {};
  for (const lang of LANGS) {
    const row = form.translations[lang];
    const before = stored[lang];
    const words: TopicTranslation = {};
    const name = row ? row.name : before?.name;
    const description = row ? row.description : before?.description;
    const confirmationMessage = row ? row.confirmationMessage : before?.confirmationMessage;
    if (name) words.name = name;
    if (description) words.description = description;
    if (confirmationMessage) words.confirmationMessage = confirmationMessage;
    const questionWords: Record<string, { label?: string; options?: string[] }> = {};
    for (const [key, question] of byKey) {
      const label = row ? row.labels[key] : before?.form?.[key]?.label;
      const options = before?.form?.[key]?.options;
      const entry: { label?: string; options?: string[] } = {};
      if (label) entry.label = label;
      if (options && options.length === (question.options?.length ?? 0) && options.length > 0) entry.options = [...options];
      if (entry.label !== undefined || entry.options !== undefined) questionWords[key] = entry;
    }
    if (Object.keys(questionWords).length > 0) words.form = questionWords;
    if (Object.keys(words).length > 0) result[lang] = words;
  }
  return result;
}

/** Add or remove a row (no script needed): the form comes back with it, unsaved. Null: `op` is no row change. */
export function applyTopicOp(form: TopicForm, op: string): TopicForm | null {
  const [action, index] = op.split(':');
  const without = <T>(list: readonly T[]) => list.filter((_, i) => i !== Number(index));
  switch (action) {
    case 'add-reminder':
      return { ...form, reminders: [...form.reminders, { minutesBefore: '', channel: 'email', to: 'participant' }] };
    case 'remove-reminder':
      return { ...form, reminders: without(form.reminders) };
    case 'add-question':
      return { ...form, questions: [...form.questions, { key: '', label: '', type: 'text', required: false, options: '', min: '', max: '', showIfKey: '', showIfEquals: '' }] };
    case 'remove-question':
      return { ...form, questions: without(form.questions) };
    case 'add-variant':
      return { ...form, variants: [...form.variants, { uuid: '', name: '', price: '' }] };
    case 'remove-variant':
      return { ...form, variants: without(form.variants) };
    default:
      return null;
  }
}

/**
 * Which form row each of the input's rows came from: empty rows are left out of the input, so
 * the use case's `/reminders/1` may be the form's third row.
 */
export interface RowOrigins {
  reminders: number[];
  questions: number[];
  variants: number[];
}

const isBlankReminder = (row: ReminderRow) => row.minutesBefore === '';
const isBlankQuestion = (row: QuestionRow) => row.label === '' && row.options.trim() === '';
const isBlankVariant = (row: VariantRow) => row.name === '' && row.price === '';

function originsOf<T>(list: readonly T[], isBlank: (row: T) => boolean): number[] {
  return list.flatMap((row, index) => (isBlank(row) ? [] : [index]));
}

export function rowOriginsOf(form: TopicForm): RowOrigins {
  return { reminders: originsOf(form.reminders, isBlankReminder), questions: originsOf(form.questions, isBlankQuestion), variants: originsOf(form.variants, isBlankVariant) };
}

/**
 * The form as the topic use cases take it: the same fields as the API's body, so the same rules
 * apply. What the form itself cannot read (a number that is not one, an amount) is refused
 * here with the API's paths, before the use case is called. `members`: a team topic's
 * team members by username (their weights and hours are only sent for the hosts chosen).
 */
export function topicInputOf(form: TopicForm, members: readonly string[], stored: TopicTranslations = {}): CreateTopicInput & UpdateTopicInput {
  const errors: FieldError[] = [];
  const wholeNumber = (value: string, path: string): number => {
    if (/^\d{1,9}$/.test(value)) return Number(value);
    errors.push({ path, message: 'must be a whole number' });
    return 0;
  };
  const numbers = {} as Record<NumberField, number | null>;
  for (const name of NUMBER_FIELDS) {
    const value = form.numbers[name];
    const empty = WHEN_EMPTY[name];
    if (value !== '') numbers[name] = wholeNumber(value, `/${name}`);
    else if (empty === 'required') numbers[name] = wholeNumber(value, `/${name}`);
    else numbers[name] = empty === 'duration' ? null : empty;
  }
  const slotIntervalMinutes = numbers.slotIntervalMinutes ?? numbers.durationMinutes ?? undefined;

  const currencyKnown = /^[A-Z]{3}$/.test(form.currency) && isIso4217Currency(form.currency);
  const money = (value: string, path: string) => {
    if (!currencyKnown) return { amount: 0, currency: form.currency };
    try {
      return { amount: parseDecimalAmount(value.replace(/\s/g, '').replace(',', '.'), form.currency), currency: form.currency };
    } catch {
      errors.push({ path: `${path}/amount`, message: 'must be an amount' });
      return { amount: 0, currency: form.currency };
    }
  };
  const variantRows = form.variants.filter((row) => !isBlankVariant(row));
  if (!currencyKnown && (form.price !== '' || variantRows.length > 0))
    errors.push({ path: '/price/currency', message: 'must be an active ISO 4217 currency code such as PLN or EUR' });
  const price = form.price === '' ? null : money(form.price, '/price');
  const priceVariants = variantRows.map((row, index) => ({
    ...(row.uuid !== '' ? { uuid: row.uuid } : {}),
    name: row.name,
    price: money(row.price, `/priceVariants/${index}/price`),
  }));

  const reminders: Reminder[] = form.reminders
    .filter((row) => !isBlankReminder(row))
    .map((row, index) => ({
      minutesBefore: wholeNumber(row.minutesBefore, `/reminders/${index}/minutesBefore`),
      channel: (REMINDER_CHANNELS as readonly string[]).includes(row.channel) ? (row.channel as Reminder['channel']) : 'email',
      to: (REMINDER_RECIPIENTS as readonly string[]).includes(row.to) ? (row.to as Reminder['to']) : 'participant',
    }));
  if (form.reminders.filter((row) => !isBlankReminder(row)).length > REMINDER_LIMITS.perTopic) {
    errors.push({ path: '/reminders', message: `must have at most ${REMINDER_LIMITS.perTopic} reminders` });
  }

  // A new question gets the first free key q1, q2…: its label may change later, its key never does.
  const questionRows = form.questions.filter((row) => !isBlankQuestion(row));
  const used = new Set(questionRows.map((row) => row.key).filter((key) => key !== ''));
  let next = 1;
  const showIfRows: { question: FormFieldInput; key: string; equals: string }[] = [];
  const questions: FormFieldInput[] = questionRows.map((row, index) => {
    let key = row.key;
    if (key === '' || !/^[A-Za-z][A-Za-z0-9_-]{0,63}$/.test(key)) {
      while (used.has(`q${next}`)) next += 1;
      key = `q${next}`;
      used.add(key);
    }
    const options = row.options
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '');
    const type = (FORM_FIELD_TYPES as readonly string[]).includes(row.type) ? (row.type as FormFieldType) : 'text';
    const question: FormFieldInput = { key, label: row.label, required: row.required, type, ...(options.length > 0 ? { options } : {}) };
    const bound = (value: string, name: 'min' | 'max') => {
      if (value === '') return;
      if (/^-?\d+(\.\d+)?$/.test(value.replace(',', '.'))) question[name] = Number(value.replace(',', '.'));
      else errors.push({ path: `/form/${index}/${name}`, message: 'must be a number' });
    };
    bound(row.min, 'min');
    bound(row.max, 'max');
    if (row.showIfKey !== '') showIfRows.push({ question, key: row.showIfKey, equals: row.showIfEquals });
    return question;
  });
  // The value that shows a conditional question, read as the type of the question it names (a tick box's `true`, a number).
  for (const { question, key, equals } of showIfRows) {
    const target = questions.find((other) => other.key === key);
    const value =
      target?.type === 'checkbox'
        ? ['true', 'on', 'yes', 'tak'].includes(equals.toLowerCase())
        : target?.type === 'number' && equals !== ''
          ? Number(equals.replace(',', '.'))
          : equals;
    question.showIf = { key, equals: value };
  }
  // The lengths offered: the form's list, with the default length always among them.
  const durations = form.durations
    .split(/[\s,;]+/)
    .filter((part) => part !== '')
    .map((part) => wholeNumber(part, '/durations'));
  if (durations.length > 0 && numbers.durationMinutes !== null && !durations.includes(numbers.durationMinutes)) durations.push(numbers.durationMinutes);

  if (errors.length > 0) throw new ValidationError(errors);
  const input: CreateTopicInput & UpdateTopicInput = {
    name: form.name,
    description: form.description,
    confirmationMessage: form.confirmationMessage,
    durationMinutes: numbers.durationMinutes ?? undefined,
    slotIntervalMinutes,
    bufferBeforeMinutes: numbers.bufferBeforeMinutes ?? 0,
    bufferAfterMinutes: numbers.bufferAfterMinutes ?? 0,
    minimumNoticeMinutes: numbers.minimumNoticeMinutes ?? 0,
    bookingWindowDays: numbers.bookingWindowDays ?? 60,
    cancellationNoticeMinutes: numbers.cancellationNoticeMinutes ?? 0,
    seats: numbers.seats ?? 1,
    approvalDeadlineHours: numbers.approvalDeadlineHours ?? 24,
    dailyLimit: numbers.dailyLimit,
    weeklyLimit: numbers.weeklyLimit,
    monthlyLimit: numbers.monthlyLimit,
    places: form.places,
    // Only the offered places' details: a place unticked forgets its address, as the API does.
    placeDetails: Object.fromEntries(Object.entries(form.placeDetails).filter(([place]) => form.places.includes(place as Place))),
    phoneRequired: form.phoneRequired,
    requiresApproval: form.requiresApproval,
    reminders,
    form: questions,
    price,
    priceVariants,
    public: form.public,
    slug: form.slug === '' ? null : form.slug,
    durations: durations.length > 0 ? durations : numbers.durationMinutes !== null ? [numbers.durationMinutes] : undefined,
    allowGuests: form.allowGuests,
    translations: translationsOf(form, questions, stored),
  };
  if (form.team === null) {
    input.schedule = form.schedule === '' ? null : form.schedule;
  } else {
    const hosts = form.allTeamMembers ? [...members] : form.hosts.filter((username) => members.includes(username));
    if (form.allTeamMembers) input.allTeamMembers = true;
    else input.hosts = hosts;
    input.assignment = form.assignment;
    input.hostWeights = Object.fromEntries(
      hosts
        .filter((username) => (form.weights[username] ?? '') !== '')
        .map((username) => [username, /^\d{1,3}$/.test(form.weights[username]!) ? Number(form.weights[username]) : 0]),
    );
    input.hostSchedules = Object.fromEntries(hosts.filter((username) => (form.hostSchedules[username] ?? '') !== '').map((username) => [username, form.hostSchedules[username]!]));
  }
  return input;
}
