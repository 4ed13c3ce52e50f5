import type { Place } from '../domain/account.js';
import type { LocationSource } from '../domain/place-details.js';
import { formatDateTime, formatSpan } from '../domain/formats.js';
import { buildForEachLang } from '../i18n/catalogue.js';
import { PLACE_LABELS } from '../i18n/place-labels.js';
import { toSingleLine } from '../domain/text.js';
import type { MessageReader } from './booking-message.js';
import type { NoticeMessagePayload } from './queued-message.js';

/** What a reminder says, captured when it is sent (e-mail) or written (SMS). */
export interface ReminderFacts extends MessageReader {
  accountName: string;
  topicName: string;
  /** The other side: the host for the participant's reminder, the participant for the host's. */
  withName: string;
  start: number;
  end: number;
  place: Place;
  /** The address, join link or number; null when nothing beyond the place is known. */
  where: string | null;
  /** Whose detail `where` is: for a phone call, 'participant' means the host calls the participant's number. */
  whereSource?: LocationSource | null;
  /** The meeting's private manage link (move or cancel). */
  manageUrl: string;
}

const one = (value: string) => toSingleLine(value);

/** The reminders' words in each language (locales/<lang>/notices.json, `reminder`). */
const STRINGS = buildForEachLang('notices', (t) => ({
  subject: (topic: string, when: string) => t('reminder.subject', { topic, when }),
  lead: (topic: string, who: string) => t('reminder.lead', { topic, who }),
  weCall: (phone: string) => t('reminder.weCall', { phone }),
  youCall: (phone: string) => t('reminder.youCall', { phone }),
  when: t('reminder.when'),
  where: t('reminder.where'),
  manage: t('reminder.manage'),
  greeting: (name: string) => t('greeting', { name }),
  signature: (account: string) => t('signature', { account }),
  sms: (topic: string, who: string, when: string) => t('reminder.sms', { topic, who, when }),
  /** The manage link's label in the SMS: short, so the SMS takes no more segments than the English one (notes/i18n-notices.md). */
  smsManage: t('reminder.smsManage'),
}));

/**
 * Where, as the reader needs it: a phone call says who calls whom ("Phone call: we will call
 * 601 333 444" to the participant whose number the host calls, "Phone call: call 601 333 444"
 * to that host); a number or instructions of the host's or the topic's follow the place's name.
 * Other places: the address or link, else the place's name.
 */
function whereText(facts: ReminderFacts): string {
  const s = STRINGS[facts.lang];
  const label = PLACE_LABELS[facts.lang][facts.place];
  if (facts.where === null) return label;
  const where = one(facts.where);
  if (facts.place !== 'phone-call') return where;
  if (facts.whereSource === 'participant') return `${label}: ${facts.recipient === 'host' ? s.youCall(where) : s.weCall(where)}`;
  return `${label}: ${where}`;
}

/**
 * The reminder e-mail, in the reader's language and zone: when, where (the address, the join
 * link or the number, else the place's name) and the manage link. A notice (no invitation:
 * the calendar entry exists since the confirmation).
 */
export function reminderNotice(facts: ReminderFacts): NoticeMessagePayload {
  const s = STRINGS[facts.lang];
  const locale = facts.locale ?? facts.lang;
  const zone = one(facts.timezone);
  const topic = one(facts.topicName);
  const lines = [
    s.greeting(one(facts.to.name)),
    '',
    s.lead(topic, one(facts.withName)),
    '',
    `${s.when}: ${formatSpan(facts.start, facts.end, zone, locale)}`,
    `${s.where}: ${whereText(facts)}`,
    '',
    `${s.manage}: ${one(facts.manageUrl)}`,
    '',
    s.signature(one(facts.accountName)),
  ];
  return { notice: true, to: facts.to, lang: facts.lang, subject: s.subject(topic, formatDateTime(facts.start, zone, locale)), text: lines.join('\n') };
}

/**
 * The reminder SMS: one line with the topic, who with, when (reader's zone), where and the
 * manage link, in the reader's language. Long details make it several segments; the
 * provider joins them.
 */
export function reminderSmsText(facts: ReminderFacts): string {
  const s = STRINGS[facts.lang];
  const when = formatDateTime(facts.start, one(facts.timezone), facts.locale ?? facts.lang);
  const where = facts.where ? ` ${whereText(facts)}.` : '';
  return `${s.sms(one(facts.topicName), one(facts.withName), when)}${where} ${s.smsManage}: ${one(facts.manageUrl)}`;
}
