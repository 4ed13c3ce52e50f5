import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime, formatMoney, formatRange, formatSpan, formatTime, participantLocale } from './formats.js';

const nine = Date.parse('2027-01-04T08:00:00Z'); // 09:00 in Warsaw, 03:00 in New York
const midnight = Date.parse('2027-01-04T23:00:00Z'); // 00:00 on the 5th in Warsaw

describe('formats', () => {
  it.each([
    [15000, 'PLN', 'en', 'PLN 150.00'],
    [15000, 'PLN', 'pl', '150,00 zł'],
    [15000, 'EUR', 'pl', '150,00 €'],
    [1500, 'JPY', 'en', '¥1,500'],
    [1234, 'KWD', 'en', 'KWD 1.234'],
    [123456789, 'PLN', 'pl', '1 234 567,89 zł'],
  ])('money: %i %s in %s → %s', (amount, currency, locale, expected) => {
    // ICU separates thousands in Polish with a no-break space.
    expect(formatMoney(amount, currency, locale).replace(/\u00a0|\u202f/g, ' ')).toBe(expected);
  });

  it.each([
    ['en', '9:00 AM'],
    ['en-US', '9:00 AM'],
    ['en-GB', '09:00'],
    ['pl', '09:00'],
  ])('time by locale: %s → %s', (locale, expected) => {
    expect(formatTime(nine, 'Europe/Warsaw', locale).replace(/\u202f/g, ' ')).toBe(expected);
  });

  it('a visitor’s 12/24-hour choice wins over the locale, and midnight is 00:00, not 24:00', () => {
    expect(formatTime(nine, 'Europe/Warsaw', 'en', { hour12: false })).toBe('09:00');
    expect(formatTime(nine + 12 * 3_600_000, 'Europe/Warsaw', 'pl', { hour12: true })).toMatch(/^0?9:00\s?PM$/);
    expect(formatTime(midnight, 'Europe/Warsaw', 'en-GB')).toBe('00:00');
  });

  it('dates in day-month or month-day order by locale, in the zone given', () => {
    expect(formatDate(nine, 'Europe/Warsaw', 'en')).toBe('Monday, January 4, 2027');
    expect(formatDate(nine, 'Europe/Warsaw', 'en-GB')).toBe('Monday, 4 January 2027');
    expect(formatDate(nine, 'Europe/Warsaw', 'pl')).toBe('poniedziałek, 4 stycznia 2027');
    expect(formatDate(midnight, 'Europe/Warsaw', 'en')).toBe('Tuesday, January 5, 2027');
    expect(formatDateTime(nine, 'America/New_York', 'en').replace(/\u202f/g, ' ')).toBe('Jan 4, 2027, 3:00 AM');
  });

  it('a span repeats the date only when it ends on another day', () => {
    expect(formatSpan(nine, nine + 30 * 60_000, 'Europe/Warsaw', 'pl')).toBe('poniedziałek, 4 stycznia 2027, 09:00–09:30 (Europe/Warsaw)');
    // A page names the zone beside it: the same span without it, so page and e-mail read alike.
    expect(formatRange(nine, nine + 30 * 60_000, 'Europe/Warsaw', 'en-GB', { hour12: true })).toMatch(/^Monday, 4 January 2027, 0?9:00\s?am–0?9:30\s?am$/i);
    expect(formatSpan(midnight - 30 * 60_000, midnight + 30 * 60_000, 'Europe/Warsaw', 'en-GB')).toBe(
      'Monday, 4 January 2027, 23:30 – Tuesday, 5 January 2027, 00:30 (Europe/Warsaw)',
    );
  });
});

describe("participantLocale: the browser's locale, kept for the participant's e-mails", () => {
  it.each([
    ['en-GB', 'en', 'en-GB', '09:00'],
    ['en-us', 'en', 'en-US', '9:00 AM'],
    ['en-US-u-hc-h23', 'en', 'en-US-u-hc-h23', '09:00'],
    ['en-GB-u-hc-h12', 'en', 'en-GB-u-hc-h12', '9:00 am'],
    ['en-GB-u-hc-h11-ca-buddhist', 'en', 'en-GB-u-hc-h12', '9:00 am'],
    ['pl-PL', 'pl', 'pl-PL', '09:00'],
    ['en', 'en', 'en', '9:00 AM'],
  ] as const)('%s with lang %s → %s, reading 09:00 in Warsaw as %s', (tag, lang, locale, nineIs) => {
    expect(participantLocale(tag, lang)).toBe(locale);
    expect(formatTime(nine, 'Europe/Warsaw', locale).replace(/[\u202f ]/g, ' ')).toBe(nineIs);
  });

  it.each([
    ['pl-PL', 'en', 'must be a locale of the language in lang (en)'],
    ['en-GB', 'pl', 'must be a locale of the language in lang (pl)'],
    ['not a tag', 'en', 'BCP 47'],
    ['', 'en', 'BCP 47'],
  ] as const)('%j with lang %s is refused at /locale', (tag, lang, message) => {
    expect(() => participantLocale(tag, lang)).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ path: '/locale', message: expect.stringContaining(message) })] }),
    );
  });
});
