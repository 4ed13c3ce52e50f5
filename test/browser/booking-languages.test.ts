import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { contrastRatio, MIN_CONTRAST } from '../../src/domain/branding.js';
import { LANGS, type Lang } from '../../src/domain/lang.js';
import { clientStrings, STRINGS } from '../../src/http/pages/i18n.js';
import { HAS_CHROMIUM } from '../helpers.js';
import { englishLeaks } from '../i18n/leaks.js';
import { chooseFirstSlot, createTopic, seriousViolations, shot, useServerAndBrowser } from './harness.js';

/**
 * A branded business's booking page in each of the six languages, in Chromium at a phone's
 * width (360 px), with the browser's locale of that language: the page, its form and the
 * confirmation read in that language (no English on the non-English ones), the date of the
 * confirmation is Intl's for that locale, the light accent colour is darkened for contrast,
 * and axe finds nothing serious or critical at any of the three steps.
 */
const LOCALES: Record<Lang, string> = { en: 'en-GB', pl: 'pl-PL', de: 'de-DE', uk: 'uk-UA', es: 'es-ES', fr: 'fr-FR' };
/** Each language's topic, named in it (test data without English words on the other pages). */
const TOPICS: Record<Lang, string> = { en: 'Consultation', pl: 'Konsultacja', de: 'Beratung', uk: 'Консультація', es: 'Consulta', fr: 'Rendez-vous conseil' };
const LIGHT = '#ffd700';

/** What a person sees of the page: rendered text only (the steps still hidden left out). */
function shownText(page: Page): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText, not a DOM node's: it is the visible text that counts here.
  return page.innerText('body');
}

describe.runIf(HAS_CHROMIUM)('the booking page in six languages in a browser', () => {
  const t = useServerAndBrowser();

  let accent = '';
  beforeAll(async () => {
    const branded = await t.server.api('PATCH', '/account', { branding: { businessName: 'Gabinet Acme', accentColor: LIGHT } });
    expect(branded.status).toBe(200);
    accent = branded.body.branding.accentColorUsed as string;
    // The host's name without English in it ("Olga Owner" by default).
    const renamed = await t.server.api('PATCH', `/teams/${t.server.owner.teamUuid}/users/${t.server.owner.userUuid}`, { lastName: 'Nowak' });
    expect(renamed.status).toBe(200);
    expect(contrastRatio(LIGHT, '#ffffff')).toBeLessThan(MIN_CONTRAST);
    expect(contrastRatio(accent, '#ffffff')).toBeGreaterThanOrEqual(MIN_CONTRAST);
  });

  it.each(LANGS)('%s: books at 360 px on the branded page, reads in its language throughout, no serious axe finding', { timeout: 120_000 }, async (lang) => {
    const topic = await createTopic(t.server, { name: TOPICS[lang], places: ['offline'] });
    const page = await t.open(`/book/${t.server.owner.username}/${topic.uuid}?lang=${lang}`, {
      viewport: { width: 360, height: 740 },
      isMobile: true,
      hasTouch: true,
      locale: LOCALES[lang],
    });
    const words = STRINGS[lang];
    const script = clientStrings(lang) as Record<string, string>;
    expect(await page.getAttribute('html', 'lang')).toBe(lang);
    expect(await page.textContent('.brand, .account')).toContain('Gabinet Acme');
    await page.locator('#days button[data-date]').first().waitFor();
    expect(await page.textContent('#h-day')).toBe(words.chooseDay);
    // The switch names every language in itself.
    expect((await page.locator('nav.lang li').allTextContents()).map((name) => name.trim())).toEqual(['English', 'Polski', 'Deutsch', 'Українська', 'Español', 'Français']);
    expect(englishLeaks(await shownText(page), lang)).toEqual([]);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, `languages-360-${lang}-1-page`);

    const chosen = await chooseFirstSlot(page, 1);
    await page.fill('input[name=name]', 'Jan Kowalski');
    await page.fill('input[name=email]', `jan.${lang}@example.com`);
    expect(await page.textContent('#h-details')).toBe(words.yourDetails);
    expect(await page.evaluate(`getComputedStyle(document.querySelector('#submit')).backgroundColor`)).toBe(
      `rgb(${[1, 3, 5].map((at) => Number.parseInt(accent.slice(at, at + 2), 16)).join(', ')})`,
    );
    expect(englishLeaks(await shownText(page), lang)).toEqual([]);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, `languages-360-${lang}-2-form`);

    await page.click('#submit');
    await page.locator('#booking-summary').waitFor();
    expect(await page.textContent('#h-done')).toBe(script.bookedTitle);
    expect(await page.textContent('#host')).toBe('Olga Nowak');
    expect(await page.textContent('#done-text')).toBe(script.bookedText!.replace('{email}', `jan.${lang}@example.com`));
    // The confirmation's date as Intl writes it for the browser's locale, in its zone.
    const date = new Intl.DateTimeFormat(LOCALES[lang], { dateStyle: 'full', timeZone: 'Europe/Warsaw' }).format(Date.parse(chosen.start));
    await expect.poll(async () => (await page.textContent('#when'))?.replace(/[\u00a0\u202f]/g, ' ')).toContain(date.replace(/[\u00a0\u202f]/g, ' '));
    expect(englishLeaks(await shownText(page), lang)).toEqual([]);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, `languages-360-${lang}-3-confirmation`);
    await page.context().close();
  });
});
