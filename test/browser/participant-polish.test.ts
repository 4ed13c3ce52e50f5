import { HAS_CHROMIUM } from '../helpers.js';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createTopic, seriousViolations, shot, useServerAndBrowser } from './harness.js';

/**
 * Issue 40 item 10, in real Chromium: the month before the zone on a phone, the zone's name
 * and the time there, arrow keys between days, and the way back after a cancel.
 */
describe.runIf(HAS_CHROMIUM)('participant polish on the booking pages', () => {
  const t = useServerAndBrowser();

  const top = (page: Page, selector: string) => page.evaluate(`document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect().top`) as Promise<number>;
  const left = (page: Page, selector: string) => page.evaluate(`document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect().left`) as Promise<number>;
  const focusedDate = (page: Page) => page.evaluate(`document.activeElement.getAttribute('data-date')`) as Promise<string | null>;
  const plusDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
  /** The time in Warsaw now, and a minute on (the page may read the clock across a minute's turn). */
  const warsawNow = () =>
    [0, 60_000].map((ahead) => new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'Europe/Warsaw' }).format(Date.now() + ahead));

  it('on a 360 px phone the month comes before the zone and the 12/24-hour switch; on a desktop they sit beside it', async () => {
    const topic = await createTopic(t.server, { name: 'Phone order', places: ['offline'] });
    for (const lang of ['en', 'pl']) {
      const page = await t.open(`/book/${t.server.owner.username}/${topic.uuid}?lang=${lang}`, { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
      await page.locator('#days button[data-date]').first().waitFor();
      await page.locator('#hour-switch').waitFor();
      expect(await top(page, '#days')).toBeLessThan(await top(page, '#tz'));
      expect(await top(page, '#tz')).toBeLessThan(await top(page, '#hour-switch'));
      // The day's times still come after both, right under the choice that shapes them.
      expect(await top(page, '#hour-switch')).toBeLessThan(await top(page, '#times'));
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
      expect(await seriousViolations(page)).toEqual([]);
      await shot(page, `polish-360-${lang}`);
      await page.context().close();
    }
    const desktop = await t.open(`/book/${t.server.owner.username}/${topic.uuid}`, { viewport: { width: 1280, height: 900 } });
    await desktop.locator('#days button[data-date]').first().waitFor();
    expect(await left(desktop, '#tz')).toBeGreaterThan(await left(desktop, '#days'));
    expect(await top(desktop, '#tz')).toBeLessThan(await top(desktop, '#times'));
    await shot(desktop, 'polish-1280');
    await desktop.context().close();
  });

  it('names the zone as people say it, in the page’s language, with the time there now, and follows a change of zone', async () => {
    const topic = await createTopic(t.server, { name: 'Zone names', places: ['offline'] });
    const page = await t.open(`/book/${t.server.owner.username}/${topic.uuid}`);
    await expect.poll(() => page.textContent('#tz-now')).toMatch(/^Central European Time · \d\d:\d\d$/);
    expect(warsawNow()).toContain((await page.textContent('#tz-now'))!.split(' · ')[1]);
    // Read with the field, so a screen reader hears it too.
    expect(await page.getAttribute('#tz', 'aria-describedby')).toContain('tz-now');
    // The list names each zone so as well.
    await page.fill('#tz', 'Tokyo');
    await page.locator('#tz-options li').first().waitFor();
    expect(await page.textContent('#tz-options li .tz-meta')).toMatch(/^Japan (Standard )?Time · /);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#tz-now')).toMatch(/^Japan (Standard )?Time · \d\d:\d\d$/);
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();

    const polish = await t.open(`/book/${t.server.owner.username}/${topic.uuid}?lang=pl`, { locale: 'pl-PL' });
    await expect.poll(() => polish.textContent('#tz-now')).toMatch(/^czas środkowoeuropejski · \d\d:\d\d$/);
    expect(warsawNow()).toContain((await polish.textContent('#tz-now'))!.split(' · ')[1]);
    await shot(polish, 'polish-zone-name-pl');
    await polish.context().close();
  });

  it('arrow keys move between days (one day in the Tab order), Enter chooses the focused one', async () => {
    const topic = await createTopic(t.server, { name: 'Arrow keys', places: ['offline'] });
    const page = await t.open(`/book/${t.server.owner.username}/${topic.uuid}`);
    await page.locator('#days button[data-date]').first().waitFor();
    // Next month: open every day, so each of its days is free whatever today is.
    const before = await page.getAttribute('#days button[data-date]', 'data-date');
    await page.click('#next-month');
    await expect.poll(() => page.getAttribute('#days button[data-date]', 'data-date')).not.toBe(before);
    await page.locator('#days button[data-date]').nth(27).waitFor();
    const days = (await page.locator('#days button[data-date]').evaluateAll((buttons) => buttons.map((b) => [b.getAttribute('data-date'), b.getAttribute('tabindex')]))) as [
      string,
      string,
    ][];
    expect(days.filter(([, tabindex]) => tabindex === '0')).toHaveLength(1);
    const first = days.find(([, tabindex]) => tabindex === '0')![0];
    await page.focus(`#days button[data-date="${first}"]`);
    const dates = days.map(([date]) => date);
    expect(first).toBe(dates[0]);
    await page.keyboard.press('ArrowRight');
    expect(await focusedDate(page)).toBe(plusDays(first, 1));
    await page.keyboard.press('ArrowDown');
    expect(await focusedDate(page)).toBe(plusDays(first, 8));
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowLeft');
    expect(await focusedDate(page)).toBe(first);
    await page.keyboard.press('End');
    expect(await focusedDate(page)).toBe(dates.at(-1));
    // The focused day is the one Tab comes back to, and Enter chooses it.
    expect(await page.getAttribute(`#days button[data-date="${dates.at(-1)}"]`, 'tabindex')).toBe('0');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getAttribute(`#days button[data-date="${dates.at(-1)}"]`, 'aria-pressed')).toBe('true');
    expect(await page.textContent('#day-label')).toContain(String(Number(dates.at(-1)!.slice(8))));
    // Choosing takes the focus to the day's times (as a click does); back in the month, Home goes to its first day.
    await page.focus(`#days button[data-date="${dates.at(-1)}"]`);
    await page.keyboard.press('Home');
    expect(await focusedDate(page)).toBe(dates[0]);
    // Tab leaves the month: the next stop is not another day.
    await page.focus(`#days button[data-date="${dates.at(-1)}"]`);
    await page.keyboard.press('Tab');
    expect(await focusedDate(page)).toBeNull();
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  });

  it('after a cancel the manage page offers "Book another time", back to the topic’s page', async () => {
    const topic = await createTopic(t.server, { name: 'Come again', places: ['offline'], cancellationNoticeMinutes: 60 });
    const schedule = (await (
      await fetch(`${t.server.url}/api/v1/calculate-schedule`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: t.server.owner.username, meetingTopic: topic.uuid, timezone: 'Europe/Warsaw', offset: 0 }),
      })
    ).json()) as { days: { slots: { start: string; username: string }[] }[] };
    const slot = schedule.days.flatMap((day) => day.slots)[0]!;
    const booked = await fetch(`${t.server.url}/api/v1/public/schedule`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ dates: [slot], meetingTopic: topic.uuid, name: 'Cara Cancel', email: 'cara@example.com', lang: 'en', place: 'offline', timezone: 'Europe/Warsaw' }),
    });
    expect(booked.status).toBe(201);
    const manage = ((await booked.json()) as { manageUrls: string[] }).manageUrls[0]!;
    const page = await t.open(new URL(manage).pathname);
    expect(await page.locator('#book-again').count()).toBe(0);
    await page.click('#cancel-submit');
    await page.locator('#book-again').waitFor();
    expect(await page.textContent('#book-again')).toBe('Book another time');
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'polish-book-again');
    await page.click('#book-again');
    await page.locator('#days button[data-date]').first().waitFor();
    expect(new URL(page.url()).pathname).toBe(`/book/${t.server.owner.username}/${topic.uuid}`);
    await page.context().close();
  });
});
