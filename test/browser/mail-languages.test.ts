import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGS, type Lang } from '../../src/domain/lang.js';
import type { BookingMessagePayload } from '../../src/mail/booking-message.js';
import { renderBookingMessage } from '../../src/mail/render.js';
import { HAS_CHROMIUM } from '../helpers.js';
import { launchBrowser } from './harness.js';

/**
 * A branded confirmation in each language as a phone's mail program shows it: 360 px wide, in
 * light and in dark mode. The longest words of each language (German compounds, a Ukrainian
 * date) must wrap rather than run off the screen, dark mode must turn the card dark, and the
 * only thing the message loads is the business's logo from termin's own address. Screenshots
 * land in test/artifacts/mail-languages/ (beside the other browser suites' screenshots) for a person to look at.
 */
const SHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../artifacts/mail-languages');
const LOGO = 'https://book.acme.test/branding/0193b0a4-6f1e-7c3a-9d2b-5e8f1a2b3c4d.png?v=1';
const ROOM = 'https://zoom.us/j/81234567890?pwd=Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4';
/** A 1×1 PNG: the logo as termin would serve it. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

const WORDS: Record<Lang, { name: string; topic: string; message: string }> = {
  en: { name: 'Olga Nowak', topic: 'Tax consultation for sole proprietors', message: 'Bring last year’s return. Map: https://acme.example/map' },
  pl: { name: 'Zofia Wąs', topic: 'Konsultacja podatkowa dla przedsiębiorców', message: 'Proszę zabrać zeznanie za zeszły rok. Mapa: https://acme.example/mapa' },
  de: {
    name: 'Greta Vogel-Schwarzenberger',
    topic: 'Steuerberatungsgespräch für Einzelunternehmerinnen',
    message: 'Bitte bringen Sie Ihre Einkommensteuererklärung mit. Karte: https://acme.example/karte',
  },
  uk: { name: 'Олена Коваль', topic: 'Податкова консультація для підприємців', message: 'Візьміть, будь ласка, декларацію за минулий рік. Мапа: https://acme.example/mapa' },
  es: { name: 'Lucía Ortega', topic: 'Asesoría fiscal para autónomos', message: 'Traiga la declaración del año pasado. Mapa: https://acme.example/mapa' },
  fr: {
    name: 'Camille Durand',
    topic: 'Consultation fiscale pour entrepreneurs individuels',
    message: 'Apportez votre déclaration de l’an dernier. Plan : https://acme.example/plan',
  },
};

/**
 * Read in the page: how wide the document is, the text boxes whose text runs past the screen or
 * past their own box (clipped), and the colours of the card and its text.
 */
const LAYOUT = `(() => {
  const width = document.documentElement.clientWidth;
  const clipped = [...document.querySelectorAll('p, th, td, span')]
    .filter((element) => element.getBoundingClientRect().right > width + 0.5 || element.scrollWidth > element.clientWidth + 1)
    .map((element) => element.textContent.trim().slice(0, 40));
  return {
    scrollWidth: document.documentElement.scrollWidth,
    clipped,
    card: getComputedStyle(document.querySelector('.t-card')).backgroundColor,
    ink: getComputedStyle(document.querySelector('td.t-ink')).color,
  };
})()`;

function confirmation(lang: Lang) {
  const words = WORDS[lang];
  const payload: BookingMessagePayload = {
    event: 'confirmed',
    recipient: 'participant',
    to: { name: words.name, email: 'anna@example.com' },
    lang,
    timezone: lang === 'uk' ? 'Europe/Kyiv' : 'Europe/Warsaw',
    accountName: 'Acme Doradztwo',
    meeting: {
      uuid: '0193b0a4-6f1e-7c3a-9d2b-5e8f1a2b3c4d',
      topicName: words.topic,
      start: Date.parse('2027-03-29T07:00:00Z'),
      end: Date.parse('2027-03-29T07:30:00Z'),
      place: 'zoom',
      sequence: 0,
      note: null,
      cancelReason: null,
      phone: null,
      location: { place: 'zoom', text: ROOM, url: ROOM, address: null, conferenceId: '812 3456 7890', password: '123456', phone: null, source: null },
    },
    organizer: { name: 'Anna Nowak-Wiśniewska', email: 'anna.nowak-wisniewska@acme-doradztwo.example.com' },
    attendee: { name: words.name, email: 'anna@example.com' },
    guests: ['katarzyna.wisniewska-nowakowska@example.com'],
    manageUrl: 'https://book.acme.test/booking/AbCdEfGhIjKlMnOpQrStUv',
    paid: { amount: 15000, currency: lang === 'uk' ? 'UAH' : 'EUR' },
    confirmationMessage: words.message,
    branding: { name: 'Acme Doradztwo', logo: LOGO, accent: '#0a6e4f' },
  };
  return renderBookingMessage(payload);
}

describe.runIf(HAS_CHROMIUM)('a branded confirmation in each language on a phone, light and dark', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
    fs.mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => browser?.close());

  for (const lang of LANGS) {
    it(`${lang}: nothing runs off 360 px, dark mode darkens the card, the logo is the one thing loaded, from termin`, async () => {
      const { html } = confirmation(lang);
      // In the HTML itself: no image, style sheet, font or frame from anywhere but the logo's address.
      expect([...html.matchAll(/\ssrc="([^"]*)"/g)].map((match) => match[1]!.replaceAll('&amp;', '&'))).toEqual([LOGO]);
      expect(html).not.toMatch(/<link\b|@import|url\(|<iframe|<script/i);

      const page = await browser.newPage({ viewport: { width: 360, height: 800 } });
      try {
        const requested: string[] = [];
        await page.route('**/*', async (route) => {
          requested.push(route.request().url());
          if (route.request().url() === LOGO) await route.fulfill({ status: 200, contentType: 'image/png', body: PNG });
          else await route.abort();
        });
        await page.setContent(html, { waitUntil: 'load' });
        for (const scheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          const layout = (await page.evaluate(LAYOUT)) as { scrollWidth: number; clipped: string[]; card: string; ink: string };
          expect(layout.scrollWidth, `${lang} ${scheme}`).toBeLessThanOrEqual(360);
          expect(layout.clipped, `${lang} ${scheme}`).toEqual([]);
          expect(layout.card).toBe(scheme === 'dark' ? 'rgb(28, 31, 38)' : 'rgb(255, 255, 255)');
          expect(layout.ink).toBe(scheme === 'dark' ? 'rgb(230, 232, 235)' : 'rgb(31, 35, 40)');
          await page.screenshot({ path: path.join(SHOTS, `confirmation-${lang}-360-${scheme}.png`), fullPage: true });
        }
        // The logo showed, and nothing else was asked for.
        expect(await page.evaluate(`document.querySelector('img').naturalWidth`)).toBe(1);
        expect([...new Set(requested)]).toEqual([LOGO]);
      } finally {
        await page.close();
      }
    });
  }
});
