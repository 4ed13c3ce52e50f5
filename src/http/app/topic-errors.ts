import { isPlace } from '../../domain/account.js';
import type { FieldError } from '../../domain/errors.js';
import type { Lang } from '../../domain/lang.js';
import { NUMBER_FIELDS, type RowOrigins } from './topic-form.js';
import { TOPIC_STRINGS, type TopicStrings } from './topic-strings.js';

/**
 * The topic form's refusals as the page shows them: each next to its field (the use case's
 * path, `/reminders/1/channel`, mapped to the form's control), in plain words of the page's
 * language rather than the API's English rule. Anything without a field shows at the top.
 */

// ── Refusals next to their fields, in the page's language ───────────────────────────────

/** A refusal as the page shows it: the field's id (null: at the top only) and the message in plain words. */
export interface ShownError {
  fieldId: string | null;
  message: string;
}

const SCALAR_IDS = new Set<string>(['name', 'description', 'slug', 'confirmationMessage', ...NUMBER_FIELDS, 'schedule', 'price', 'currency']);
const QUESTION_PARTS: Readonly<Record<string, string>> = { type: 'type', options: 'options', min: 'min', max: 'max', showIf: 'showIfEquals' };

function unescapePointer(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}

/**
 * The form field a use case's (or the form schema's) path is about: `/reminders/1/channel` is
 * the channel of the form's reminder row that became the input's second reminder.
 * `members` are the team's usernames in the order the page lists them (their fields are numbered).
 */
export function fieldIdOf(path: string, origins: RowOrigins, members: readonly string[]): string | null {
  const [, head = '', second, third] = path.split('/');
  const row = (list: number[]) => list[Number(second)] ?? Number(second);
  if (SCALAR_IDS.has(head) && second === undefined) return `f-${head}`;
  switch (head) {
    case 'places':
      return 'f-places';
    case 'placeDetails':
      return second !== undefined && isPlace(second) ? `f-pd-${second}` : 'f-places';
    case 'price':
      return second === 'currency' ? 'f-currency' : 'f-price';
    case 'priceVariants':
      if (second === undefined || !/^\d+$/.test(second)) return 'f-currency';
      return `f-v${row(origins.variants)}-${third === 'name' ? 'name' : 'price'}`;
    case 'reminders':
      if (second === undefined || !/^\d+$/.test(second)) return 'f-reminders';
      return `f-r${row(origins.reminders)}-${third === 'channel' || third === 'to' ? third : 'minutesBefore'}`;
    case 'form':
      if (second === undefined || !/^\d+$/.test(second)) return null;
      return `f-q${row(origins.questions)}-${(third !== undefined && QUESTION_PARTS[third]) || 'label'}`;
    case 'durations':
      return 'f-durations';
    case 'hosts':
    case 'allTeamMembers':
    case 'hostWeights':
    case 'hostSchedules': {
      const index = second === undefined ? -1 : members.indexOf(unescapePointer(second));
      if (index < 0 || head === 'hosts' || head === 'allTeamMembers') return 'f-hosts';
      return head === 'hostWeights' ? `f-w${index}` : `f-hs${index}`;
    }
    case 'assignment':
      return 'f-assignment';
    case 'translations': {
      // `/translations/de/name`, `/translations/de/form/q1/label`: the field of that language.
      if (second === undefined || third === undefined) return 'f-translations';
      const [, , , , key, part] = path.split('/');
      if (third === 'form') return key !== undefined && part === 'label' ? `f-tr-${second}-label-${unescapePointer(key)}` : `f-tr-${second}`;
      return ['name', 'description', 'confirmationMessage'].includes(third) ? `f-tr-${second}-${third}` : `f-tr-${second}`;
    }
    default:
      return null;
  }
}

/** The topic rules' messages (domain/meeting-topic.ts, form.ts, place-details.ts, reminders.ts, the form schema) in plain words. */
const MESSAGES: readonly [RegExp, (t: TopicStrings, match: RegExpExecArray) => string][] = [
  [/^must be an integer from (\d+) to (\d+)/, (t, m) => t.err_range(m[1]!, m[2]!)],
  [/^must be (?:>=|<=) \d+|^must be integer|^must be a whole number/, (t) => t.err_wholeNumber],
  [/^must not be empty|^must NOT have fewer than 1 characters/, (t) => t.err_empty],
  [/^is required/, (t) => t.err_required],
  [/^is not enabled for the account/, (t) => t.err_placeNotEnabled],
  [/^must offer at least one place|^must NOT have fewer than 1 items/, (t) => t.err_onePlace],
  [/^must be an https:\/\/ link/, (t) => t.err_https],
  [/^must be one line/, (t) => t.err_oneLine],
  [/^must be plain text/, (t) => t.err_plainText],
  [/^must (?:be at most|NOT have more than) (\d+) characters/, (t, m) => t.err_tooLong(m[1]!)],
  [/^duplicates an earlier variant/, (t) => t.err_duplicateVariant],
  [/^duplicates an earlier reminder/, (t) => t.err_duplicateReminder],
  [/^duplicates an earlier field/, (t) => t.err_duplicateQuestion],
  [/^duplicates an earlier choice/, (t) => t.err_duplicateChoice],
  [/^must use the same currency/, (t) => t.err_sameCurrency],
  [/ISO 4217/, (t) => t.err_currency],
  [/^must be an amount|^must be a non-negative integer in minor units/, (t) => t.err_amount],
  [/^must list at least one choice/, (t) => t.err_needsChoices],
  [/^must list at most (\d+) choices/, (t, m) => t.err_tooManyChoices(m[1]!)],
  [/^is only for select (?:and multiselect )?questions/, (t) => t.err_choicesOnlyForChoice],
  [/^sms reminders are not configured/, (t) => t.err_smsNotConfigured],
  [/^must have at most (\d+) reminders/, (t, m) => t.err_tooManyReminders(m[1]!)],
  [/^is not a schedule of/, (t) => t.err_notOwnSchedule],
  [/^is not a host of the topic/, (t) => t.err_notHost],
  [/^is not a member of the team/, (t) => t.err_notMember],
  [/^must name at least one host/, (t) => t.err_oneHost],
  [/^collective is only for team topics/, (t) => t.err_collectiveTeamOnly],
  [/^must be 1 for a collective topic/, (t) => t.err_collectiveSeats],
  [/^cannot be combined with hosts/, (t) => t.err_hostsAndAll],
  [/^must be lower-case letters, digits and single hyphens/, (t) => t.err_slugFormat],
  [/^must be 1 to (\d+) characters/, (t, m) => t.err_tooLong(m[1]!)],
  [/^must not look like a uuid/, (t) => t.err_slugUuid],
  [/^is already used by another topic/, (t) => t.err_slugTaken],
  [/^must list (\d+) to (\d+) lengths/, (t, m) => t.err_durationsCount(m[1]!, m[2]!)],
  [/^must include durationMinutes/, (t) => t.err_durationsIncludeDefault],
  [/^must be one of the topic's durations/, (t) => t.err_variantLength],
  [/^must be a number/, (t) => t.err_number],
  [/^must not be less than min/, (t) => t.err_maxBelowMin],
  [/^is only for number questions/, (t) => t.err_boundsOnlyForNumber],
  [/^must be the key of an earlier question/, (t) => t.err_showIfEarlier],
  [/\(an answer to [^)]*\)$/, (t) => t.err_showIfValue],
];

export function plainMessage(lang: Lang, error: FieldError): string {
  const t = TOPIC_STRINGS[lang];
  if (error.message === 'is not an allowed field') return t.err_unknownField(error.path.replace(/^\//, ''));
  for (const [pattern, say] of MESSAGES) {
    const match = pattern.exec(error.message);
    if (match) return say(t, match);
  }
  // English keeps the rule's own words (the API's message reads as a sentence); other languages say "check this value".
  return lang === 'en' ? capitalize(error.message) : t.err_other;
}

function capitalize(message: string): string {
  return `${message.charAt(0).toUpperCase()}${message.slice(1)}${/[.!?]$/.test(message) ? '' : '.'}`;
}

/** Each refusal with the field it shows next to (or none: the top of the form) and its words in `lang`. */
export function showErrors(lang: Lang, errors: readonly FieldError[], origins: RowOrigins, members: readonly string[]): ShownError[] {
  return errors.map((error) => ({ fieldId: fieldIdOf(error.path, origins, members), message: plainMessage(lang, error) }));
}
