import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/context.js';
import { APP_STRINGS } from '../../src/http/app/strings.js';
import { HAS_CHROMIUM } from '../helpers.js';
import { seriousViolations, shot, tabTo, useServerAndBrowser, openOwnerSession } from './harness.js';

/**
 * The account admin's pages in real Chromium against the real server, on a 360 px phone and a
 * desktop, in English and Polish: the owner makes an API key and calls the API with it, sets the
 * business's Zoom app and sees the redirect URI to register; axe-core finds no serious
 * violation on any of the pages. The session is opened through the sign-in link's use case
 * (the sign-in pages have tests of their own).
 */
describe.runIf(HAS_CHROMIUM)("the admin's pages in a browser", () => {
  const t = useServerAndBrowser({ openAllDay: false });
  let sessionToken: string;
  let ctx: AppContext;

  beforeAll(async () => {
    ({ ctx, sessionToken } = await openOwnerSession(t.server));
  });
  afterAll(async () => ctx?.close());

  for (const [lang, width] of [
    ['en', 360],
    ['pl', 1280],
    ['pl', 360],
    ['en', 1280],
  ] as const) {
    it(`${lang}, ${width} px: creates an API key and calls the API with it, sets the Zoom app and sees its redirect URI; 0 serious axe violations`, async () => {
      const s = APP_STRINGS[lang];
      const context = await t.browser.newContext({ timezoneId: 'Europe/Warsaw', locale: lang === 'pl' ? 'pl-PL' : 'en-GB', viewport: { width, height: 900 } });
      await context.addCookies([{ name: 'termin_session', value: sessionToken, domain: '127.0.0.1', path: '/app', httpOnly: true, sameSite: 'Lax' }]);
      const page = await context.newPage();
      page.on('pageerror', (error) => {
        throw error;
      });
      try {
        await page.goto(`${t.server.url}/app/keys?lang=${lang}`);
        expect(await page.textContent('h1')).toBe(s.keysTitle);
        expect(await seriousViolations(page)).toEqual([]);

        // By keyboard: to the label, type it, Enter.
        const label = `Script ${lang} ${width}`;
        await tabTo(page, '#f-key-name');
        await page.keyboard.type(label);
        await page.keyboard.press('Enter');
        await page.locator('#new-key').waitFor();
        const apiKey = await page.inputValue('#new-key');
        expect(apiKey).toMatch(/^tmn_/);
        expect(await page.textContent('#new-key-hint')).toBe(s.keyShownOnce);
        await shot(page, `app-admin-keys-${lang}-${width}`);
        expect(await seriousViolations(page)).toEqual([]);
        const called = await fetch(`${t.server.url}/api/v1/account`, { headers: { accept: 'application/json', 'x-service-api-key': apiKey } });
        expect(called.status).toBe(200);
        // Reloaded, the page lists the key by its label, without the secret.
        await page.goto(`${t.server.url}/app/keys`);
        expect(await page.textContent('main')).toContain(label);
        expect(await page.content()).not.toContain(apiKey);

        await page.goto(`${t.server.url}/app/integrations`);
        expect(await page.inputValue('#f-zoom-redirect')).toBe(`${t.server.url}/oauth/zoom/callback`);
        expect(await page.textContent('#public-url-warning')).toBe(s.publicUrlNotHttps);
        expect(await seriousViolations(page)).toEqual([]);
        await page.fill('#f-zoom-clientId', `zoom-${lang}-${width}`);
        await page.fill('#f-zoom-clientSecret', 'zoom-browser-secret');
        await page.locator('#app-zoom').getByRole('button', { name: s.saveApp }).click();
        await expect.poll(() => page.textContent('.notice')).toContain(s.appSaved);
        expect(await page.textContent('#app-zoom .status')).toBe(s.appConfigured);
        expect(await page.content()).not.toContain('zoom-browser-secret');
        await shot(page, `app-admin-integrations-${lang}-${width}`);
        expect(await seriousViolations(page)).toEqual([]);
        const account = await t.server.api('GET', '/account');
        expect(account.body.integrations).toContainEqual({ provider: 'zoom', configured: true, settings: { clientId: `zoom-${lang}-${width}` } });

        for (const path of ['/app/webhooks', '/app/account', '/app/connections']) {
          await page.goto(`${t.server.url}${path}`);
          expect(await seriousViolations(page), path).toEqual([]);
        }
        await shot(page, `app-admin-connections-${lang}-${width}`);
      } finally {
        await context.close();
      }
    });
  }
});
