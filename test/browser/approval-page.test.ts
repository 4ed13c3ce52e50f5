import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM } from '../helpers.js';
import { chooseFirstSlot, createTopic, launchBrowser, openAllDay, seriousViolations, startServer, type RunningServer } from './harness.js';

/** A topic that requires approval, booked in a real browser: the page says the request awaits the host. */
describe.runIf(HAS_CHROMIUM)('booking a request in a browser', () => {
  let server: RunningServer;
  let browser: Browser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    await openAllDay(server, server.owner.userUuid);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('says the request awaits the host, and the meeting is pending approval', async () => {
    const topic = await createTopic(server, { name: 'Consultation', places: ['offline'], requiresApproval: true });
    const context = await browser.newContext({ timezoneId: 'Europe/Warsaw', locale: 'pl-PL' });
    const page = await context.newPage();
    page.on('pageerror', (error) => {
      throw error;
    });
    await page.goto(`${server.url}/book/${server.owner.username}/${topic.uuid}?lang=en`);
    const { start } = await chooseFirstSlot(page);
    await page.fill('input[name=name]', 'Jan Kowalski');
    await page.fill('input[name=email]', 'jan@example.com');
    await page.click('#submit');
    await page.locator('#done').waitFor();
    expect(await page.textContent('#h-done')).toBe('Your request awaits the host');
    expect(await page.textContent('#done-text')).toContain('jan@example.com');
    expect(await seriousViolations(page)).toEqual([]);
    const meetings = (await server.api<{ meetings: { meetingTopic: string; start: string; status: string }[] }>('GET', '/meetings?limit=200')).body.meetings;
    expect(meetings.filter((meeting) => meeting.meetingTopic === topic.uuid).map((meeting) => [meeting.start, meeting.status])).toEqual([[start, 'pending_approval']]);
    await context.close();
  });
});
