import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/context.js';
import { APP_STRINGS } from '../../src/http/app/strings.js';
import { HAS_CHROMIUM } from '../helpers.js';
import { createTopic, openOwnerSession, seriousViolations, shot, useServerAndBrowser } from './harness.js';

/**
 * The topic page's Embed box in Chromium on a 360 px phone: the host opens it, sees the code to
 * paste (the embed script with the topic's slug link), and the preview frame loads the booking
 * page itself (its calendar offers days), which the app's CSP allows and the booking page's
 * allows to be framed. axe-core finds no serious violation with the box open.
 */
describe.runIf(HAS_CHROMIUM)('the Embed box in a browser', () => {
  const t = useServerAndBrowser();
  let sessionToken: string;
  let ctx: AppContext;
  let topic: { uuid: string };

  beforeAll(async () => {
    ({ ctx, sessionToken } = await openOwnerSession(t.server));
    topic = await createTopic(t.server, { name: 'Garden advice', places: ['offline'], placeDetails: { offline: 'ul. Prosta 1, Warszawa' }, slug: 'garden-advice' });
  });
  afterAll(async () => ctx?.close());

  it('360 px: opens the Embed box, sees the code to paste, and the preview frame loads the booking page; 0 serious axe violations', async () => {
    const s = APP_STRINGS.en;
    const context = await t.browser.newContext({ timezoneId: 'Europe/Warsaw', locale: 'en-GB', viewport: { width: 360, height: 800 } });
    await context.addCookies([{ name: 'termin_session', value: sessionToken, domain: '127.0.0.1', path: '/app', httpOnly: true, sameSite: 'Lax' }]);
    const page = await context.newPage();
    page.on('pageerror', (error) => {
      throw error;
    });
    try {
      await page.goto(`${t.server.url}/app/topics/${topic.uuid}?lang=en`);
      const link = `${t.server.url}/book/${t.server.owner.username}/garden-advice`;
      expect(await page.inputValue('#public-link')).toBe(link);
      await page.getByText(s.embedTitle, { exact: true }).click();
      expect(await page.inputValue('#embed-code')).toContain(`data-termin-booking="${link}"`);
      expect(await page.isVisible(`button[data-copy="embed-code"]`)).toBe(true);

      const preview = page.frameLocator('#embed-preview');
      await preview.locator('button[data-date]').first().waitFor({ timeout: 15_000 });
      expect(await preview.locator('h1').first().textContent()).toContain('Garden advice');
      const frame = page.frames().find((candidate) => candidate.url().includes('/book/'));
      expect(frame?.url()).toBe(`${t.server.url}/book/${t.server.owner.username}/garden-advice`);
      // Nothing wider than the phone's screen.
      expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
      await shot(page, 'app-embed-360');
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  for (const lang of ['en', 'pl'] as const) {
    it(`360 px, ${lang}: the profile page renames the member and sets their e-mail language; the new booking link works; 0 serious axe violations`, async () => {
      const s = APP_STRINGS[lang];
      const context = await t.browser.newContext({ timezoneId: 'Europe/Warsaw', locale: lang === 'pl' ? 'pl-PL' : 'en-GB', viewport: { width: 360, height: 800 } });
      await context.addCookies([{ name: 'termin_session', value: sessionToken, domain: '127.0.0.1', path: '/app', httpOnly: true, sameSite: 'Lax' }]);
      const page = await context.newPage();
      page.on('pageerror', (error) => {
        throw error;
      });
      try {
        await page.goto(`${t.server.url}/app/profile?lang=${lang}`);
        expect(await seriousViolations(page)).toEqual([]);
        const renamed = `garden-${lang}`;
        await page.fill('#f-username', renamed);
        await page.selectOption('#f-language', lang);
        await page.click('#profile-form button[type=submit]');
        await page.getByText(s.profileSaved).waitFor();
        expect(await page.inputValue('#f-username')).toBe(renamed);
        expect(await seriousViolations(page)).toEqual([]);
        // A taken name is refused next to its field, in the page's language.
        await page.fill('#f-username', 'teams');
        await page.click('#profile-form button[type=submit]');
        await page.locator('#f-username[aria-invalid="true"]').waitFor();
        expect(await seriousViolations(page)).toEqual([]);
        const booking = await page.goto(`${t.server.url}/book/${renamed}/garden-advice`);
        expect(booking?.status()).toBe(200);
      } finally {
        await context.close();
      }
    });
  }
});
