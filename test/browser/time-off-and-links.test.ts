import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/context.js';
import { APP_STRINGS } from '../../src/http/app/strings.js';
import { STRINGS } from '../../src/http/pages/i18n.js';
import { HAS_CHROMIUM } from '../helpers.js';
import { chooseFirstSlot, createTopic, openOwnerSession, seriousViolations, shot, useServerAndBrowser } from './harness.js';

/**
 * Issue 41's new pages on a 360 px phone, in English and Polish, with axe-core: the host adds
 * time off with a stand-in on "Time off" and sees it listed; a participant books through a
 * single-use link, and the same link then answers the friendly 410 page.
 */
describe.runIf(HAS_CHROMIUM)('time off and single-use links in a browser', () => {
  const t = useServerAndBrowser();
  let sessionToken: string;
  let ctx: AppContext;
  let standIn: string;

  beforeAll(async () => {
    ({ ctx, sessionToken } = await openOwnerSession(t.server));
    const added = await t.server.api('POST', `/teams/${t.server.owner.teamUuid}/users`, { firstName: 'Stella', lastName: 'Standin', email: 'stella@example.com' });
    expect(added.status).toBe(201);
    standIn = added.body.username;
  });
  afterAll(async () => ctx?.close());

  const phone = (lang: 'en' | 'pl') => ({
    timezoneId: 'Europe/Warsaw',
    locale: lang === 'pl' ? 'pl-PL' : 'en-GB',
    viewport: { width: 360, height: 740 },
    isMobile: true,
    hasTouch: true,
  });

  for (const [lang, daysAhead] of [
    ['en', 20],
    ['pl', 30],
  ] as const) {
    it(`${lang}: adds time off with a stand-in through the page and sees it listed; 0 serious axe violations`, async () => {
      const s = APP_STRINGS[lang].timeOff;
      const context = await t.browser.newContext(phone(lang));
      await context.addCookies([{ name: 'termin_session', value: sessionToken, domain: '127.0.0.1', path: '/app', httpOnly: true, sameSite: 'Lax' }]);
      const page = await context.newPage();
      page.on('pageerror', (error) => {
        throw error;
      });
      try {
        await page.goto(`${t.server.url}/app/time-off?lang=${lang}`);
        expect(await page.textContent('h1')).toBe(s.title);
        expect(await seriousViolations(page)).toEqual([]);
        const day = new Date(Date.now() + daysAhead * 86_400_000).toISOString().slice(0, 10);
        await page.fill('#f-start', `${day}T09:00`);
        await page.fill('#f-end', `${day}T17:00`);
        await page.fill('#f-reason', `Conference ${lang}`);
        await page.fill('#f-delegate', standIn);
        await page.getByRole('button', { name: s.add, exact: true }).click();
        await page.getByText(s.added).waitFor();
        const listed = page.locator('#h-time-off ~ ul li', { hasText: `Conference ${lang}` });
        expect(await listed.locator('dd').allTextContents()).toEqual([`Conference ${lang}`, standIn]);
        expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
        await shot(page, `time-off-360-${lang}`);
        expect(await seriousViolations(page)).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it(`${lang}: books once through a single-use link, then the link is a friendly 410 page; 0 serious axe violations`, async () => {
      const topic = await createTopic(t.server, { name: `Private ${lang}`, places: ['offline'], public: false });
      const link = await t.server.api('POST', `/meeting-topics/${topic.uuid}/single-use-links`, {});
      expect(link.status).toBe(201);
      const url = `${link.body.url}?lang=${lang}`;
      const page = await t.open(url, phone(lang));
      try {
        expect(await page.textContent('h1')).toBe(`Private ${lang}`);
        await chooseFirstSlot(page, 1);
        await page.fill('input[name=name]', 'Jan Kowalski');
        await page.fill('input[name=email]', `jan.once.${lang}@example.com`);
        expect(await seriousViolations(page)).toEqual([]);
        await page.click('#submit');
        await page.locator('#done').waitFor();
        expect(await seriousViolations(page)).toEqual([]);

        const again = await page.goto(url);
        expect(again?.status()).toBe(410);
        expect(await page.textContent('h1')).toBe(STRINGS[lang].onceGoneTitle);
        expect(await page.textContent('main p')).toBe(STRINGS[lang].onceGone);
        expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
        await shot(page, `single-use-gone-360-${lang}`);
        expect(await seriousViolations(page)).toEqual([]);
      } finally {
        await page.context().close();
      }
    });
  }
});
