import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM } from '../helpers.js';
import { seriousViolations, shot, useServerAndBrowser } from './harness.js';

/**
 * Issue 40 item 8 in real Chromium: on the availability page "Add hours on Monday" and "Copy
 * Monday to all weekdays" change the rows without loading a page (no navigation happens), and
 * "Save" stores what the page shows; on a 360 px phone and a desktop, in English and Polish,
 * with 0 serious axe-core violations.
 */
describe.runIf(HAS_CHROMIUM)('editing hours in a browser', () => {
  const t = useServerAndBrowser({ openAllDay: false });
  let storageState: Awaited<ReturnType<import('playwright-core').BrowserContext['storageState']>>;

  beforeAll(async () => {
    const { server } = t;
    const members = await server.api('GET', `/teams/${server.owner.teamUuid}/users`);
    const email = members.body.users.find((user: { uuid: string }) => user.uuid === server.owner.userUuid).email as string;
    const context = await t.browser.newContext({ timezoneId: 'Europe/Warsaw', locale: 'en-GB' });
    const page = await context.newPage();
    await page.goto(`${server.url}/app/login`);
    await page.fill('input[name=email]', email);
    await page.keyboard.press('Enter');
    // The link in the e-mail (files, SMTP unset), waited for here: expect.poll is for tests, not hooks.
    let link: string | undefined;
    for (let tries = 0; link === undefined && tries < 150; tries += 1) {
      link = server
        .outbox()
        .map((eml) => eml.replace(/=\r?\n/g, ''))
        .map((eml) => /https?:\/\/[^\s"<>]+\/app\/login\/[A-Za-z0-9_-]+/.exec(eml)?.[0])
        .find((found) => found !== undefined);
      if (link === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await page.goto(link!);
    await page.click('#confirm-sign-in');
    await page.waitForURL(`${server.url}/app`);
    storageState = await context.storageState();
    await context.close();
  }, 60_000);

  /** Each row of a day as "accessible name=value" of its two inputs (read in the page: the tests have no DOM types). */
  const rowsOf = (page: Page, day: string): Promise<string[][]> =>
    page.evaluate(
      `Array.from(document.querySelectorAll('#day-${day} .hours-row')).map((row) => Array.from(row.querySelectorAll('input')).map((input) => input.getAttribute('aria-label') + '=' + input.value))`,
    );

  for (const [lang, width, labels] of [
    ['en', 360, { mondayFrom3: 'Monday from 3', fridayTo3: 'Friday to 3', saved: 'Saved.' }],
    ['pl', 360, { mondayFrom3: 'Poniedziałek od 3', fridayTo3: 'Piątek do 3', saved: 'Zapisano.' }],
    ['en', 1280, { mondayFrom3: 'Monday from 3', fridayTo3: 'Friday to 3', saved: 'Saved.' }],
    ['pl', 1280, { mondayFrom3: 'Poniedziałek od 3', fridayTo3: 'Piątek do 3', saved: 'Zapisano.' }],
  ] as const) {
    it(`adds hours and copies Monday without a reload, then saves (${lang}, ${width} px)`, async () => {
      const { server } = t;
      const weekly = {
        monday: [
          { start: '09:00', end: '12:00' },
          { start: '13:00', end: '16:00' },
        ],
        tuesday: [{ start: '10:00', end: '11:00' }],
      };
      expect((await server.api('PUT', `/users/${server.owner.userUuid}/availability`, { timezone: 'Europe/Warsaw', weekly, overrides: [] })).status).toBe(200);
      const context = await t.browser.newContext({ timezoneId: 'Europe/Warsaw', locale: lang === 'pl' ? 'pl-PL' : 'en-GB', viewport: { width, height: 900 }, storageState });
      const page = await context.newPage();
      page.on('pageerror', (error) => {
        throw error;
      });
      await page.goto(`${server.url}/app/availability?lang=${lang}`);
      let navigations = 0;
      page.on('framenavigated', (frame) => {
        if (frame === page.mainFrame()) navigations += 1;
      });

      // "Add hours on Monday": a third row after the last, named for the screen reader, no page load.
      await page.click('#day-monday button.add-hours');
      expect(navigations).toBe(0);
      expect(await rowsOf(page, 'monday')).toEqual([
        [expect.stringMatching(/=09:00$/), expect.stringMatching(/=12:00$/)],
        [expect.stringMatching(/=13:00$/), expect.stringMatching(/=16:00$/)],
        [`${labels.mondayFrom3}=16:00`, expect.stringMatching(/=17:00$/)],
      ]);
      expect(await page.evaluate(`document.activeElement && document.activeElement.getAttribute('aria-label')`)).toBe(labels.mondayFrom3);

      // "Copy Monday to all weekdays": Tuesday–Friday get Monday's three rows, Saturday stays empty.
      await page.click('#copy-monday');
      const friday = await rowsOf(page, 'friday');
      expect(friday).toHaveLength(3);
      expect(friday[2]).toEqual([expect.stringMatching(/=16:00$/), `${labels.fridayTo3}=17:00`]);
      expect(await rowsOf(page, 'saturday')).toEqual([]);
      expect(await page.locator('#hours-status').textContent()).not.toBe('');
      expect(navigations).toBe(0);

      if (width === 360) expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
      await shot(page, `app-editing-${lang}-${width}`);
      expect(await seriousViolations(page)).toEqual([]);

      // "Save" posts what the page shows.
      await Promise.all([page.waitForURL(/\/app\/availability\?done=saved$/), page.click('#save')]);
      expect(await page.textContent('p.notice')).toBe(labels.saved);
      const stored = (await server.api('GET', `/users/${server.owner.userUuid}/availability`)).body;
      const three = [...weekly.monday, { start: '16:00', end: '17:00' }];
      expect(stored.weekly).toMatchObject({ monday: three, tuesday: three, wednesday: three, thursday: three, friday: three, saturday: [], sunday: [] });
      expect(await seriousViolations(page)).toEqual([]);
      await context.close();
    }, 60_000);
  }
});
