import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, HAS_CHROMIUM } from '../helpers.js';
import { chooseFirstSlot, createTopic, seriousViolations, shot, useServerAndBrowser } from './harness.js';

/**
 * Times, dates and money as the visitor's locale reads them (issue 23, item 6): an en-US
 * browser sees 12-hour times, en-GB and Polish ones 24-hour, and a 12/24-hour switch on the
 * booking and manage pages overrides that and is remembered across a reload.
 */
describe.runIf(HAS_CHROMIUM)('time and money formats in a browser', () => {
  const t = useServerAndBrowser({ env: async () => ({ P24_API_URL: `http://127.0.0.1:${await freePort()}` }) });
  const contexts: BrowserContext[] = [];
  // Chromium's ICU puts a narrow no-break space before AM/PM.
  const TWELVE = /^\d{1,2}:\d{2}[\s\u202f]?[AP]M$/;
  const TWENTY_FOUR = /^\d{2}:\d{2}$/;

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
  });

  async function newContext(locale: string, viewport = { width: 1280, height: 900 }): Promise<BrowserContext> {
    const context = await t.browser.newContext({ timezoneId: 'Europe/Warsaw', locale, viewport });
    contexts.push(context);
    return context;
  }
  async function open(context: BrowserContext, url: string): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (error) => {
      throw error;
    });
    await page.goto(url.startsWith('http') ? url : `${t.server.url}${url}`);
    return page;
  }
  async function slotLabels(page: Page): Promise<string[]> {
    return (await page.locator('#slots button[data-start]').allTextContents()).map((text) => text.trim());
  }
  async function fitsAt360(page: Page): Promise<boolean> {
    await page.setViewportSize({ width: 360, height: 740 });
    return (await page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth')) as boolean;
  }

  it('en-US: 12-hour slots; the switch turns them 24-hour, with the selected time, and a reload keeps it', async () => {
    const topic = await createTopic(t.server, { name: 'US call', places: ['offline'] });
    const context = await newContext('en-US');
    const page = await open(context, `/book/${t.server.owner.username}/${topic.uuid}`);
    await chooseFirstSlot(page);
    expect((await slotLabels(page)).every((label) => TWELVE.test(label))).toBe(true);
    expect(await page.isChecked('#hour-switch input[value="12"]')).toBe(true);
    expect(await page.textContent('#selected-label')).toMatch(/\d{1,2}:\d{2}[\s\u202f]?[AP]M \(/);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'formats-01-en-US-12h');

    await page.getByLabel('24-hour').check();
    expect((await slotLabels(page)).every((label) => TWENTY_FOUR.test(label))).toBe(true);
    expect(await page.textContent('#selected-label')).toMatch(/, \d{2}:\d{2} \(/);
    // The chosen slot stays chosen after the redraw.
    expect(await page.locator('#slots button[aria-pressed=true]').count()).toBe(1);

    await page.reload();
    await page.locator('#slots button[data-start]').first().waitFor();
    expect(await page.isChecked('#hour-switch input[value="24"]')).toBe(true);
    expect((await slotLabels(page)).every((label) => TWENTY_FOUR.test(label))).toBe(true);
    expect(await fitsAt360(page)).toBe(true);
    await shot(page, 'formats-02-en-US-24h-360');
  });

  it('en-GB and Polish browsers: 24-hour slots, and the Polish switch speaks Polish', async () => {
    const topic = await createTopic(t.server, { name: 'Godzina', places: ['offline'] });
    const british = await open(await newContext('en-GB'), `/book/${t.server.owner.username}/${topic.uuid}`);
    await chooseFirstSlot(british);
    expect((await slotLabels(british)).every((label) => TWENTY_FOUR.test(label))).toBe(true);
    expect(await british.isChecked('#hour-switch input[value="24"]')).toBe(true);

    const polish = await open(await newContext('pl-PL'), `/book/${t.server.owner.username}/${topic.uuid}`);
    await chooseFirstSlot(polish);
    expect((await slotLabels(polish)).every((label) => TWENTY_FOUR.test(label))).toBe(true);
    expect(await polish.textContent('#hour-switch legend')).toBe('Format godziny');
    await polish.getByLabel('12-godzinny').check();
    expect((await slotLabels(polish)).every((label) => /^\d{1,2}:\d{2}[\s\u202f]?(AM|PM)$/.test(label))).toBe(true);
    expect(await seriousViolations(polish)).toEqual([]);
    expect(await fitsAt360(polish)).toBe(true);
    await shot(polish, 'formats-03-pl-12h-360');
  });

  it('the manage page: "When" 12-hour for en-US as in the e-mail, the switch changes it and a reload keeps it', async () => {
    const topic = await createTopic(t.server, { name: 'Managed', places: ['offline'], cancellationNoticeMinutes: 60 });
    const schedule = await fetch(`${t.server.url}/api/v1/calculate-schedule`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: t.server.owner.username, meetingTopic: topic.uuid, timezone: 'America/New_York', offset: 0 }),
    }).then((response) => response.json() as Promise<{ days: { slots: { start: string; username: string }[] }[] }>);
    // A slot that starts and ends on one New York day: a 23:30 slot ends on the next day,
    // and its "When" rightly names both dates (the run at 23:12 New York time found that).
    const newYorkHour = (iso: string) => Number(new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: 'numeric', hourCycle: 'h23' }).format(new Date(iso)));
    const slot = schedule.days.flatMap((day) => day.slots).find((candidate) => newYorkHour(candidate.start) < 23)!;
    const booked = await fetch(`${t.server.url}/api/v1/public/schedule`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ dates: [slot], meetingTopic: topic.uuid, name: 'Una States', email: 'una@example.com', lang: 'en', place: 'offline', timezone: 'America/New_York' }),
    });
    expect(booked.status).toBe(201);
    const { manageUrls } = (await booked.json()) as { manageUrls: string[] };

    const context = await newContext('en-US');
    const page = await open(context, manageUrls[0]!);
    const when = (await page.textContent('#when'))!;
    expect(when).toMatch(/^[A-Z][a-z]+day, [A-Z][a-z]+ \d{1,2}, \d{4}, \d{1,2}:\d{2}[\s\u202f][AP]M–\d{1,2}:\d{2}[\s\u202f][AP]M$/);
    // The participant's e-mail (language `en`) says the same span, with the zone after it.
    let mail = '';
    await expect
      .poll(
        () => {
          mail = t.server.outbox().find((eml) => eml.includes('una@example.com')) ?? '';
          return mail;
        },
        { timeout: 15_000 },
      )
      .not.toBe('');
    expect(decodeMail(mail)).toContain(`${when} (America/New_York)`);
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByLabel('24-hour').check();
    expect(await page.textContent('#when')).toMatch(/, \d{2}:\d{2}–\d{2}:\d{2}$/);
    expect(await page.textContent('#change-until-at')).toMatch(/, \d{2}:\d{2}$/);
    await page.reload();
    expect(await page.textContent('#when')).toMatch(/, \d{2}:\d{2}–\d{2}:\d{2}$/);
    expect(await page.isChecked('#hour-switch input[value="24"]')).toBe(true);
    expect(await fitsAt360(page)).toBe(true);
    await shot(page, 'formats-04-manage-24h-360');
  });

  it("the participant's e-mail reads times as their browser did: en-GB 24-hour, and an en-US visitor's 24-hour choice", async () => {
    const topic = await createTopic(t.server, { name: 'Same in the mail', places: ['offline'] });
    const bookThroughPage = async (locale: string, email: string, choose24 = false) => {
      const page = await open(await newContext(locale), `/book/${t.server.owner.username}/${topic.uuid}`);
      await chooseFirstSlot(page, 1);
      if (choose24) await page.getByLabel('24-hour').check();
      await page.fill('input[name=name]', 'Fiona Format');
      await page.fill('input[name=email]', email);
      await page.click('#submit');
      await page.locator('#booking-summary').waitFor();
      const when = (await page.textContent('#done #when'))!;
      let mail = '';
      await expect
        .poll(
          () => {
            // The participant's own message (the host's names their address too).
            mail = t.server.outbox().find((eml) => /^To: .*$/m.exec(eml)?.[0].includes(email) && !eml.includes('METHOD:CANCEL')) ?? '';
            return mail;
          },
          { timeout: 15_000 },
        )
        .not.toBe('');
      return { when, mail: decodeMail(mail) };
    };

    const british = await bookThroughPage('en-GB', 'fiona.gb@example.com');
    expect(british.when).toMatch(/^[A-Z][a-z]+day, \d{1,2} [A-Z][a-z]+ \d{4}, \d{2}:\d{2}–\d{2}:\d{2}$/);
    // The page's span, then the zone, exactly as the page showed it: not "9:00 AM".
    expect(british.mail).toContain(`${british.when} (Europe/Warsaw)`);
    expect(british.mail).not.toMatch(/\d[\s\u202f][AP]M/);

    const chose24 = await bookThroughPage('en-US', 'fiona.us@example.com', true);
    expect(chose24.when).toMatch(/, \d{2}:\d{2}–\d{2}:\d{2}$/);
    expect(chose24.mail).toContain(`${chose24.when} (Europe/Warsaw)`);
  });

  it('"Continue to payment" shows the total of the chosen price, and after a discount code the total the server quotes for it', async () => {
    const gateways = await t.server.api('PATCH', '/account', { gateways: { p24: { merchantId: 1001, posId: 1001, apiKey: 'test-api-key', crc: 'test-crc' } } });
    expect(gateways.status).toBe(200);
    const topic = await createTopic(t.server, {
      name: 'Paid talk',
      places: ['offline'],
      price: { amount: 15000, currency: 'PLN' },
      priceVariants: [{ name: '90 minutes', price: { amount: 20000, currency: 'PLN' } }],
    });
    expect((await t.server.api('POST', '/discount-codes', { code: 'SPRING', percentOff: 20 })).status).toBe(201);
    const page = await open(await newContext('pl-PL'), `/book/${t.server.owner.username}/${topic.uuid}`);
    await chooseFirstSlot(page);
    const submit = async () => (await page.textContent('#submit'))!.replace(/\s/g, ' ');
    expect(await submit()).toBe('Przejdź do płatności · 150,00 zł');
    await page.check(`input[name=priceVariant][value="${topic.priceVariants[0].uuid}"]`);
    expect(await submit()).toBe('Przejdź do płatności · 200,00 zł');
    await page.fill('input[name=discount]', 'SPRING');
    expect(await submit()).toBe('Przejdź do płatności · 200,00 zł (przed rabatem)');
    // Leaving the field asks the server: the total after the code, as the booking will charge it.
    await page.press('input[name=discount]', 'Tab');
    await expect.poll(submit).toBe('Przejdź do płatności · 160,00 zł');
    expect((await page.textContent('#discount-status'))!.replace(/\s/g, ' ')).toBe('Kod SPRING: 200,00 zł → 160,00 zł');
    // Another price: asked again.
    await page.check('input[name=priceVariant][value=""]');
    await expect.poll(submit).toBe('Przejdź do płatności · 120,00 zł');
    await page.fill('input[name=discount]', 'NOPE');
    await page.press('input[name=discount]', 'Tab');
    await expect.poll(() => page.getAttribute('input[name=discount]', 'aria-invalid')).toBe('true');
    expect(await page.textContent('#f-discount-error')).toBe('Ten kod rabatowy jest nieważny.');
    expect(await submit()).toBe('Przejdź do płatności · 150,00 zł (przed rabatem)');
    await page.fill('input[name=discount]', '');
    await page.press('input[name=discount]', 'Tab');
    await expect.poll(submit).toBe('Przejdź do płatności · 150,00 zł');
    expect(await page.getAttribute('input[name=discount]', 'aria-invalid')).toBeNull();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'formats-05-pay-total');
  });
});

/** The .eml's text as a reader sees it: quoted-printable soft breaks joined, =XX bytes decoded as UTF-8. */
function decodeMail(eml: string): string {
  const bytes = Buffer.from(eml.replace(/=\r?\n/g, ''), 'utf8').toString('latin1');
  return Buffer.from(
    bytes.replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');
}
