import { describe, expect, it } from 'vitest';
import { HAS_CHROMIUM } from '../helpers.js';
import { ALWAYS_OPEN, chooseFirstSlot, createTopic, seriousViolations, shot, useServerAndBrowser } from './harness.js';

/**
 * Issue 40 item 7: a new host's first-run checklist on Upcoming, in real Chromium on a 360 px
 * phone in Polish, against the real server (e-mail to .eml files): shown after the first
 * sign-in with every step open, accessible (axe-core), updated as steps are done elsewhere,
 * and gone once the booking link is copied from it (the copy counts as sharing). And item 5 on
 * the booking page: a phone call asks the participant's number while the host gave none, and a
 * Zoom booking whose room is not made yet says in its success view that the link follows.
 */
describe.runIf(HAS_CHROMIUM)('the first-run checklist in a browser', () => {
  const t = useServerAndBrowser({ openAllDay: false });

  it('guides a new host on a 360 px phone in Polish with 0 serious axe violations, and goes once the booking link is copied', async () => {
    const { server } = t;
    const members = await server.api('GET', `/teams/${server.owner.teamUuid}/users`);
    const email = members.body.users.find((user: { uuid: string }) => user.uuid === server.owner.userUuid).email as string;
    const context = await t.browser.newContext({ timezoneId: 'Europe/Warsaw', locale: 'pl-PL', viewport: { width: 360, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    const page = await context.newPage();
    page.on('pageerror', (error) => {
      throw error;
    });

    // Signed in from the e-mailed link, as a new host is.
    await page.goto(`${server.url}/app/login?lang=pl`);
    await page.fill('input[name=email]', email);
    await page.keyboard.press('Enter');
    let link: string | undefined;
    await expect
      .poll(() => {
        link = server
          .outbox()
          .map((eml) => eml.replace(/=\r?\n/g, ''))
          .map((eml) => /https?:\/\/[^\s"<>]+\/app\/login\/[A-Za-z0-9_-]+/.exec(eml)?.[0])
          .find((found) => found !== undefined);
        return link;
      })
      .toBeDefined();
    await page.goto(link!);
    await page.click('#confirm-sign-in');
    await page.waitForURL(`${server.url}/app`);

    expect(await page.textContent('#h-checklist')).toBe('Przygotuj się na rezerwacje');
    expect(await page.locator('#checklist li.step-todo').count()).toBe(4);
    expect(await page.getAttribute('#step-hours a', 'href')).toBe('/app/availability');
    expect(await page.inputValue('#booking-link')).toBe(`${server.url}/book/${server.owner.username}`);
    // Nothing wider than the phone's screen.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await shot(page, 'app-checklist-360-pl');
    expect(await seriousViolations(page)).toEqual([]);

    // Hours and a phone-call topic (a place that needs no connection), done elsewhere: three steps ticked.
    expect((await server.api('PUT', `/users/${server.owner.userUuid}/availability`, ALWAYS_OPEN)).status).toBe(200);
    await createTopic(server, { name: 'Rozmowa', places: ['phone-call'] });
    await page.reload();
    expect(await page.locator('#checklist li.step-done').count()).toBe(3);
    expect(await page.textContent('#checklist .hint')).toBe('Zrobione: 3 z 4');
    expect(await seriousViolations(page)).toEqual([]);

    // Copying the link counts as sharing it: the checklist is done and goes.
    await page.click('button.copy-link[data-copy=booking-link]');
    await page.waitForURL(`${server.url}/app?done=shared`);
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(`${server.url}/book/${server.owner.username}`);
    expect(await page.locator('#checklist').count()).toBe(0);
    expect(await page.textContent('p.notice')).toBe('Link do rezerwacji oznaczono jako udostępniony.');
    await context.close();
  }, 90_000);

  it('asks a phone call’s number only while that place is chosen, and tells a Zoom booking without its room yet that the link follows', async () => {
    const { server } = t;
    // The business has a Zoom app; the host has no Zoom connection yet: the room comes once they connect.
    expect((await server.api('PATCH', '/account', { integrations: { zoom: { clientId: 'zoom-app', clientSecret: 'zoom-secret' } } })).status).toBe(200);
    expect((await server.api('PUT', `/users/${server.owner.userUuid}/availability`, ALWAYS_OPEN)).status).toBe(200);
    const topic = await createTopic(server, { name: 'Consultation', places: ['zoom', 'phone-call'] });
    const page = await t.open(`/book/${server.owner.username}/${topic.uuid}?lang=en`, { viewport: { width: 360, height: 800 } });
    await chooseFirstSlot(page, 1);
    const phoneRequired = () => page.evaluate(`document.getElementById('f-phone').required`);
    expect(await phoneRequired()).toBe(false);
    await page.check('input[name=place][value=phone-call]');
    expect(await phoneRequired()).toBe(true);
    expect(await page.isVisible('label[for=f-phone] .opt')).toBe(false);
    await page.check('input[name=place][value=zoom]');
    expect(await phoneRequired()).toBe(false);
    expect(await page.isVisible('label[for=f-phone] .opt')).toBe(true);

    await page.fill('input[name=name]', 'Jan Kowalski');
    await page.fill('input[name=email]', 'jan@example.com');
    await page.click('#submit');
    await page.locator('#done').waitFor();
    expect(await page.textContent('#done-text')).toBe('A confirmation with a calendar invitation is on its way to jan@example.com. The link to join follows by e-mail.');
    await shot(page, 'book-link-follows-360');
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  }, 90_000);
});
