import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM } from '../helpers.js';
import { createTopic, openAllDay, seriousViolations, shot, tabTo, useServerAndBrowser } from './harness.js';

const OWNER_EMAIL_OF = (eml: string, email: string) => eml.includes(`<${email}>`) || eml.includes(`To: ${email}`);

/**
 * The host's web app in real Chromium against the real server (its own process, e-mail to
 * .eml files): signing in from the e-mailed link, setting hours, making a topic, cancelling
 * a meeting, and the refusals (a used link, a form without its CSRF token). The tests run in
 * order and share the signed-in browser of the first.
 */
describe.runIf(HAS_CHROMIUM)("the host's web app in a browser", () => {
  const t = useServerAndBrowser({ openAllDay: false });
  let signedIn: BrowserContext;
  let page: Page;
  let ownerEmail: string;
  let accountName: string;
  let usedLink: string;

  beforeAll(async () => {
    const members = await t.server.api('GET', `/teams/${t.server.owner.teamUuid}/users`);
    ownerEmail = members.body.users.find((user: { uuid: string }) => user.uuid === t.server.owner.userUuid).email;
    accountName = (await t.server.api('GET', '/account')).body.name;
  });

  function newContext(width = 1280): Promise<BrowserContext> {
    return t.browser.newContext({ timezoneId: 'Europe/Warsaw', locale: 'en-GB', viewport: { width, height: 900 } });
  }

  async function waitForMail(to: string, matching: RegExp, after = 0): Promise<string> {
    let found: string | undefined;
    await expect
      .poll(
        () => {
          found = t.server
            .outbox()
            .slice(after)
            .map((eml) => eml.replace(/=\r?\n/g, ''))
            .find((eml) => OWNER_EMAIL_OF(eml, to) && matching.test(eml));
          return found;
        },
        { timeout: 15_000 },
      )
      .toBeDefined();
    return found!;
  }

  it('signs in from the link in the e-mail, by keyboard alone', async () => {
    signedIn = await newContext(360);
    page = await signedIn.newPage();
    page.on('pageerror', (error) => {
      throw error;
    });
    await page.goto(`${t.server.url}/app/login`);
    await shot(page, 'app-01-login-360');
    expect(await seriousViolations(page)).toEqual([]);
    await tabTo(page, 'input[name=email]');
    await page.keyboard.type(ownerEmail);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#message')).toContain('a link is on its way');
    const eml = await waitForMail(ownerEmail, /\/app\/login\//, 0);
    usedLink = /https?:\/\/[^\s"<>]+\/app\/login\/[A-Za-z0-9_-]+/.exec(eml)![0];
    // The link opens a page that asks first; its button, by keyboard too, signs in.
    await page.goto(usedLink);
    expect(await page.textContent('h1')).toBe(`Sign in to ${accountName} as ${ownerEmail}?`);
    await shot(page, 'app-01-confirm-360');
    expect(await seriousViolations(page)).toEqual([]);
    await tabTo(page, '#confirm-sign-in');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${t.server.url}/app`);
    expect(new URL(page.url()).pathname).toBe('/app');
    expect(await page.textContent('h1')).toBe('Upcoming');
    const cookie = (await signedIn.cookies()).find((c) => c.name === 'termin_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/app' });
    // No API key anywhere in what the browser got.
    expect(await page.content()).not.toContain('tmn_');
  });

  it('refuses the same link a second time', async () => {
    const other = await newContext();
    const second = await other.newPage();
    const response = await second.goto(usedLink);
    expect(response?.status()).toBe(410);
    expect(await second.textContent('h1')).toBe('This sign-in link no longer works');
    expect((await other.cookies()).some((c) => c.name === 'termin_session')).toBe(false);
    await other.close();
  });

  it('sets Monday 10:00–12:00 and GET /users/{uuid}/availability says so', async () => {
    await page.goto(`${t.server.url}/app/availability`);
    // Add and remove a second interval with the keyboard, as the buttons work without a script.
    await tabTo(page, 'button[value="add:monday"]');
    await page.keyboard.press('Enter');
    await page.getByLabel('Monday from 2', { exact: true }).waitFor();
    await page.locator('button[value="remove:monday:1"]').click();
    await expect.poll(() => page.getByLabel('Monday from 2', { exact: true }).count()).toBe(0);
    await page.getByLabel('Monday from', { exact: true }).fill('10:00');
    await page.getByLabel('Monday to', { exact: true }).fill('12:00');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.textContent('.notice')).toContain('Saved');
    const stored = await t.server.api('GET', `/users/${t.server.owner.userUuid}/availability`);
    expect(stored.body.weekly.monday).toEqual([{ start: '10:00', end: '12:00' }]);
  });

  it('creates a topic and opens its booking page from the public link', async () => {
    await page.goto(`${t.server.url}/app/topics`);
    await page.getByRole('link', { name: 'New topic' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Garden consultation');
    await page.getByLabel('Duration (minutes)').fill('45');
    await page.getByRole('button', { name: 'Create' }).click();
    await expect.poll(() => page.textContent('.notice')).toContain('The topic was created');
    const link = (await page.getAttribute('#open-link', 'href'))!;
    expect(link).toContain(`/book/${t.server.owner.username}/`);
    await page.click('#open-link');
    await page.waitForURL(link);
    expect(await page.textContent('h1')).toContain('Garden consultation');
  });

  it('cancels a meeting with a reason, and the participant is e-mailed', async () => {
    await openAllDay(t.server, t.server.owner.userUuid);
    const topic = await createTopic(t.server, { name: 'Pruning', places: ['offline'] });
    const schedule = await fetch(`${t.server.url}/api/v1/calculate-schedule`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: t.server.owner.username, meetingTopic: topic.uuid, timezone: 'Europe/Warsaw', offset: 7 }),
    }).then((response) => response.json() as Promise<{ days: { slots: { start: string; username: string }[] }[] }>);
    const slot = schedule.days.flatMap((day) => day.slots)[0]!;
    const booked = await fetch(`${t.server.url}/api/v1/public/schedule`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ dates: [slot], meetingTopic: topic.uuid, name: 'Pia Participant', email: 'pia@example.com', lang: 'en', place: 'offline', timezone: 'Europe/Warsaw' }),
    });
    expect(booked.status).toBe(201);
    const meeting = ((await booked.json()) as { meetings: { uuid: string }[] }).meetings[0]!;
    await waitForMail('pia@example.com', /Pruning/);
    const mails = t.server.outbox().length;

    await page.goto(`${t.server.url}/app`);
    const item = page.locator(`#m-${meeting.uuid}`);
    expect(await item.textContent()).toContain('Pia Participant');
    await shot(page, 'app-02-upcoming-360');
    expect(await seriousViolations(page)).toEqual([]);
    await item.getByLabel('Reason').fill('The garden is flooded');
    await item.getByRole('button', { name: 'Cancel meeting' }).click();
    await expect.poll(() => page.textContent('.notice')).toContain('cancelled');
    const eml = await waitForMail('pia@example.com', /Cancelled: Pruning/, mails);
    expect(eml).toContain('The garden is flooded');
    expect((await t.server.api('GET', `/meetings/${meeting.uuid}`)).body).toMatchObject({ status: 'cancelled', cancelReason: 'The garden is flooded' });
  });

  it('approves one request and declines another with a reason, from Upcoming', async () => {
    const topic = await createTopic(t.server, { name: 'Tasting', places: ['offline'], requiresApproval: true });
    const schedule = await fetch(`${t.server.url}/api/v1/calculate-schedule`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: t.server.owner.username, meetingTopic: topic.uuid, timezone: 'Europe/Warsaw', offset: 14 }),
    }).then((response) => response.json() as Promise<{ days: { slots: { start: string; username: string }[] }[] }>);
    const [early, late] = schedule.days.flatMap((day) => day.slots);
    const requested: string[] = [];
    for (const [slot, email] of [
      [early!, 'rob@example.com'],
      [late!, 'rea@example.com'],
    ] as const) {
      const booked = await fetch(`${t.server.url}/api/v1/public/schedule`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ dates: [slot], meetingTopic: topic.uuid, name: 'Requesting Participant', email, lang: 'en', place: 'offline', timezone: 'Europe/Warsaw' }),
      });
      expect(booked.status).toBe(201);
      requested.push(((await booked.json()) as { meetings: { uuid: string }[] }).meetings[0]!.uuid);
    }
    const [approveMe, declineMe] = requested as [string, string];

    await page.goto(`${t.server.url}/app`);
    const first = page.locator(`#m-${approveMe}`);
    expect(await first.locator('.status').textContent()).toBe('Awaiting approval');
    await shot(page, 'app-03-requests-360');
    expect(await seriousViolations(page)).toEqual([]);
    await first.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => page.textContent('.notice')).toContain('approved');
    expect((await t.server.api('GET', `/meetings/${approveMe}`)).body.status).toBe('confirmed');

    const mails = t.server.outbox().length;
    const second = page.locator(`#m-${declineMe}`);
    await second.getByLabel('Reason').fill('Closed for a private event');
    await second.getByRole('button', { name: 'Decline' }).click();
    await expect.poll(() => page.textContent('.notice')).toContain('declined');
    expect((await t.server.api('GET', `/meetings/${declineMe}`)).body).toMatchObject({ status: 'declined', declineReason: 'Closed for a private event' });
    expect(await waitForMail('rea@example.com', /Closed for a private event/, mails)).toBeTruthy();
  });

  it('refuses a form without its CSRF token (403) and changes nothing', async () => {
    const before = (await t.server.api('GET', `/users/${t.server.owner.userUuid}/availability`)).body;
    await page.goto(`${t.server.url}/app/availability`);
    await page.evaluate("document.querySelector('form.availability input[name=csrf]').remove()");
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/app/availability') && r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Save', exact: true }).click(),
    ]);
    expect(response.status()).toBe(403);
    expect((await t.server.api('GET', `/users/${t.server.owner.userUuid}/availability`)).body).toEqual(before);
  });

  it('answers "why is this time not offered?" from a keyboard-only form, with no serious axe violations', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${t.server.url}/app/availability`);
    // A date long past: the topic's notice is why, in words.
    await tabTo(page, '#why-date', 400);
    await page.fill('#why-date', '2020-01-06');
    await tabTo(page, '#why-time', 20);
    await page.fill('#why-time', '10:00');
    await tabTo(page, '#why-submit', 20);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#why-not-answer');
    expect(await page.textContent('#why-not-answer')).toContain('It is not offered because:');
    expect(await page.textContent('#why-not-answer')).toContain('The topic needs more notice');
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'app-why-not-1280');
  });

  it('every page at 360 and 1280 px: no serious axe violations, no sideways scrolling; screenshots kept', async () => {
    const topics = (await t.server.api('GET', `/meeting-topics?username=${t.server.owner.username}`)).body;
    const topicUuid = topics.meetingTopics[0]?.uuid;
    const paths = ['/app', '/app/availability', '/app/topics', '/app/topics/new', `/app/topics/${topicUuid}`, `/app/team/${t.server.owner.teamUuid}`, '/app/connections'];
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      for (const [index, path] of paths.entries()) {
        await page.goto(`${t.server.url}${path}`);
        expect(new URL(page.url()).pathname).toBe(path);
        expect(await seriousViolations(page), `${path} at ${width}px`).toEqual([]);
        const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
        expect(overflow, `${path} at ${width}px scrolls sideways`).toBeLessThanOrEqual(0);
        const name = ['upcoming', 'availability', 'topics', 'topic-new', 'topic-edit', 'team', 'connections'][index];
        await shot(page, `app-1${index}-${name}-${width}`);
      }
    }
    const login = await (await newContext(1280)).newPage();
    await login.goto(`${t.server.url}/app/login?lang=pl`);
    expect(await login.getByRole('button', { name: 'Wyślij link do logowania' }).count()).toBe(1);
    expect(await seriousViolations(login)).toEqual([]);
    await shot(login, 'app-01-login-1280-pl');
  }, 300_000);

  it('signs out: the session cookie no longer opens the app', async () => {
    await page.goto(`${t.server.url}/app`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${t.server.url}/app/login`);
    await page.goto(`${t.server.url}/app`);
    expect(new URL(page.url()).pathname).toBe('/app/login');
  });
});
