import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/context.js';
import { APP_STRINGS } from '../../src/http/app/strings.js';
import { HAS_CHROMIUM } from '../helpers.js';
import { createTopic, seriousViolations, shot, useServerAndBrowser, openOwnerSession } from './harness.js';

/**
 * Participants' data and the audit log in real Chromium against the real server, on a 360 px
 * phone and a desktop, in English and Polish: the owner exports a participant by e-mail, erases
 * them with the typed confirmation, and finds the erasure in the audit log; axe-core finds no
 * serious violation on either page. The session is opened through the sign-in link's use case.
 */
describe.runIf(HAS_CHROMIUM)("participants' data and the audit log in a browser", () => {
  const t = useServerAndBrowser();
  let sessionToken: string;
  let ctx: AppContext;
  let topic: { uuid: string };

  beforeAll(async () => {
    ({ ctx, sessionToken } = await openOwnerSession(t.server));
    topic = await createTopic(t.server, { name: 'Garden advice', places: ['offline'] });
  });
  afterAll(async () => ctx?.close());

  let day = 2;
  for (const [lang, width] of [
    ['en', 360],
    ['pl', 1280],
    ['pl', 360],
    ['en', 1280],
  ] as const) {
    it(`${lang}, ${width} px: exports a participant by e-mail, erases them with the typed confirmation, sees it in the audit log; 0 serious axe violations`, async () => {
      const s = APP_STRINGS[lang];
      const email = `ala.${lang}.${width}@example.com`;
      const start = new Date(Date.now() + day++ * 86_400_000);
      start.setUTCHours(10, 0, 0, 0);
      const booked = await t.server.api('POST', '/schedule', {
        dates: [{ start: start.toISOString(), username: t.server.owner.username }],
        email,
        name: `Ala ${lang} ${width}`,
        lang,
        place: 'offline',
        meetingTopic: topic.uuid,
        timezone: 'Europe/Warsaw',
      });
      expect(booked.status).toBe(201);
      const meetingUuid = booked.body.meetings[0].uuid as string;

      const context = await t.browser.newContext({ timezoneId: 'Europe/Warsaw', locale: lang === 'pl' ? 'pl-PL' : 'en-GB', viewport: { width, height: 900 } });
      await context.addCookies([{ name: 'termin_session', value: sessionToken, domain: '127.0.0.1', path: '/app', httpOnly: true, sameSite: 'Lax' }]);
      const page = await context.newPage();
      page.on('pageerror', (error) => {
        throw error;
      });
      try {
        await page.goto(`${t.server.url}/app/participants?lang=${lang}`);
        expect(await page.textContent('h1')).toBe(s.participantsTitle);
        expect(await seriousViolations(page)).toEqual([]);

        await page.fill('#f-pd-email', email.toUpperCase());
        await page.getByRole('button', { name: s.exportButton, exact: true }).click();
        await page.locator('#export-result').waitFor();
        expect(await page.textContent(`#m-${meetingUuid}`)).toContain('Garden advice');
        expect(await page.textContent(`#m-${meetingUuid}`)).toContain(`Ala ${lang} ${width}`);
        expect(page.url()).not.toContain('ala.');
        // Nothing wider than the screen (long Polish labels, long addresses and ids wrap).
        expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
        await shot(page, `app-privacy-export-${lang}-${width}`);
        expect(await seriousViolations(page)).toEqual([]);

        // The erase form keeps the address; it asks for it again and the box ticked.
        expect(await page.inputValue('#f-pe-email')).toBe(email.toUpperCase());
        await page.fill('#f-pe-confirm', email);
        await page.check('#f-pe-understand');
        await page.getByRole('button', { name: s.eraseButton, exact: true }).click();
        await expect.poll(() => page.textContent('.notice')).toBe(s.erasedCount(1));
        expect(await seriousViolations(page)).toEqual([]);
        const meeting = await t.server.api('GET', `/meetings/${meetingUuid}`);
        expect(meeting.body).toMatchObject({ status: 'cancelled', participant: { name: '(erased)', email: null } });

        // The audit log, filtered by the select, shows the erasure by the owner in the web app.
        await page.goto(`${t.server.url}/app/audit`);
        expect(await page.textContent('h1')).toBe(s.auditTitle);
        await page.selectOption('#f-audit-action', 'participant.erased');
        await page.getByRole('button', { name: s.auditFilter, exact: true }).click();
        await page.waitForURL(/action=participant\.erased/);
        const newest = page.locator('.audit-event').first();
        expect(await newest.locator('.audit-action').textContent()).toBe(s.auditActions['participant.erased']);
        expect(await newest.textContent()).toContain(meetingUuid);
        expect(await newest.locator('.audit-who').textContent()).toContain(`(${s.auditVia.app})`);
        expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
        await shot(page, `app-privacy-audit-${lang}-${width}`);
        expect(await seriousViolations(page)).toEqual([]);

        await page.goto(`${t.server.url}/app/account`);
        expect(await seriousViolations(page)).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }
});
