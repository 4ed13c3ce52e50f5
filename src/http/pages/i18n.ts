import type { Gateway } from '../../domain/account.js';
import type { Lang } from '../../domain/meeting.js';
import type { FormatLocale } from '../../domain/formats.js';

/**
 * The pages' words in English and Polish. The server renders with them, and the page script
 * gets the few it needs (`clientStrings`) through a data attribute: no second copy to drift.
 */
const en = {
  bookWith: 'Book a meeting with',
  topicsEmpty: 'Nothing can be booked here right now.',
  minutes: 'min',
  free: 'Free',
  price: 'Price',
  from: 'from',
  places: 'Where',
  timezone: 'Time zone',
  timezoneHint: 'Type a city, country or zone, e.g. Warsaw, India or UTC+2',
  tzUnknown: 'No time zone matches “{value}”. Choose one from the list; times are still shown in {zone}.',
  tzLinkUnknown: 'The link asks for the time zone “{value}”, which is not one this page knows, so times are shown in yours. Choose another below.',
  chooseDay: 'Choose a day',
  chooseTime: 'Choose a time',
  prevMonth: 'Previous month',
  nextMonth: 'Next month',
  loading: 'Loading free times…',
  noDays: 'No free times this month. Try the next month.',
  noTimes: 'No free times on this day.',
  loadFailed: 'The free times could not be loaded. Check your connection and try again.',
  retry: 'Try again',
  available: 'free times',
  selected: 'Selected time',
  changeTime: 'Change time',
  yourDetails: 'Your details',
  name: 'Your name',
  email: 'E-mail',
  phone: 'Phone',
  note: 'Anything the host should know?',
  place: 'Where',
  priceVariant: 'Option',
  discount: 'Discount code',
  invoice: 'I need an invoice',
  invoiceName: 'Name or company',
  invoiceAddress: 'Street address',
  invoicePostalCode: 'Postal code',
  invoiceCity: 'City',
  invoiceTaxNumber: 'Tax number',
  gateway: 'Pay with',
  optional: '(optional)',
  required: '(required)',
  honeypot: 'Leave this field empty',
  confirm: 'Confirm booking',
  confirmPay: 'Continue to payment',
  beforeDiscount: 'before discount',
  discountApplied: 'Code {code}: {price} → {total}',
  timeFormat: 'Time format',
  hour12: '12-hour',
  hour24: '24-hour',
  sending: 'Booking…',
  bookedTitle: 'You are booked',
  bookedText: 'A confirmation with a calendar invitation is on its way to',
  payingTitle: 'Almost done',
  payingText: 'Taking you to the payment page…',
  payLink: 'Go to the payment page',
  slotTaken: 'Sorry, that time was just booked by someone else. The free times have been refreshed: please choose another time.',
  linkFollows: 'the link to join follows by e-mail',
  fixErrors: 'Please check the highlighted fields.',
  discountInvalid: 'This discount code is not valid.',
  rateLimited: 'Too many attempts. Please wait a minute and try again.',
  failed: 'Something went wrong. Please try again.',
  noscript: 'This page needs JavaScript to show the free times.',
  duration: 'Length',
  guests: 'Add guests',
  guestsHint: 'Their e-mail addresses, separated by commas (at most 10). They get the invitation too.',
  showIfHint: 'Only if “{question}” is “{value}”.',
  yes: 'Yes',
  no: 'No',
  with: 'With',
  when: 'When',
  manageTitle: 'Your booking',
  status: 'Status',
  status_confirmed: 'Confirmed',
  status_pending_payment: 'Awaiting payment',
  status_expired: 'Expired',
  status_cancelled: 'Cancelled',
  status_pending_approval: 'Awaiting the host',
  status_declined: 'Declined',
  requestedTitle: 'Your request awaits the host',
  requestedText: 'The host will approve or decline it; the time is held for you until then. We wrote to',
  cancelHeading: 'Cancel this booking',
  reason: 'Reason',
  cancel: 'Cancel booking',
  cancelled: 'Your booking is cancelled. The host has been told.',
  moveHeading: 'Move to another time',
  move: 'Move booking',
  moved: 'Your booking has been moved. An updated invitation is on its way.',
  tooLate: 'This booking can no longer be changed online. Please contact the host.',
  changeUntil: 'You can cancel or move it until',
  join: 'Join',
  paid: 'paid',
  unpaid: 'awaiting payment',
  addToCalendar: 'Add to your calendar',
  icsDownload: 'Apple Calendar and others (.ics)',
  manageLink: 'Reschedule or cancel',
  bookAgain: 'Book another time',
  requestBooking: 'Request booking',
  notFound: 'This link is not valid or has expired.',
  onceGoneTitle: 'This booking link has been used',
  onceGone: 'This link was for one booking only, and it has been used or has expired. If you still need a time, ask for a new link.',
  language: 'Language',
  seatLeft: '{count} seat left',
  seatsLeft: '{count} seats left',
} as const;

export type Strings = { [K in keyof typeof en]: string };

const pl: Strings = {
  bookWith: 'Umów spotkanie z',
  topicsEmpty: 'Obecnie nie można tu niczego zarezerwować.',
  minutes: 'min',
  free: 'Bezpłatnie',
  price: 'Cena',
  from: 'od',
  places: 'Gdzie',
  timezone: 'Strefa czasowa',
  timezoneHint: 'Wpisz miasto, kraj lub strefę, np. Polska, New York lub UTC+2',
  tzUnknown: 'Żadna strefa czasowa nie pasuje do „{value}”. Wybierz ją z listy; godziny są nadal pokazane w strefie {zone}.',
  tzLinkUnknown: 'Link wskazuje strefę czasową „{value}”, której ta strona nie zna, więc godziny są pokazane w Twojej strefie. Wybierz inną poniżej.',
  chooseDay: 'Wybierz dzień',
  chooseTime: 'Wybierz godzinę',
  prevMonth: 'Poprzedni miesiąc',
  nextMonth: 'Następny miesiąc',
  loading: 'Wczytywanie wolnych terminów…',
  noDays: 'Brak wolnych terminów w tym miesiącu. Sprawdź następny miesiąc.',
  noTimes: 'Brak wolnych godzin tego dnia.',
  loadFailed: 'Nie udało się wczytać wolnych terminów. Sprawdź połączenie i spróbuj ponownie.',
  retry: 'Spróbuj ponownie',
  available: 'wolne terminy',
  selected: 'Wybrany termin',
  changeTime: 'Zmień termin',
  yourDetails: 'Twoje dane',
  name: 'Imię i nazwisko',
  email: 'E-mail',
  phone: 'Telefon',
  note: 'Czy prowadzący powinien coś wiedzieć?',
  place: 'Gdzie',
  priceVariant: 'Wariant',
  discount: 'Kod rabatowy',
  invoice: 'Potrzebuję faktury',
  invoiceName: 'Imię i nazwisko lub firma',
  invoiceAddress: 'Ulica i numer',
  invoicePostalCode: 'Kod pocztowy',
  invoiceCity: 'Miejscowość',
  invoiceTaxNumber: 'NIP',
  gateway: 'Zapłać przez',
  optional: '(opcjonalnie)',
  required: '(wymagane)',
  honeypot: 'Zostaw to pole puste',
  confirm: 'Potwierdź rezerwację',
  confirmPay: 'Przejdź do płatności',
  beforeDiscount: 'przed rabatem',
  discountApplied: 'Kod {code}: {price} → {total}',
  timeFormat: 'Format godziny',
  hour12: '12-godzinny',
  hour24: '24-godzinny',
  sending: 'Rezerwuję…',
  bookedTitle: 'Rezerwacja potwierdzona',
  bookedText: 'Potwierdzenie z zaproszeniem do kalendarza wysłaliśmy na adres',
  payingTitle: 'Jeszcze chwila',
  payingText: 'Przechodzimy do strony płatności…',
  payLink: 'Przejdź do strony płatności',
  slotTaken: 'Niestety ktoś właśnie zarezerwował ten termin. Odświeżyliśmy wolne terminy: wybierz inną godzinę.',
  linkFollows: 'link do spotkania prześlemy e-mailem',
  fixErrors: 'Sprawdź zaznaczone pola.',
  discountInvalid: 'Ten kod rabatowy jest nieważny.',
  rateLimited: 'Zbyt wiele prób. Odczekaj minutę i spróbuj ponownie.',
  failed: 'Coś poszło nie tak. Spróbuj ponownie.',
  noscript: 'Ta strona potrzebuje JavaScriptu, aby pokazać wolne terminy.',
  duration: 'Długość',
  guests: 'Dodaj gości',
  guestsHint: 'Ich adresy e-mail, oddzielone przecinkami (najwyżej 10). Oni też dostaną zaproszenie.',
  showIfHint: 'Tylko jeśli „{question}” to „{value}”.',
  yes: 'Tak',
  no: 'Nie',
  with: 'Z kim',
  when: 'Kiedy',
  manageTitle: 'Twoja rezerwacja',
  status: 'Status',
  status_confirmed: 'Potwierdzona',
  status_pending_payment: 'Oczekuje na płatność',
  status_expired: 'Wygasła',
  status_cancelled: 'Odwołana',
  status_pending_approval: 'Czeka na gospodarza',
  status_declined: 'Odrzucona',
  requestedTitle: 'Twoja prośba czeka na gospodarza',
  requestedText: 'Gospodarz ją zaakceptuje lub odrzuci; do tego czasu termin jest dla Ciebie zarezerwowany. Napisaliśmy na adres',
  cancelHeading: 'Odwołaj rezerwację',
  reason: 'Powód',
  cancel: 'Odwołaj rezerwację',
  cancelled: 'Rezerwacja została odwołana. Prowadzący został powiadomiony.',
  moveHeading: 'Przenieś na inny termin',
  move: 'Przenieś rezerwację',
  moved: 'Rezerwacja została przeniesiona. Zaktualizowane zaproszenie jest w drodze.',
  tooLate: 'Tej rezerwacji nie można już zmienić online. Skontaktuj się z prowadzącym.',
  changeUntil: 'Termin na odwołanie lub przeniesienie:',
  join: 'Dołącz',
  paid: 'opłacone',
  unpaid: 'oczekuje na płatność',
  addToCalendar: 'Dodaj do kalendarza',
  icsDownload: 'Kalendarz Apple i inne (.ics)',
  manageLink: 'Zmień termin lub odwołaj',
  bookAgain: 'Umów inny termin',
  requestBooking: 'Poproś o ten termin',
  notFound: 'Ten link jest nieprawidłowy lub wygasł.',
  onceGoneTitle: 'Ten link do rezerwacji został już użyty',
  onceGone: 'Ten link pozwalał na jedną rezerwację i został już użyty lub wygasł. Jeśli nadal potrzebujesz terminu, poproś o nowy link.',
  language: 'Język',
  // One form for every count: the plural of „miejsce” changes with the number, the label does not.
  seatLeft: 'Wolne miejsca: {count}',
  seatsLeft: 'Wolne miejsca: {count}',
};

export const STRINGS: Record<Lang, Strings> = { en, pl };

export { PLACE_LABELS } from '../../i18n/place-labels.js';

export const GATEWAY_LABELS: Record<Gateway, string> = {
  stripe: 'Card (Stripe)',
  p24: 'Przelewy24',
  payu: 'PayU',
  paypal: 'PayPal',
  tpay: 'Tpay',
};

/** The strings the page script shows by itself (errors, states); the rest is rendered. */
export const CLIENT_STRING_KEYS = [
  'loading',
  'tzUnknown',
  'noDays',
  'noTimes',
  'loadFailed',
  'retry',
  'available',
  'confirm',
  'confirmPay',
  'beforeDiscount',
  'discountApplied',
  'sending',
  'bookedTitle',
  'bookedText',
  'payingTitle',
  'payingText',
  'payLink',
  'slotTaken',
  'linkFollows',
  'fixErrors',
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
  'requestedText',
  'seatLeft',
  'seatsLeft',
  'duration',
  'minutes',
] as const satisfies readonly (keyof Strings)[];

export function clientStrings(lang: Lang): Record<string, string> {
  const strings = STRINGS[lang];
  return Object.fromEntries(CLIENT_STRING_KEYS.map((key) => [key, strings[key]]));
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

/**
 * `?lang=` wins, then the first of `Accept-Language` we speak (q-values honoured), else English:
 * `pickLang(undefined, 'de-DE,pl;q=0.8,en;q=0.5')` → 'pl'.
 */
export function pickLang(query: string | undefined, acceptLanguage: string | undefined): Lang {
  if (query === 'en' || query === 'pl') return query;
  for (const tag of rankedTags(acceptLanguage)) {
    const base = tag.split('-')[0];
    if (base === 'pl' || base === 'en') return base;
  }
  return 'en';
}

/**
 * The locale the page formats with: the visitor's own region of the page's language when
 * Accept-Language names one (`en-US` → 12-hour, month first; `en-GB` → 24-hour, day first),
 * else the language alone as the e-mails read it (`en`, `pl`), so a page and its e-mail agree.
 * A region of another language is not taken: an English page for a `pl-PL` browser reads `en`.
 */
export function pickLocale(lang: Lang, acceptLanguage: string | undefined): FormatLocale {
  for (const tag of rankedTags(acceptLanguage)) {
    const match = /^([a-z]{2})-([a-z]{2}|[0-9]{3})$/.exec(tag);
    if (match && match[1] === lang) return `${lang}-${match[2]!.toUpperCase()}`;
  }
  return lang;
}
