import { describe, expect, it } from 'vitest';
import { alarmMinutesBefore, isReminderOwed, reminderDueAt, reminderFate, smsDestinationRefusal, toE164, validateReminders, type Reminder } from './reminders.js';

const at = (iso: string) => Date.parse(iso);
const zoned = (instant: number, timeZone: string) => new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'short', timeStyle: 'short' }).format(new Date(instant));

describe('reminderDueAt', () => {
  // An absolute interval: across a DST change the reminder's local time shifts by the change, never the interval.
  it.each([
    ['Warsaw, over the change to winter time', '2027-11-01T08:00:00.000Z', 2880, 'Europe/Warsaw', '30/10/2027, 10:00'],
    ['Warsaw, over the change to summer time', '2027-03-28T08:00:00.000Z', 1440, 'Europe/Warsaw', '27/03/2027, 09:00'],
    ['New York, over the change to winter time', '2027-11-08T14:00:00.000Z', 10_080, 'America/New_York', '01/11/2027, 10:00'],
    ['Lord Howe (half-hour change)', '2027-04-04T00:00:00.000Z', 1440, 'Australia/Lord_Howe', '03/04/2027, 11:00'],
    ['no change in between', '2027-01-04T08:00:00.000Z', 60, 'Europe/Warsaw', '04/01/2027, 08:00'],
  ])('%s', (_label, start, minutesBefore, zone, local) => {
    const due = reminderDueAt(at(start), minutesBefore);
    expect(at(start) - due).toBe(minutesBefore * 60_000);
    expect(zoned(due, zone)).toBe(local);
  });
});

describe('isReminderOwed and reminderFate', () => {
  const due = at('2027-01-04T07:00:00.000Z');
  const start = at('2027-01-04T08:00:00.000Z');
  it.each([
    [due - 1, true],
    [due, false],
    [due + 1, false],
  ])('confirmed at %d owes the reminder: %s', (confirmedAt, owed) => expect(isReminderOwed(confirmedAt, due)).toBe(owed));
  it.each([
    [due, 'send'],
    [start - 1, 'send'],
    [start, 'late'],
    [start + 3_600_000, 'late'],
  ])('picked up at %d: %s', (now, fate) => expect(reminderFate(now, start)).toBe(fate));
});

describe('toE164', () => {
  it.each([
    ['601 234 567', 'PL', '+48601234567'],
    ['+48 601-234-567', 'US', '+48601234567'],
    ['0048601234567', 'PL', '+48601234567'],
    ['(415) 555-2671', 'US', '+14155552671'],
    ['+1 415 555 2671', 'PL', '+14155552671'],
    ['020 7946 0958', 'GB', '+442079460958'],
    ['12', 'PL', null],
    ['not a number', 'PL', null],
  ] as const)('%s in %s → %s', (input, country, expected) => expect(toE164(input, country)).toBe(expected));
});

describe('validateReminders', () => {
  const email = (minutesBefore: number): Reminder => ({ minutesBefore, channel: 'email', to: 'participant' });
  const ready = { email: null, sms: null };
  it('accepts 1 minute to 14 days, up to five', () => {
    expect(validateReminders([email(1), email(20_160), email(60), email(1440), email(30)], ready)).toEqual([]);
  });
  it.each([
    [[email(0)], '/reminders/0/minutesBefore'],
    [[email(20_161)], '/reminders/0/minutesBefore'],
    [[email(1), email(2), email(3), email(4), email(5), email(6)], '/reminders'],
    [[email(60), email(60)], '/reminders/1'],
  ])('refuses %j at %s', (reminders, path) => {
    expect(validateReminders(reminders, ready).map((error) => error.path)).toContain(path);
  });
  it('names the setting a channel lacks', () => {
    expect(validateReminders([{ minutesBefore: 60, channel: 'sms', to: 'host' }], { email: null, sms: 'SMS_PROVIDER' })).toEqual([
      { path: '/reminders/0/channel', message: 'sms reminders are not configured on this server: SMS_PROVIDER is not set' },
    ]);
  });
});

describe('alarmMinutesBefore', () => {
  it("is the reader's earliest reminder, whatever its channel", () => {
    const reminders: Reminder[] = [
      { minutesBefore: 60, channel: 'email', to: 'participant' },
      { minutesBefore: 1440, channel: 'sms', to: 'participant' },
      { minutesBefore: 30, channel: 'email', to: 'host' },
    ];
    expect(alarmMinutesBefore(reminders, 'participant')).toBe(1440);
    expect(alarmMinutesBefore(reminders, 'host')).toBe(30);
    expect(alarmMinutesBefore([], 'host')).toBeNull();
  });
});

describe('smsDestinationRefusal', () => {
  it.each([
    ['+48601234567', ['PL'], null],
    ['+48601234567', ['+48'], null],
    ['+4915112345678', ['PL'], "the number's country (DE, +49) is not in SMS_ALLOWED_COUNTRIES (PL): not sent"],
    ['+4915112345678', ['PL', 'DE'], null],
    // International networks (premium, pumping's favourite) belong to no country.
    ['+88234567890', ['PL'], "the number's country (+882) is not in SMS_ALLOWED_COUNTRIES (PL): not sent"],
    ['+88234567890', ['+882'], null],
    // A country narrows a shared calling code: the US, not Jamaica's premium ranges.
    ['+14155552671', ['US'], null],
    ['+18765551234', ['US'], "the number's country (JM, +1) is not in SMS_ALLOWED_COUNTRIES (US): not sent"],
    ['+18765551234', ['+1'], null],
  ] as const)('%s with %j → %s', (number, allowed, expected) => expect(smsDestinationRefusal(number, allowed)).toBe(expected));
});
