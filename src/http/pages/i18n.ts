import type { Gateway } from '../../domain/account.js';
import { isLang, type Lang } from '../../domain/lang.js';
import type { FormatLocale } from '../../domain/formats.js';
import { buildForEachLang, type Translate } from '../../i18n/catalogue.js';

/**
 * The participant's pages' words, from locales/<lang>/pages.json. The server renders with
 * them, and the page script gets the few it needs (`clientStrings`) through a data attribute:
 * no second copy to drift.
 */
function pageStrings(t: Translate) {
  return {
    bookWith: (name: string) => t('bookWith', { name }),
    topicsEmpty: t('topicsEmpty'),
    minutes: t('minutes'),
    free: t('free'),
    price: t('price'),
    from: (price: string) => t('from', { price }),
    places: t('places'),
    timezone: t('timezone'),
    timezoneHint: t('timezoneHint'),
    tzLinkUnknown: (value: string) => t('tzLinkUnknown', { value }),
    chooseDay: t('chooseDay'),
    chooseTime: t('chooseTime'),
    prevMonth: t('prevMonth'),
    nextMonth: t('nextMonth'),
    loading: t('loading'),
    selected: t('selected'),
    changeTime: t('changeTime'),
    yourDetails: t('yourDetails'),
    name: t('name'),
    email: t('email'),
    phone: t('phone'),
    note: t('note'),
    place: t('place'),
    priceVariant: t('priceVariant'),
    discount: t('discount'),
    invoice: t('invoice'),
    invoiceName: t('invoiceName'),
    invoiceAddress: t('invoiceAddress'),
    invoicePostalCode: t('invoicePostalCode'),
    invoiceCity: t('invoiceCity'),
    invoiceTaxNumber: t('invoiceTaxNumber'),
    gateway: t('gateway'),
    optional: t('optional'),
    required: t('required'),
    honeypot: t('honeypot'),
    confirm: t('confirm'),
    confirmPay: t('confirmPay'),
    timeFormat: t('timeFormat'),
    hour12: t('hour12'),
    hour24: t('hour24'),
    noscript: t('noscript'),
    duration: t('duration'),
    guests: t('guests'),
    guestsHint: t('guestsHint'),
    showIfHint: (question: string, value: string) => t('showIfHint', { question, value }),
    yes: t('yes'),
    no: t('no'),
    with: t('with'),
    when: t('when'),
    manageTitle: t('manageTitle'),
    status: t('status'),
    status_confirmed: t('status_confirmed'),
    status_pending_payment: t('status_pending_payment'),
    status_expired: t('status_expired'),
    status_cancelled: t('status_cancelled'),
    status_pending_approval: t('status_pending_approval'),
    status_declined: t('status_declined'),
    cancelHeading: t('cancelHeading'),
    reason: t('reason'),
    cancel: t('cancel'),
    moveHeading: t('moveHeading'),
    move: t('move'),
    tooLate: t('tooLate'),
    /** The sentence around the deadline, split where the deadline goes (the page wraps it in its own element). */
    changeUntil: around(t, 'changeUntil', 'time'),
    join: t('join'),
    paid: t('paid'),
    unpaid: t('unpaid'),
    addToCalendar: t('addToCalendar'),
    icsDownload: t('icsDownload'),
    manageLink: t('manageLink'),
    bookAgain: t('bookAgain'),
    requestBooking: t('requestBooking'),
    notFound: t('notFound'),
    onceGoneTitle: t('onceGoneTitle'),
    onceGone: t('onceGone'),
    language: t('language'),
  };
}

export type Strings = ReturnType<typeof pageStrings>;

/** `'You can cancel or move it until {time}.'` → `['You can cancel or move it until ', '.']`. */
function around(t: Translate, key: string, name: string): readonly [string, string] {
  const marker = '\u0000';
  const [before = '', after = ''] = t(key, { [name]: marker }).split(marker);
  return [before, after];
}

export const STRINGS: Record<Lang, Strings> = buildForEachLang('pages', (t) => pageStrings(t));

export { PLACE_LABELS } from '../../i18n/place-labels.js';

/** How each gateway is offered on the booking page ("Card (Stripe)", "Karta (Stripe)"). */
export const GATEWAY_LABELS = buildForEachLang(
  'pages',
  (t): Record<Gateway, string> => ({
    stripe: t('gateways.stripe'),
    p24: t('gateways.p24'),
    payu: t('gateways.payu'),
    paypal: t('gateways.paypal'),
    tpay: t('gateways.tpay'),
  }),
);

/** The embedded booking page's frame title (embed.js), per language. */
export const EMBED_TITLES: Record<Lang, string> = buildForEachLang('pages', (t) => t('embedTitle'));

/** Each language named in itself, for the page's language switch. */
export const LANGUAGE_NAMES: Record<Lang, string> = {
  en: 'English',
  pl: 'Polski',
  de: 'Deutsch',
  uk: 'Українська',
  es: 'Español',
  fr: 'Français',
};

/**
 * The strings the page script shows by itself (errors, states); the rest is rendered. Values
 * it fills in itself keep their `{name}` (the script replaces them); a plural message goes as
 * its forms by category (`{ one: '{count} seat left', other: '{count} seats left' }`), which
 * the script picks with Intl.PluralRules.
 */
const CLIENT_TEXTS = [
  'loading',
  'noDays',
  'noTimes',
  'loadFailed',
  'retry',
  'confirm',
  'confirmPay',
  'beforeDiscount',
  'sending',
  'bookedTitle',
  'payingTitle',
  'payingText',
  'payLink',
  'slotTaken',
  'linkFollows',
  'fixErrors',
  'fieldInvalid',
  'discountInvalid',
  'rateLimited',
  'failed',
  'cancelled',
  'moved',
  'tooLate',
  'notFound',
  'onceGone',
  'prevMonth',
  'nextMonth',
  'when',
  'status_confirmed',
  'status_pending_payment',
  'status_expired',
  'status_cancelled',
  'status_pending_approval',
  'status_declined',
  'requestedTitle',
  'duration',
  'minutes',
] as const;

/** Messages with values the script fills in: each value's name. */
const CLIENT_TEMPLATES: Record<string, readonly string[]> = {
  tzUnknown: ['value', 'zone'],
  discountApplied: ['code', 'price', 'total'],
  bookedText: ['email'],
  requestedText: ['email'],
};

const CLIENT_PLURALS = ['seatsLeft', 'available'] as const;

export type ClientStrings = Record<string, string | Record<string, string>>;

/**
 * A plural message's forms, one per plural category the language uses for counts up to 1000,
 * with `{count}` where the number goes: formatted through the catalogue with a number of each
 * category, then that number replaced.
 */
export function pluralForms(t: Translate, lang: Lang, key: string): Record<string, string> {
  const rules = new Intl.PluralRules(lang);
  const number = new Intl.NumberFormat(lang);
  const forms: Record<string, string> = {};
  for (let count = 0; count <= 1000; count += 1) {
    const category = rules.select(count);
    if (forms[category] !== undefined) continue;
    forms[category] = t(key, { count }).replace(number.format(count), '{count}');
  }
  return forms;
}

const CLIENT_STRINGS = buildForEachLang('pages', (t, lang): ClientStrings => {
  const strings: ClientStrings = {};
  for (const key of CLIENT_TEXTS) strings[key] = t(key);
  for (const [key, names] of Object.entries(CLIENT_TEMPLATES)) strings[key] = t(key, Object.fromEntries(names.map((name) => [name, `{${name}}`])));
  for (const key of CLIENT_PLURALS) strings[key] = pluralForms(t, lang, key);
  return strings;
});

export function clientStrings(lang: Lang): ClientStrings {
  return CLIENT_STRINGS[lang];
}

/** Accept-Language's tags, best first (q-values honoured, q=0 dropped), lower-cased. */
function rankedTags(acceptLanguage: string | undefined): string[] {
  return (acceptLanguage ?? '')
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((param) => /^\s*q=([0-9.]+)\s*$/.exec(param)?.[1]).find((value) => value !== undefined);
      return { tag: tag.trim().toLowerCase(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((entry) => entry.tag);
}

/** `'fr'` → 'fr'; anything termin does not speak (or no value) → undefined. */
export function supportedLang(value: unknown): Lang | undefined {
  return isLang(value) ? value : undefined;
}

/**
 * `?lang=` wins, then the first of `Accept-Language` we speak (q-values honoured), else English:
 * `pickLang(undefined, 'it-IT,uk;q=0.8,en;q=0.5')` → 'uk'.
 */
export function pickLang(query: string | undefined, acceptLanguage: string | undefined): Lang {
  const asked = supportedLang(query);
  if (asked) return asked;
  for (const tag of rankedTags(acceptLanguage)) {
    const base = supportedLang(tag.split('-')[0]);
    if (base) return base;
  }
  return 'en';
}

/**
 * The locale the page formats with: the visitor's own region of the page's language when
 * Accept-Language names one (`en-US` → 12-hour, month first; `en-GB` → 24-hour, day first),
 * else the language alone as the e-mails read it (`en`, `pl`, `de`…), so a page and its e-mail agree.
 * A region of another language is not taken: an English page for a `pl-PL` browser reads `en`.
 */
export function pickLocale(lang: Lang, acceptLanguage: string | undefined): FormatLocale {
  for (const tag of rankedTags(acceptLanguage)) {
    const match = /^([a-z]{2})-([a-z]{2}|[0-9]{3})$/.exec(tag);
    if (match && match[1] === lang) return `${lang}-${match[2]!.toUpperCase()}`;
  }
  return lang;
}
