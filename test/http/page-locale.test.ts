import { describe, expect, it } from 'vitest';
import { pickLang, pickLocale } from '../../src/http/pages/i18n.js';
import { renderTopicList } from '../../src/http/pages/booking.js';
import { renderManagePage, type ManagePageView } from '../../src/http/pages/manage.js';

/** Which locale a server-rendered page formats with, from its language and the visitor's Accept-Language. */
describe('the page locale', () => {
  it.each([
    ['en', 'en-US,en;q=0.9', 'en-US'],
    ['en', 'en-GB,en;q=0.9', 'en-GB'],
    ['en', 'en-gb', 'en-GB'],
    ['en', 'de-DE,en-AU;q=0.5,en-US;q=0.8', 'en-US'],
    ['pl', 'pl-PL,pl;q=0.9', 'pl-PL'],
    // Only a region of the page's own language counts: an English page for a Polish browser reads as the e-mails do.
    ['en', 'pl-PL,pl;q=0.9', 'en'],
    ['pl', 'en-US', 'pl'],
    ['en', 'en', 'en'],
    ['en', undefined, 'en'],
    ['en', 'en-US;q=0,en-GB;q=0.5', 'en-GB'],
    ['en', 'en-Latn-US,en-419', 'en-419'],
  ] as const)('%s page, Accept-Language %s → %s', (lang, acceptLanguage, expected) => {
    expect(pickLocale(lang, acceptLanguage)).toBe(expected);
  });

  it('the language choice: ?lang= first, then the best language we speak (q-values honoured), else English', () => {
    expect(pickLang(undefined, 'it-IT,pl;q=0.8,en;q=0.5')).toBe('pl');
    expect(pickLang(undefined, 'de-DE,pl;q=0.8,en;q=0.5')).toBe('de');
    expect(pickLang(undefined, 'uk-UA,uk;q=0.9')).toBe('uk');
    expect(pickLang(undefined, 'en;q=0.4,es-MX;q=0.9')).toBe('es');
    expect(pickLang('fr', 'pl-PL')).toBe('fr');
    expect(pickLang('en', 'pl-PL')).toBe('en');
    expect(pickLang('xx', 'it,fr;q=0')).toBe('en');
  });

  it.each([
    ['de', 'de-AT,de;q=0.9', 'de-AT'],
    ['uk', 'uk-UA,uk;q=0.9', 'uk-UA'],
    ['fr', 'fr-CA', 'fr-CA'],
    ['es', 'en-US', 'es'],
  ] as const)('a %s page for Accept-Language %s formats as %s', (lang, acceptLanguage, expected) => {
    expect(pickLocale(lang, acceptLanguage)).toBe(expected);
  });

  const view: ManagePageView = {
    lang: 'en',
    locale: 'en',
    token: 'token',
    accountName: null,
    topicName: 'Call',
    hostName: 'Olga Owner',
    start: Date.parse('2027-01-04T14:00:00Z'),
    end: Date.parse('2027-01-04T14:30:00Z'),
    status: 'confirmed',
    place: 'offline',
    location: {} as ManagePageView['location'],
    price: { amount: 15000, currency: 'PLN', paid: true },
    manageUrl: 'https://termin.example/booking/token',
    timezone: 'Europe/Warsaw',
    changeableUntil: null,
    stylesheet: '/assets/booking.css',
    script: '/assets/booking.js',
  };
  const when = (html: string) => /<dd id="when"[^>]*>([^<]*)<\/dd>/.exec(html)?.[1]?.replace(/\u202f/g, ' ');
  const price = (html: string) => /<dd id="price">([^<]*)<\/dd>/.exec(html)?.[1]?.replace(/\u00a0/g, ' ');

  it('the manage page reads 12-hour, month first for en-US; 24-hour, day first for en-GB; Polish money for pl', () => {
    expect(when(String(renderManagePage({ ...view, locale: 'en-US' })))).toBe('Monday, January 4, 2027, 3:00 PM–3:30 PM');
    expect(when(String(renderManagePage({ ...view, locale: 'en-GB' })))).toBe('Monday, 4 January 2027, 15:00–15:30');
    expect(price(String(renderManagePage({ ...view, locale: 'en-GB' })))).toBe('PLN 150.00 (paid)');
    expect(price(String(renderManagePage({ ...view, lang: 'pl', locale: 'pl-PL' })))).toBe('150,00 zł (opłacone)');
  });

  it('the topic list prices by the visitor\'s locale: dollars read "$150.00" in the US, "US$150.00" in Britain', () => {
    const list = (locale: string) =>
      String(
        renderTopicList({
          lang: 'en',
          locale,
          hostName: 'Olga Owner',
          accountName: 'Account',
          stylesheet: '/assets/booking.css',
          topics: [{ url: '/book/olga/x', name: 'Call', description: '', durationMinutes: 30, price: { amount: 15000, currency: 'USD' }, priceVariants: [] }],
        }),
      );
    expect(list('en-US')).toContain('<li>$150.00</li>');
    expect(list('en-GB')).toContain('<li>US$150.00</li>');
  });
});
