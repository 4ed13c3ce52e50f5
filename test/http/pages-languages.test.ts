import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lang } from '../../src/domain/lang.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { createManageToken } from '../../src/scheduling/meetings/manage-token.js';
import { settlePaid } from '../../src/scheduling/payments/settle.js';
import { englishLeaks, OTHER_LANGS, visibleText } from '../i18n/leaks.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, type TestApp } from '../helpers.js';

/**
 * The participant's pages in every language termin speaks besides English: the topic list, a
 * free and a paid topic's booking page, the manage page of a booked meeting (what the booking
 * page shows as its confirmation), the pay page pending and paid, and the page of an unknown
 * link. Each says `<html lang>` right, shows no English (test data: Polish and German names,
 * no English words), and formats money and dates as Intl does for that language.
 */
type Slot = { start: string; username: string };

const ZONE = 'Europe/Warsaw';
const nbsp = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');
const euros = (lang: Lang, amount: number) => nbsp(new Intl.NumberFormat(lang, { style: 'currency', currency: 'EUR' }).format(amount));
const htmlLang = (body: string) => /<html lang="([^"]+)">/.exec(body)?.[1];
/** The texts the page script shows by itself (data-config's strings, plural forms included). */
const scriptTexts = (body: string): string => {
  const config = /data-config="([^"]*)"/.exec(body)?.[1] ?? '{}';
  const strings = JSON.parse(config.replace(/&#34;/g, '"').replace(/&#39;/g, "'").replace(/&#60;/g, '<').replace(/&#62;/g, '>').replace(/&#38;/g, '&')).strings as Record<
    string,
    string | Record<string, string>
  >;
  return Object.values(strings)
    .flatMap((value) => (typeof value === 'string' ? [value] : Object.values(value)))
    .join(' \n ');
};

for (const dialect of DIALECTS) {
  describe(`the participant's pages in every language [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let free: { uuid: string };
    let paid: { uuid: string };
    let slots: Slot[];

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'), { PUBLIC_URL: 'http://termin.test' });
      acme = await createTestAccount(t.ctx, { name: 'Acme', ownerFirstName: 'Olga', ownerLastName: 'Nowak', timezone: ZONE, places: ['offline'] });
      expect(
        (
          await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', {
            gateways: { stripe: { secretKey: 'sk_test_x', webhookSecret: 'whsec_x' }, p24: { merchantId: 1, posId: 1, apiKey: 'k', crc: 'c' } },
          })
        ).statusCode,
      ).toBe(200);
      const topic = async (fields: Record<string, unknown>) => {
        const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
          durationMinutes: 30,
          places: ['offline'],
          public: true,
          bookingWindowDays: 60,
          ...fields,
        });
        expect(response.statusCode, response.body).toBe(201);
        return response.json() as { uuid: string };
      };
      free = await topic({ name: 'Konsultacja' });
      paid = await topic({ name: 'Beratung', price: { amount: 15000, currency: 'EUR' } });
      const schedule = (
        await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic: free.uuid, timezone: ZONE, offset: 0 })
      ).json();
      slots = (schedule.days as { slots: Slot[] }[]).flatMap((day) => day.slots);
      expect(slots.length).toBeGreaterThan(20);
    });
    afterAll(async () => t?.close());

    const page = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers: { accept: 'text/html', ...headers } });
    const book = async (topic: string, lang: Lang, slot: Slot, extra: Record<string, unknown> = {}) => {
      const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [slot],
        email: `jan.${lang}.${slot.start.slice(8, 13)}@example.com`,
        name: 'Jan Kowalski',
        lang,
        place: 'offline',
        meetingTopic: topic,
        timezone: ZONE,
        ...extra,
      });
      expect(response.statusCode, response.body).toBe(201);
      return response.json() as { meetings: { uuid: string; start: string; end: string }[]; payment?: { uuid: string } };
    };
    /** "Montag, 4. Januar 2027" and "09:00" as Intl writes them in that language and zone. */
    const intlDate = (lang: Lang, instant: number) => nbsp(new Intl.DateTimeFormat(lang, { dateStyle: 'full', timeZone: ZONE }).format(instant));
    const intlTime = (lang: Lang, instant: number) => nbsp(new Intl.DateTimeFormat(lang, { timeStyle: 'short', timeZone: ZONE }).format(instant));

    it.each(OTHER_LANGS)('%s: the topic list and a free topic’s page', async (lang) => {
      const list = await page(`/book/${acme.owner.username}?lang=${lang}`);
      expect(list.statusCode).toBe(200);
      expect(htmlLang(list.body)).toBe(lang);
      expect(englishLeaks(visibleText(list.body), lang)).toEqual([]);
      expect(nbsp(visibleText(list.body))).toContain(euros(lang, 150));

      const booking = await page(`/book/${acme.owner.username}/${free.uuid}?lang=${lang}`);
      expect(booking.statusCode).toBe(200);
      expect(htmlLang(booking.body)).toBe(lang);
      expect(englishLeaks(visibleText(booking.body), lang)).toEqual([]);
      expect(englishLeaks(scriptTexts(booking.body), lang)).toEqual([]);
      // The switch names every language in itself, the current one unlinked.
      expect(booking.body).toContain(`<a href="?lang=en" hreflang="en" lang="en">English</a>`);
      expect(booking.body).toContain(`<span lang="${lang}" aria-current="true">`);
    });

    it.each(OTHER_LANGS)('%s: a paid topic’s page, with its price and gateways', async (lang) => {
      const booking = await page(`/book/${acme.owner.username}/${paid.uuid}?lang=${lang}`);
      expect(booking.statusCode).toBe(200);
      expect(htmlLang(booking.body)).toBe(lang);
      const text = visibleText(booking.body);
      expect(englishLeaks(text, lang)).toEqual([]);
      expect(englishLeaks(scriptTexts(booking.body), lang)).toEqual([]);
      expect(nbsp(text)).toContain(euros(lang, 150));
      // The gateways offered: the card's label is the catalogue's ("Karte (Stripe)"), brand names as they are.
      const gateways = [...booking.body.matchAll(/<input type="radio" name="gateway" value="([a-z0-9]+)"[^>]*> <span>([^<]*)<\/span>/g)].map((match) => [match[1], match[2]]);
      expect(gateways).toEqual([
        ['stripe', { pl: 'Karta (Stripe)', de: 'Karte (Stripe)', uk: 'Картка (Stripe)', es: 'Tarjeta (Stripe)', fr: 'Carte (Stripe)' }[lang as Exclude<Lang, 'en'>]],
        ['p24', 'Przelewy24'],
      ]);
      const submit = /<button type="submit" id="submit"[^>]*>([^<]*)<\/button>/.exec(booking.body)?.[1] ?? '';
      expect(nbsp(submit)).toContain(euros(lang, 150));
    });

    it.each(OTHER_LANGS)('%s: the manage page of a booked meeting, and its confirmation texts', async (lang) => {
      const index = OTHER_LANGS.indexOf(lang);
      const booked = await book(free.uuid, lang, slots[index]!);
      const meeting = booked.meetings[0]!;
      const manage = await page(`/booking/${createManageToken(t.ctx.secretKey, meeting.uuid)}`);
      expect(manage.statusCode).toBe(200);
      expect(htmlLang(manage.body)).toBe(lang);
      const text = visibleText(manage.body);
      expect(englishLeaks(text, lang)).toEqual([]);
      expect(englishLeaks(scriptTexts(manage.body), lang)).toEqual([]);
      const when = nbsp(/<dd id="when"[^>]*>([^<]*)<\/dd>/.exec(manage.body)?.[1] ?? '');
      const start = Date.parse(meeting.start);
      expect(when).toContain(intlDate(lang, start));
      expect(when).toContain(intlTime(lang, start));
      expect(when).toContain(intlTime(lang, Date.parse(meeting.end)));
    });

    it.each(OTHER_LANGS)('%s: the pay page, waiting and then paid (the confirmation)', async (lang) => {
      const index = OTHER_LANGS.length + OTHER_LANGS.indexOf(lang);
      const booked = await book(paid.uuid, lang, slots[index]!, { gateway: 'stripe' });
      const start = Date.parse(booked.meetings[0]!.start);
      const pending = await page(`/pay/${booked.payment!.uuid}/return`);
      expect(pending.statusCode).toBe(200);
      expect(htmlLang(pending.body)).toBe(lang);
      expect(pending.body).toContain('data-status="pending"');
      const pendingText = nbsp(visibleText(pending.body));
      expect(englishLeaks(pendingText, lang)).toEqual([]);
      expect(pendingText).toContain(euros(lang, 150));
      expect(pendingText).toContain(intlDate(lang, start));
      expect(pendingText).toContain(intlTime(lang, start));

      expect(await settlePaid(t.ctx, acme.account.uuid, booked.payment!.uuid, `pi_${lang}`)).toBe('confirmed');
      const confirmed = await page(`/pay/${booked.payment!.uuid}/return`);
      expect(confirmed.body).toContain('data-status="paid"');
      expect(htmlLang(confirmed.body)).toBe(lang);
      expect(englishLeaks(visibleText(confirmed.body), lang)).toEqual([]);
    });

    it.each(OTHER_LANGS)('%s: the page of an unknown link, and of a forged manage link', async (lang) => {
      const unknown = await page(`/book/nobody-here/nothing?lang=${lang}`);
      expect(unknown.statusCode).toBe(404);
      expect(htmlLang(unknown.body)).toBe(lang);
      expect(englishLeaks(visibleText(unknown.body), lang)).toEqual([]);
      const forged = await page(`/booking/forged-token?lang=${lang}`);
      expect(forged.statusCode).toBe(404);
      expect(htmlLang(forged.body)).toBe(lang);
      expect(englishLeaks(visibleText(forged.body), lang)).toEqual([]);
    });

    it('picks Ukrainian for Accept-Language uk-UA,uk;q=0.9, and French for ?lang=fr whatever the browser says', async () => {
      const ukrainian = await page(`/book/${acme.owner.username}/${free.uuid}`, { 'accept-language': 'uk-UA,uk;q=0.9' });
      expect(htmlLang(ukrainian.body)).toBe('uk');
      expect(ukrainian.body).toContain('Виберіть день');
      const french = await page(`/book/${acme.owner.username}/${free.uuid}?lang=fr`, { 'accept-language': 'uk-UA,uk;q=0.9' });
      expect(htmlLang(french.body)).toBe('fr');
      expect(french.body).toContain('Choisissez un jour');
      // The topic list's links keep the language chosen.
      const list = await page(`/book/${acme.owner.username}?lang=fr`);
      expect(list.body).toContain(`/book/${acme.owner.username}/${free.uuid}?lang=fr`);
      // An unknown link's page too follows the browser.
      expect(htmlLang((await page('/book/nobody-here/nothing', { 'accept-language': 'uk-UA,uk;q=0.9' })).body)).toBe('uk');
    });
  });
}
