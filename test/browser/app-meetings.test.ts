import { pino } from 'pino';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { HAS_CHROMIUM } from '../helpers.js';
import { createTopic, seriousViolations, shot, tabTo, useServerAndBrowser } from './harness.js';

/** What the host reads and presses, in each language. */
const WORDS = {
  en: { approve: 'Approve', approved: 'The request was approved', past: 'Past', noShow: 'No-show', marked: 'No-show: the participant did not come' },
  pl: { approve: 'Zaakceptuj', approved: 'Prośbę zaakceptowano', past: 'Minione', noShow: 'Nieobecność', marked: 'Nieobecność: uczestnik nie przyszedł' },
} as const;

/**
 * A request's way through the host's web app in real Chromium against the real server: the
 * host approves it under "Awaiting approval", and once it has started (the test moves it into
 * the past in the server's database, as the clock would) marks the participant's no-show from
 * the meeting's page and finds it in Past. On a 360 px phone and a desktop, in English and
 * Polish; axe-core finds no serious violation on Past or the meeting's page.
 */
describe.runIf(HAS_CHROMIUM)("the host's meetings in a browser: approve, no-show, Past", () => {
  const t = useServerAndBrowser();
  let signedIn: BrowserContext;
  let topicUuid: string;

  beforeAll(async () => {
    topicUuid = (await createTopic(t.server, { name: 'Garden visit', places: ['offline'], requiresApproval: true })).uuid;
    // Signed in once (a member gets at most 3 links in 15 minutes); each case reuses the session.
    const members = await t.server.api('GET', `/teams/${t.server.owner.teamUuid}/users`);
    const email = members.body.users.find((user: { uuid: string }) => user.uuid === t.server.owner.userUuid).email as string;
    signedIn = await t.browser.newContext({ timezoneId: 'Europe/Warsaw', locale: 'en-GB' });
    const page = await signedIn.newPage();
    await page.goto(`${t.server.url}/app/login`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'Send sign-in link' }).click();
    // The e-mail is written by the server's background worker: wait for it (expect.poll is for tests only).
    let link: string | undefined;
    for (const deadline = Date.now() + 15_000; link === undefined && Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
      link = t.server
        .outbox()
        .map((eml) => /https?:\/\/[^\s"<>]+\/app\/login\/[A-Za-z0-9_-]+/.exec(eml.replace(/=\r?\n/g, ''))?.[0])
        .find((found) => found !== undefined);
    }
    if (link === undefined) throw new Error('no sign-in e-mail');
    await page.goto(link!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/app');
  }, 60_000);

  afterAll(async () => signedIn?.close());

  /** A request of the topic for the first free slot a week ahead, booked through the API. */
  async function bookRequest(name: string): Promise<string> {
    const schedule = await fetch(`${t.server.url}/api/v1/calculate-schedule`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: t.server.owner.username, meetingTopic: topicUuid, timezone: 'Europe/Warsaw', offset: 7 }),
    }).then((response) => response.json() as Promise<{ days: { slots: { start: string; username: string }[] }[] }>);
    const slot = schedule.days.flatMap((day) => day.slots)[0]!;
    const booked = await t.server.api('POST', '/schedule', {
      dates: [slot],
      email: 'jan@example.com',
      lang: 'en',
      name,
      place: 'offline',
      meetingTopic: topicUuid,
      timezone: 'Europe/Warsaw',
    });
    expect(booked.status).toBe(201);
    expect(booked.body.meetings[0].status).toBe('pending_approval');
    return booked.body.meetings[0].uuid;
  }

  /** As time would: the meeting started 20 minutes ago (the server reads its start from the database). */
  async function startedAlready(meetingUuid: string): Promise<void> {
    const ctx = await createContext(loadConfig({ DATA_DIR: t.server.dataDir, DATABASE_URL: '', TERMIN_DEMO: 'false' }), { log: pino({ level: 'silent' }) });
    try {
      const start = Date.now() - 20 * 60_000;
      await ctx.db
        .updateTable('meetings')
        .set({ starts_at: start, ends_at: start + 30 * 60_000 })
        .where('id', '=', meetingUuid)
        .execute();
    } finally {
      await ctx.close();
    }
  }

  for (const [width, lang] of [
    [360, 'en'],
    [1280, 'en'],
    [360, 'pl'],
    [1280, 'pl'],
  ] as const) {
    it(`approves a request from Awaiting approval, marks its no-show from its page, and finds it in Past (${width} px, ${lang})`, async () => {
      const words = WORDS[lang];
      const context = await t.browser.newContext({
        timezoneId: 'Europe/Warsaw',
        locale: lang === 'pl' ? 'pl-PL' : 'en-GB',
        viewport: { width, height: 900 },
        storageState: await signedIn.storageState(),
      });
      try {
        const page = await context.newPage();
        page.on('pageerror', (error) => {
          throw error;
        });
        const name = `Jan ${lang} ${width}`;
        const uuid = await bookRequest(name);

        await page.goto(`${t.server.url}/app`);
        const awaiting = page.locator('section[aria-labelledby="awaiting-approval"]');
        await expect.poll(() => awaiting.locator(`#m-${uuid}`).count()).toBe(1);
        expect(await awaiting.locator(`#m-${uuid} .decide-by`).textContent()).toMatch(/\d/);
        await awaiting.locator(`#m-${uuid}`).getByRole('button', { name: words.approve, exact: true }).click();
        await expect.poll(() => page.textContent('.notice')).toContain(words.approved);
        expect(await page.locator('section[aria-labelledby="awaiting-approval"]').count()).toBe(0);

        await startedAlready(uuid);
        // On a phone the navigation folds behind "Menu" (the same word in both languages).
        if (width === 360) await page.getByRole('button', { name: 'Menu', exact: true }).click();
        await page.getByRole('link', { name: words.past, exact: true }).click();
        await page.waitForURL(`${t.server.url}/app/past`);
        await shot(page, `app-past-${width}-${lang}`);
        expect(await seriousViolations(page)).toEqual([]);
        await page.locator(`#m-${uuid} h2 a`).click();
        await page.waitForURL(`${t.server.url}/app/meetings/${uuid}`);
        expect(await page.textContent('.participant')).toBe(name);
        expect(await seriousViolations(page)).toEqual([]);
        // By keyboard: Tab to "No-show", Enter.
        await tabTo(page, `button[name=who][value=participant]`);
        expect(await page.evaluate('document.activeElement.textContent')).toBe(words.noShow);
        await page.keyboard.press('Enter');
        await page.waitForURL(/done=no-show-marked/);
        expect(await page.textContent('.no-show')).toBe(words.marked);
        await shot(page, `app-meeting-${width}-${lang}`);
        expect(await seriousViolations(page)).toEqual([]);
        expect((await t.server.api('GET', `/meetings/${uuid}`)).body).toMatchObject({ status: 'confirmed', noShow: 'participant' });

        await page.goto(`${t.server.url}/app/past`);
        expect(await page.textContent(`#m-${uuid} .status`)).toBe(words.marked);
      } finally {
        await context.close();
      }
    });
  }
});
