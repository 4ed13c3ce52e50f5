import { ValidationError } from './errors.js';
import type { Lang } from './meeting.js';
import { currencyExponent, isIso4217Currency } from './money.js';

/**
 * How dates, times and money read for a person, in one place for e-mails and pages, all
 * from Intl (no hand-made patterns): the locale decides day-month order, 12- or 24-hour
 * time and where the currency goes. A page that knows the visitor's locale (`en-GB`,
 * `en-US`, `pl-PL`) passes it; a message that knows only the language passes `en` or `pl`
 * (`en` reads as Intl's default English, US: 12-hour time, month before day).
 *
 * `formatMoney(15000, 'PLN', 'en')` → "PLN 150.00"; `formatMoney(15000, 'PLN', 'pl')` →
 * "150,00 zł"; `formatTime(t, 'Europe/Warsaw', 'en')` → "9:00 AM", `'en-GB'` → "09:00",
 * `'pl'` → "09:00"; `{ hour12: false }` forces 24-hour time whatever the locale says.
 */
export type FormatLocale = Lang | (string & {});

export interface TimeOptions {
  /** The visitor's own choice, over the locale's habit; undefined: as the locale does. */
  hour12?: boolean | undefined;
}

/** The locale of a language code as Intl should read it: `pl` → `pl-PL`, anything else as given. */
export function intlLocaleOf(locale: FormatLocale): string {
  return locale === 'pl' ? 'pl-PL' : locale;
}

/** An amount in minor units as money: ISO 4217's decimals, the locale's symbol and order. */
export function formatMoney(amount: number, currency: string, locale: FormatLocale): string {
  // A code the pinned ISO table lacks (stored before currencies were checked) gets ICU's decimals.
  const digits = isIso4217Currency(currency)
    ? currencyExponent(currency)
    : (new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2);
  return new Intl.NumberFormat(intlLocaleOf(locale), { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(amount / 10 ** digits);
}

/** "Monday, January 4, 2027" (en), "poniedziałek, 4 stycznia 2027" (pl), in the zone given. */
export function formatDate(instant: number, timeZone: string, locale: FormatLocale): string {
  return dateTimeFormat(locale, timeZone, 'full', undefined, {}).format(instant);
}

/** "9:00 AM" (en), "09:00" (en-GB, pl), in the zone given. */
export function formatTime(instant: number, timeZone: string, locale: FormatLocale, options: TimeOptions = {}): string {
  return dateTimeFormat(locale, timeZone, undefined, 'short', options).format(instant);
}

/** "Jan 4, 2027, 9:00 AM" (en), "4 sty 2027, 09:00" (pl): a short date and time, for subjects and one-line lists. */
export function formatDateTime(instant: number, timeZone: string, locale: FormatLocale, options: TimeOptions = {}): string {
  return dateTimeFormat(locale, timeZone, 'medium', 'short', options).format(instant);
}

/** Formatters kept for reuse, at most this many (a few per locale and zone in use). */
const MAX_FORMATTERS = 500;
const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * One Intl.DateTimeFormat per locale, zone and style, made once: making one costs far more
 * than formatting with it (a confirmation e-mail formats a dozen dates; in a profile of a
 * booking peak making them was a tenth of the e-mails' CPU). Dropped oldest first past the bound.
 */
function dateTimeFormat(
  locale: FormatLocale,
  timeZone: string,
  dateStyle: 'full' | 'medium' | undefined,
  timeStyle: 'short' | undefined,
  options: TimeOptions,
): Intl.DateTimeFormat {
  const key = `${locale}|${timeZone}|${dateStyle ?? ''}|${timeStyle ?? ''}|${options.hour12 ?? ''}`;
  let format = formatters.get(key);
  if (format === undefined) {
    format = new Intl.DateTimeFormat(intlLocaleOf(locale), { ...(dateStyle ? { dateStyle } : {}), ...(timeStyle ? { timeStyle } : {}), timeZone, ...hourCycle(options) });
    if (formatters.size >= MAX_FORMATTERS) formatters.delete(formatters.keys().next().value!);
    formatters.set(key, format);
  }
  return format;
}

/**
 * A meeting's span as one line: "Monday, January 4, 2027, 9:00 AM–9:30 AM (Europe/Warsaw)".
 * The end's date is not repeated when it is the same day in that zone.
 */
export function formatSpan(start: number, end: number, timeZone: string, locale: FormatLocale, options: TimeOptions = {}): string {
  return `${formatRange(start, end, timeZone, locale, options)} (${timeZone})`;
}

/** The span without its zone, for a page that names the zone beside it: "Monday, January 4, 2027, 9:00 AM–9:30 AM". */
export function formatRange(start: number, end: number, timeZone: string, locale: FormatLocale, options: TimeOptions = {}): string {
  const sameDay = formatDate(start, timeZone, locale) === formatDate(end, timeZone, locale);
  const to = sameDay ? formatTime(end, timeZone, locale, options) : `${formatDate(end, timeZone, locale)}, ${formatTime(end, timeZone, locale, options)}`;
  return `${formatDate(start, timeZone, locale)}, ${formatTime(start, timeZone, locale, options)}${sameDay ? '–' : ' – '}${to}`;
}

/**
 * The locale a participant's messages are formatted in, from what their browser reads
 * (`en-GB`, `en-US-u-hc-h23` for a 24-hour choice on a US browser): so the confirmation
 * e-mail reads times as the booking page did. Only the language, a region and the hour
 * cycle are kept (a tag is a free string: nothing else of it reaches Intl); the language
 * must be the booking's `lang`, since the words are in that language.
 */
/** A locale of each language, for the error that asks for one. */
const EXAMPLE_LOCALES: Record<Lang, string> = { en: 'en-GB', pl: 'pl-PL', de: 'de-DE', uk: 'uk-UA', es: 'es-ES', fr: 'fr-FR' };

export function participantLocale(tag: string, lang: Lang): string {
  let parsed: Intl.Locale;
  try {
    parsed = new Intl.Locale(tag);
  } catch {
    throw new ValidationError([{ path: '/locale', message: 'must be a BCP 47 language tag such as en-GB or pl-PL' }]);
  }
  if (parsed.language !== lang) {
    throw new ValidationError([{ path: '/locale', message: `must be a locale of the language in lang (${lang}), such as ${EXAMPLE_LOCALES[lang]}` }]);
  }
  const cycle = parsed.hourCycle === 'h11' || parsed.hourCycle === 'h12' ? 'h12' : parsed.hourCycle === 'h23' || parsed.hourCycle === 'h24' ? 'h23' : null;
  return `${parsed.language}${parsed.region ? `-${parsed.region}` : ''}${cycle ? `-u-hc-${cycle}` : ''}`;
}

function hourCycle(options: TimeOptions): Intl.DateTimeFormatOptions {
  // hourCycle, not hour12: `hour12: false` alone gives "24:00" at midnight in some ICU versions.
  return options.hour12 === undefined ? {} : { hourCycle: options.hour12 ? 'h12' : 'h23' };
}
