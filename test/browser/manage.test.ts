import { formatDate, formatRange, formatTime } from '../../src/domain/formats.js';
import { HAS_CHROMIUM } from '../helpers.js';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createTopic, seriousViolations, shot, useServerAndBrowser } from './harness.js';

/**
 * The manage link of the confirmation e-mail, read from the .eml file the service wrote
 * (SMTP unset), opened in a browser to cancel, and to move.
 */
describe.runIf(HAS_CHROMIUM)('the manage page in a browser', () => {
  const t = useServerAndBrowser();

  /** Books through the public API as the page does, then waits for the participant's e-mail and returns its manage link. */
  async function bookAndReadLink(email: string, lang: 'en' | 'pl', timezone: string): Promise<{ meeting: { uuid: string; start: string }; link: string; topicUuid: string }> {
    const topic = await createTopic(t.server, { name: lang === 'pl' ? 'Wizyta' : 'Visit', places: ['offline'], cancellationNoticeMinutes: 60 });
    const schedule = await fetch(`${t.server.url}/api/v1/calculate-schedule`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: t.server.owner.username, meetingTopic: topic.uuid, timezone, offset: 0 }),
    }).then((response) => response.json() as Promise<{ days: { slots: { start: string; username: string }[] }[] }>);
    const slot = schedule.days.flatMap((day) => day.slots)[0]!;
    const booked = await fetch(`${t.server.url}/api/v1/public/schedule`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ dates: [slot], meetingTopic: topic.uuid, name: 'Manny Manager', email, lang, place: 'offline', timezone }),
    });
    expect(booked.status).toBe(201);
    const meeting = ((await booked.json()) as { meetings: { uuid: string; start: string }[] }).meetings[0]!;
    let link: string | undefined;
    await expect
      .poll(
        () => {
          const message = t.server.outbox().find((eml) => eml.includes(`To: Manny Manager <${email}>`) || eml.includes(email));
          // Quoted-printable may fold the line: unfold soft breaks before looking for the link.
          link = message?.replace(/=\r?\n/g, '').match(/https?:\/\/[^\s"<>]+\/booking\/[A-Za-z0-9._-]+/)?.[0];
          return link;
        },
        { timeout: 15_000 },
      )
      .toBeDefined();
    expect(link!.startsWith(`${t.server.url}/booking/${meeting.uuid}.`)).toBe(true);
    return { meeting, link: link!, topicUuid: topic.uuid };
  }

  async function open(url: string): Promise<Page> {
    const context = await t.browser.newContext({ timezoneId: 'Europe/Warsaw', locale: 'en-GB' });
    const page = await context.newPage();
    await page.goto(url);
    return page;
  }

  it('cancels from the link in the e-mail, with a reason, in the participant’s language and zone', async () => {
    const { meeting, link } = await bookAndReadLink('cancel@example.com', 'pl', 'America/Chicago');
    const page = await open(link);
    expect(await page.getAttribute('html', 'lang')).toBe('pl');
    const startsAt = Date.parse(meeting.start);
    const expectedWhen = `${formatDate(startsAt, 'America/Chicago', 'pl')}, ${formatTime(startsAt, 'America/Chicago', 'pl')}`;
    expect(await page.textContent('#when')).toContain(expectedWhen);
    await shot(page, 'manage-01-page');
    expect(await seriousViolations(page)).toEqual([]);
    await page.fill('textarea[name=reason]', 'Choroba');
    await page.click('#cancel-submit');
    await expect.poll(() => page.textContent('#alert')).toContain('odwołana');
    expect(await page.textContent('#status')).toBe('Odwołana');
    await shot(page, 'manage-02-cancelled');

    const stored = await t.server.api('GET', `/meetings/${meeting.uuid}`);
    expect(stored.body).toMatchObject({ uuid: meeting.uuid, status: 'cancelled', cancelReason: 'Choroba' });
  });

  it('moves to another free slot from the link; same meeting, new time', async () => {
    const { meeting, link } = await bookAndReadLink('move@example.com', 'en', 'Europe/Warsaw');
    const page = await open(link);
    expect(await page.textContent('h1')).toContain('Your booking');
    // Another day: late in the evening the meeting may be the day's only slot.
    await page.locator('#days button.day[aria-pressed=false]').first().click();
    const other = page.locator(`#slots button[data-start]:not([data-start="${meeting.start}"])`).first();
    await other.waitFor();
    const start = (await other.getAttribute('data-start'))!;
    await other.click();
    await shot(page, 'manage-03-move');
    await page.click('#move-submit');
    await expect.poll(() => page.textContent('#alert')).toContain('moved');
    await shot(page, 'manage-04-moved');

    const stored = await t.server.api('GET', `/meetings/${meeting.uuid}`);
    expect(stored.body).toMatchObject({ uuid: meeting.uuid, start, status: 'confirmed' });
  });

  it('moves then cancels on one page without a reload; each answer redraws when, deadline and what is still allowed', async () => {
    const { meeting, link } = await bookAndReadLink('both@example.com', 'en', 'Europe/Warsaw');
    const page = await open(link);
    // A reload would drop this marker: the redraw must come from the server's answer in place.
    await page.evaluate('window.__sameDocument = true');
    // As formats.ts words them for the en-GB browser: 24-hour, day first.
    const whenOf = (start: number, end: number) => formatRange(start, end, 'Europe/Warsaw', 'en-GB');
    const deadlineOf = (start: number) => `${formatDate(start - 60 * 60_000, 'Europe/Warsaw', 'en-GB')}, ${formatTime(start - 60 * 60_000, 'Europe/Warsaw', 'en-GB')}`;
    expect(await page.textContent('#change-until')).toContain(deadlineOf(Date.parse(meeting.start)));

    await page.locator('#days button.day[aria-pressed=false]').first().click();
    const other = page.locator(`#slots button[data-start]:not([data-start="${meeting.start}"])`).first();
    await other.waitFor();
    const start = Date.parse((await other.getAttribute('data-start'))!);
    await other.click();
    await page.click('#move-submit');
    await expect.poll(() => page.textContent('#alert')).toContain('moved');
    expect(await page.textContent('#when')).toBe(whenOf(start, start + 30 * 60_000));
    expect(await page.textContent('#change-until')).toContain(deadlineOf(start));
    expect(await page.textContent('#status')).toBe('Confirmed');
    // Still in time: both sections are offered again, and they work.
    expect(await page.isVisible('#move')).toBe(true);
    expect(await page.isVisible('#cancel-submit')).toBe(true);
    await page.locator('#days button[data-date]').first().waitFor();
    await shot(page, 'manage-05-moved-redrawn');

    await page.click('#cancel-submit');
    await expect.poll(() => page.textContent('#alert')).toContain('cancelled');
    expect(await page.textContent('#status')).toBe('Cancelled');
    expect(await page.locator('#change-until').count()).toBe(0);
    expect(await page.locator('#move, #cancel').count()).toBe(0);
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    await shot(page, 'manage-06-moved-then-cancelled');
    expect(await seriousViolations(page)).toEqual([]);

    const stored = await t.server.api('GET', `/meetings/${meeting.uuid}`);
    expect(stored.body).toMatchObject({ uuid: meeting.uuid, status: 'cancelled', start: new Date(start).toISOString() });
  });

  it('a forged link is a plain 404 page', async () => {
    const page = await open(`${t.server.url}/booking/00000000-0000-4000-8000-000000000000.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`);
    expect(await page.textContent('main')).toContain('not valid');
  });
});
