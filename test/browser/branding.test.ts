import { afterAll, describe, expect, it } from 'vitest';
import { contrastRatio, MIN_CONTRAST } from '../../src/domain/branding.js';
import type { BookingMessagePayload } from '../../src/mail/booking-message.js';
import { renderBookingMessage } from '../../src/mail/render.js';
import { HAS_CHROMIUM } from '../helpers.js';
import { startLogoServer } from '../http/logo-server.js';
import { chooseFirstSlot, createTopic, seriousViolations, shot, useServerAndBrowser } from './harness.js';

/** "#aabbcc" as the browser reports a computed colour. */
const rgb = (hex: string) => `rgb(${[1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16)).join(', ')})`;

/**
 * A branded business in Chromium at a phone's width (360 px): its booking page (logo, name,
 * the light colour it chose darkened so white text on it keeps 4.5:1, the topic in Polish,
 * its message after booking) and its HTML e-mail, light and dark. Screenshots go to
 * test/artifacts/brand-*.png for a person to look at.
 */
describe.runIf(HAS_CHROMIUM)('a branded booking page and e-mail in a browser', () => {
  let images: Awaited<ReturnType<typeof startLogoServer>> | undefined;
  const t = useServerAndBrowser({
    env: async () => {
      images = await startLogoServer();
      return { ALLOW_PRIVATE_URLS: 'true' };
    },
  });
  afterAll(async () => images?.close());
  const PHONE = { viewport: { width: 360, height: 780 }, locale: 'pl-PL' };
  const CHOSEN = '#fbbf24';

  it('shows the logo, the name and the darkened accent on the booking page, and the message after booking', async () => {
    const branded = await t.server.api('PATCH', '/account', { branding: { businessName: 'Gabinet Acme', logoUrl: `${images!.url}/logo.png`, accentColor: CHOSEN } });
    expect(branded.status).toBe(200);
    const accent = branded.body.branding.accentColorUsed as string;
    expect(accent).not.toBe(CHOSEN);
    expect(contrastRatio(CHOSEN, '#ffffff')).toBeLessThan(MIN_CONTRAST);
    expect(contrastRatio(accent, '#ffffff')).toBeGreaterThanOrEqual(MIN_CONTRAST);
    const topic = await createTopic(t.server, {
      name: 'Check-up',
      places: ['offline'],
      confirmationMessage: 'Bring your insurance card. Map: https://acme.example/map',
      translations: { pl: { name: 'Przegląd', description: 'Coroczna kontrola.', confirmationMessage: 'Zabierz kartę ubezpieczenia. Mapa: https://acme.example/mapa' } },
    });

    const page = await t.open(`/book/${t.server.owner.username}/${topic.uuid}?lang=pl`, PHONE);
    await page.locator('h1', { hasText: 'Przegląd' }).waitFor();
    expect(await page.textContent('.brand')).toContain('Gabinet Acme');
    expect(await page.evaluate(`document.querySelector('.brand img').naturalWidth`)).toBeGreaterThan(0);
    await chooseFirstSlot(page);
    // The chosen time and the submit button carry the business's colour, darkened.
    expect(await page.evaluate(`getComputedStyle(document.querySelector('#submit')).backgroundColor`)).toBe(rgb(accent));
    expect(await page.evaluate(`getComputedStyle(document.querySelector('#slots button[aria-pressed=true]')).backgroundColor`)).toBe(rgb(accent));
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await page.fill('input[name=name]', 'Zofia Wąs');
    await page.fill('input[name=email]', 'zofia@example.com');
    await shot(page, 'brand-01-booking-360');
    expect(await seriousViolations(page)).toEqual([]);
    await page.click('#submit');
    await page.locator('#done-message').waitFor();
    expect(await page.textContent('#done-message')).toContain('Zabierz kartę ubezpieczenia.');
    expect(await page.getAttribute('#done-message a', 'href')).toBe('https://acme.example/mapa');
    await shot(page, 'brand-02-confirmation-360');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('renders the HTML e-mail at 360 px, light and dark, with the logo termin serves and the darkened accent', async () => {
    const account = (await t.server.api('GET', '/account')).body;
    const payload: BookingMessagePayload = {
      event: 'confirmed',
      recipient: 'participant',
      to: { name: 'Zofia Wąs', email: 'zofia@example.com' },
      lang: 'pl',
      timezone: 'Europe/Warsaw',
      accountName: account.branding.businessName,
      meeting: {
        uuid: '0193b0a4-6f1e-7c3a-9d2b-5e8f1a2b3c4d',
        topicName: 'Przegląd',
        start: Date.parse('2027-03-29T07:00:00Z'),
        end: Date.parse('2027-03-29T07:30:00Z'),
        place: 'offline',
        sequence: 0,
        note: null,
        cancelReason: null,
        phone: null,
        location: {
          place: 'offline',
          text: 'ul. Prosta 1, 00-001 Warszawa',
          url: null,
          address: 'ul. Prosta 1, 00-001 Warszawa',
          conferenceId: null,
          password: null,
          phone: null,
          source: null,
        },
      },
      organizer: { name: 'Olga Owner', email: 'olga@acme.test' },
      attendee: { name: 'Zofia Wąs', email: 'zofia@example.com' },
      manageUrl: `${t.server.url}/booking/AbCdEfGhIjKlMnOpQrStUv`,
      confirmationMessage: 'Zabierz kartę ubezpieczenia. Mapa: https://acme.example/mapa',
      branding: { name: account.branding.businessName, logo: account.branding.logo, accent: account.branding.accentColorUsed },
    } as BookingMessagePayload;
    const { html } = renderBookingMessage(payload);
    const context = await t.browser.newContext({ viewport: { width: 360, height: 780 } });
    const page = await context.newPage();
    await page.setContent(html, { waitUntil: 'load' });
    expect(await page.evaluate(`document.querySelector('img').naturalWidth`)).toBeGreaterThan(0);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    const buttonColour = `getComputedStyle(document.querySelector('a.button').parentElement).backgroundColor`;
    expect(await page.evaluate(buttonColour)).toBe(rgb(account.branding.accentColorUsed));
    const cardColour = `getComputedStyle(document.querySelector('.t-card')).backgroundColor`;
    expect(await page.evaluate(cardColour)).toBe('rgb(255, 255, 255)');
    await shot(page, 'brand-03-email-light-360');

    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await page.evaluate(cardColour)).toBe('rgb(28, 31, 38)');
    const ink = (await page.evaluate(`getComputedStyle(document.querySelector('.t-ink')).color`)) as string;
    expect(ink).toBe('rgb(230, 232, 235)');
    // The button keeps the business's colour and its white text in the dark too.
    expect(await page.evaluate(buttonColour)).toBe(rgb(account.branding.accentColorUsed));
    await shot(page, 'brand-04-email-dark-360');
    await context.close();
  });
});
