import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGS, type Lang } from '../../src/domain/lang.js';
import type { AppContext } from '../../src/context.js';
import { HAS_CHROMIUM } from '../helpers.js';
import { createTopic, openOwnerSession, preloadAxe, seriousViolations, shot, tabTo, useServerAndBrowser } from './harness.js';

/**
 * The host's web app in each of its six languages (issue 42) in real Chromium on a 360 px
 * phone, against the real server: Upcoming (with a booked meeting), Availability and Profile
 * are in that language, fit the screen and have no serious or critical axe-core violation; the
 * language switch, a row of links each naming its language in itself, works from the keyboard.
 */
const NAMES: Record<Lang, string> = { en: 'English', pl: 'Polski', de: 'Deutsch', uk: 'Українська', es: 'Español', fr: 'Français' };
const PAGES = ['/app', '/app/availability', '/app/profile'];

describe.runIf(HAS_CHROMIUM)('the web app in six languages in a browser', () => {
  const t = useServerAndBrowser();
  let ctx: AppContext | undefined;
  let sessionToken: string;

  beforeAll(async () => {
    ({ ctx, sessionToken } = await openOwnerSession(t.server));
    // A meeting on Upcoming: tomorrow 10:00 UTC, booked by "Jan Kowalski" for "Konsultacja".
    const topic = await createTopic(t.server, { name: 'Konsultacja', places: ['phone-call'] });
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const booked = await t.server.api('POST', '/schedule', {
      dates: [{ start: `${tomorrow}T10:00:00.000Z`, username: t.server.owner.username }],
      email: 'jan@przyklad.pl',
      phone: '+48 601 333 444',
      lang: 'pl',
      name: 'Jan Kowalski',
      place: 'phone-call',
      meetingTopic: topic.uuid,
      timezone: 'Europe/Warsaw',
    });
    expect(booked.status, JSON.stringify(booked.body)).toBe(201);
  }, 60_000);
  afterAll(async () => ctx?.close());

  /** A 360 px phone signed in as the owner, axe-core preloaded. */
  async function phone() {
    const context = await t.browser.newContext({ timezoneId: 'Europe/Warsaw', locale: 'en-GB', viewport: { width: 360, height: 800 } });
    await preloadAxe(context);
    await context.addCookies([{ name: 'termin_session', value: sessionToken, domain: '127.0.0.1', path: '/app', httpOnly: true, sameSite: 'Lax' }]);
    const page = await context.newPage();
    page.on('pageerror', (error) => {
      throw error;
    });
    return { context, page };
  }

  it.each(LANGS)(
    '%s: Upcoming, Availability and Profile at 360 px, accessible, with a switch naming every language in itself',
    async (lang) => {
      const { context, page } = await phone();
      for (const path of PAGES) {
        await page.goto(`${t.server.url}${path}?lang=${lang}`);
        expect(await page.getAttribute('html', 'lang'), path).toBe(lang);
        const switchLinks = page.locator('nav.lang a');
        expect(await switchLinks.allTextContents(), path).toEqual(LANGS.map((code) => NAMES[code]));
        for (const code of LANGS) {
          const link = page.locator(`nav.lang a[hreflang="${code}"]`);
          expect(await link.getAttribute('lang')).toBe(code);
          expect(await link.getAttribute('aria-current')).toBe(code === lang ? 'true' : null);
        }
        // Nothing wider than the phone's screen, whatever the language's word lengths.
        expect(await page.evaluate('document.documentElement.scrollWidth'), path).toBeLessThanOrEqual(360);
        expect({ path, violations: await seriousViolations(page) }).toEqual({ path, violations: [] });
      }
      if (lang === 'uk' || lang === 'de') await shot(page, `app-profile-360-${lang}`);
      await context.close();
    },
    90_000,
  );

  it.each(LANGS)(
    '%s: the language switch works from the keyboard alone',
    async (lang) => {
      const { context, page } = await phone();
      await page.goto(`${t.server.url}/app/availability?lang=${lang}`);
      const next = LANGS[(LANGS.indexOf(lang) + 1) % LANGS.length]!;
      await tabTo(page, `nav.lang a[hreflang="${next}"]`);
      await Promise.all([page.waitForURL(`${t.server.url}/app/availability?lang=${next}`), page.keyboard.press('Enter')]);
      expect(await page.getAttribute('html', 'lang')).toBe(next);
      expect(await page.getAttribute(`nav.lang a[hreflang="${next}"]`, 'aria-current')).toBe('true');
      // Remembered: the next page opened without ?lang= is in the language chosen.
      await page.goto(`${t.server.url}/app/profile`);
      expect(await page.getAttribute('html', 'lang')).toBe(next);
      await context.close();
    },
    60_000,
  );
});
