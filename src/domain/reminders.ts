import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import type { FieldError } from './errors.js';

export const REMINDER_CHANNELS = ['email', 'sms'] as const;
export type ReminderChannel = (typeof REMINDER_CHANNELS)[number];
export const REMINDER_RECIPIENTS = ['participant', 'host'] as const;
export type ReminderRecipient = (typeof REMINDER_RECIPIENTS)[number];

export type ReminderOutcome = 'sent' | 'skipped' | 'failed';

/** What became of one reminder of a meeting (recorded once per reminder and start time). */
export interface ReminderRecord {
  uuid: string;
  meetingUuid: string;
  key: string;
  channel: ReminderChannel;
  recipient: ReminderRecipient;
  minutesBefore: number;
  dueAt: number;
  status: ReminderOutcome;
  /** Why it was skipped or failed (the provider's refusal), or the SMS provider's message id. */
  detail: string | null;
  recordedAt: number;
}

/** One reminder of a topic: `{ minutesBefore: 1440, channel: 'email', to: 'participant' }` is the day before. */
export interface Reminder {
  minutesBefore: number;
  channel: ReminderChannel;
  to: ReminderRecipient;
}

export const REMINDER_LIMITS = {
  /** 1 minute to 14 days before the start. */
  minutesBefore: [1, 20_160],
  perTopic: 5,
} as const;

/**
 * Rules the JSON schema cannot express, with what the server lacks: `missingSetting` names,
 * per channel, the setting an operator must set before that channel can be used (null:
 * usable). `validateReminders([{ minutesBefore: 60, channel: 'sms', to: 'participant' }], { email: null, sms: 'SMS_PROVIDER' })`
 * reports `/reminders/0/channel`. The same reminder twice is refused: it would be sent once.
 */
export function validateReminders(reminders: readonly Reminder[], missingSetting: Readonly<Record<ReminderChannel, string | null>>): FieldError[] {
  const errors: FieldError[] = [];
  const [min, max] = REMINDER_LIMITS.minutesBefore;
  if (reminders.length > REMINDER_LIMITS.perTopic) errors.push({ path: '/reminders', message: `must have at most ${REMINDER_LIMITS.perTopic} reminders` });
  const seen = new Set<string>();
  reminders.forEach((reminder, index) => {
    if (!Number.isInteger(reminder.minutesBefore) || reminder.minutesBefore < min || reminder.minutesBefore > max) {
      errors.push({ path: `/reminders/${index}/minutesBefore`, message: `must be an integer from ${min} to ${max} (14 days)` });
    }
    const missing = missingSetting[reminder.channel];
    if (missing !== null) {
      errors.push({ path: `/reminders/${index}/channel`, message: `${reminder.channel} reminders are not configured on this server: ${missing} is not set` });
    }
    const key = `${reminder.minutesBefore}:${reminder.channel}:${reminder.to}`;
    if (seen.has(key)) errors.push({ path: `/reminders/${index}`, message: 'duplicates an earlier reminder' });
    seen.add(key);
  });
  return errors;
}

/**
 * When a reminder is due: `minutesBefore` before the start, an absolute instant, so a DST
 * change between the two does not move it (a meeting at 09:00 Warsaw on the Monday after
 * the clocks go back, reminded 1440 minutes before, is reminded at 10:00 on Sunday,
 * exactly 24 hours earlier). `reminderDueAt(Date.UTC(2026, 9, 26, 8), 1440)` is 2026-10-25T08:00Z.
 */
export function reminderDueAt(start: number, minutesBefore: number): number {
  return start - minutesBefore * 60_000;
}

/**
 * Whether a meeting confirmed at `confirmedAt` gets a reminder due at `dueAt`: only if it was
 * confirmed before that moment. A booking made an hour before the start gets no "day
 * before" reminder: the confirmation has just told them.
 */
export function isReminderOwed(confirmedAt: number, dueAt: number): boolean {
  return confirmedAt < dueAt;
}

/**
 * What a worker does with a reminder it picks up at `now`: send it while the meeting has not
 * started (however late after its due time: an instance down for an hour still reminds of a
 * meeting this afternoon), skip it from the start on (a reminder of something already under
 * way, or over, only confuses). `reminderFate(start - 1, start)` is 'send'; `reminderFate(start, start)` is 'late'.
 */
export function reminderFate(now: number, start: number): 'send' | 'late' {
  return now < start ? 'send' : 'late';
}

/** The key a reminder of one meeting is recorded under: one per reminder and start time, so a moved meeting is reminded again. */
export function reminderKey(start: number, reminder: Reminder): string {
  return `${start}:${reminder.minutesBefore}:${reminder.channel}:${reminder.to}`;
}

/**
 * The reminder a calendar should raise (the invitation's VALARM) for one reader: the earliest
 * of theirs, whatever its channel; null when the topic reminds them of nothing.
 * `alarmMinutesBefore([{ minutesBefore: 60, … 'participant' }, { minutesBefore: 1440, … 'participant' }], 'participant')` is 1440.
 */
export function alarmMinutesBefore(reminders: readonly Reminder[], recipient: ReminderRecipient): number | null {
  const theirs = reminders.filter((reminder) => reminder.to === recipient).map((reminder) => reminder.minutesBefore);
  return theirs.length === 0 ? null : Math.max(...theirs);
}

/**
 * A phone number as an SMS provider takes it, E.164 (`+48601234567`), or null when it is not
 * a possible number. Numbers written without a country code are read as numbers of
 * `defaultCountry`: `toE164('601 234 567', 'PL')` is '+48601234567', `toE164('+1 (415) 555-2671', 'PL')` '+14155552671'.
 */
export function toE164(phone: string, defaultCountry: CountryCode): string | null {
  const parsed = parsePhoneNumberFromString(phone.trim(), defaultCountry);
  if (!parsed?.isPossible()) return null;
  return parsed.number;
}

/**
 * Why an SMS to this E.164 number is not sent under SMS_ALLOWED_COUNTRIES, or null when it may
 * be. `allowed` holds ISO 3166 countries (`PL`: a number of Poland) and calling codes (`+1`:
 * every number whose code is 1, the Caribbean's premium ranges included). International
 * network ranges (+882, +883, satellite +881) belong to no country: only their code lets them.
 * The reason names the code, never the number (it is logged).
 * `smsDestinationRefusal('+48601234567', ['PL'])` is null; `smsDestinationRefusal('+88234567890', ['PL'])`
 * 'the number's country (+882) is not in SMS_ALLOWED_COUNTRIES (PL): not sent'.
 */
export function smsDestinationRefusal(e164: string, allowed: readonly string[]): string | null {
  const parsed = parsePhoneNumberFromString(e164);
  if (!parsed) return `not a valid phone number for SMS_ALLOWED_COUNTRIES (${allowed.join(', ')}): not sent`;
  const code = `+${parsed.countryCallingCode}`;
  if ((parsed.country !== undefined && allowed.includes(parsed.country)) || allowed.includes(code)) return null;
  const country = parsed.country === undefined ? code : `${parsed.country}, ${code}`;
  return `the number's country (${country}) is not in SMS_ALLOWED_COUNTRIES (${allowed.join(', ')}): not sent`;
}

/** Parses a stored topic's reminders; anything unreadable reads as none rather than breaking the topic. */
export function parseStoredReminders(raw: string | null | undefined): Reminder[] {
  try {
    const value = JSON.parse(raw ?? '[]') as unknown;
    if (!Array.isArray(value)) return [];
    return value.filter(
      (item): item is Reminder =>
        typeof item === 'object' &&
        item !== null &&
        Number.isInteger((item as Reminder).minutesBefore) &&
        REMINDER_CHANNELS.includes((item as Reminder).channel) &&
        REMINDER_RECIPIENTS.includes((item as Reminder).to),
    );
  } catch {
    return [];
  }
}
