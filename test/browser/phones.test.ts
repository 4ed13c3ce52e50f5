import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { freePort, HAS_CHROMIUM } from '../helpers.js';
import { chooseFirstSlot, createTopic, shot, useServerAndBrowser } from './harness.js';

/**
 * Every participant page on a small phone (360 px wide, touch), in both languages: nothing
 * may scroll sideways, and tapping a day brings its times into view.
 */
describe.runIf(HAS_CHROMIUM)('the pages on a 360 px phone', () => {
  // The payment page's gateway call goes nowhere: only the page's layout is checked.
  const t = useServerAndBrowser({ env: async () => ({ P24_API_URL: `http://127.0.0.1:${await freePort()}` }) });
  let free: { uuid: string };
  let paid: { uuid: string };

  beforeAll(async () => {
    expect((await t.server.api('PATCH', '/account', { gateways: { p24: { merchantId: 1001, posId: 1001, apiKey: 'test-api-key', crc: 'test-crc' } } })).status).toBe(200);
    // Every place the account offers: the longest "places" line there is.
    const places = ['offline', 'phone-call', 'zoom'];
    free = await createTopic(t.server, { name: 'Konsultacja wstępna dla nowych klientów', places, description: 'Porozmawiamy o Twoich potrzebach i możliwościach współpracy.' });
    paid = await createTopic(t.server, { name: 'Płatna konsultacja', places, price: { amount: 15000, currency: 'PLN' } });
  }, 60_000);

  async function phone(url: string): Promise<Page> {
    const context = await t.browser.newContext({
      viewport: { width: 360, height: 740 },
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
      timezoneId: 'Europe/Warsaw',
      locale: 'pl-PL',
    });
    const page = await context.newPage();
    await page.goto(url.startsWith('http') ? url : `${t.server.url}${url}`);
    return page;
  }

  /** Wider than the screen: the page scrolls sideways. */
  async function overflow(page: Page): Promise<{ scrollWidth: number; clientWidth: number; widest: string[] }> {
    return (await page.evaluate(`(() => {
      const root = document.documentElement;
      const widest = [...document.querySelectorAll('body *')].filter((node) => node.getBoundingClientRect().right > root.clientWidth + 0.5)
        .slice(0, 5).map((node) => node.tagName.toLowerCase() + (node.id ? '#' + node.id : '') + (node.className && typeof node.className === 'string' ? '.' + node.className.split(' ').join('.') : ''));
      return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, widest };
    })()`)) as { scrollWidth: number; clientWidth: number; widest: string[] };
  }

  async function expectNoSidewaysScroll(page: Page, name: string): Promise<void> {
    await shot(page, `phone-${name}`);
    const measured = await overflow(page);
    expect({ page: name, ...measured, fits: measured.scrollWidth <= measured.clientWidth }).toMatchObject({ page: name, fits: true });
  }

  async function bookThroughApi(
    topicUuid: string,
    lang: 'en' | 'pl',
    extra: Record<string, string> = {},
  ): Promise<{ manageUrls: string[]; payment: { redirectUrl: string } | null }> {
    const schedule = (await fetch(`${t.server.url}/api/v1/calculate-schedule`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: t.server.owner.username, meetingTopic: topicUuid, timezone: 'Europe/Warsaw', offset: 0 }),
    }).then((response) => response.json())) as { days: { slots: { start: string; username: string }[] }[] };
    const taken = new Set<string>();
    const listed = await t.server.api('GET', `/meetings?username=${t.server.owner.username}&limit=200`);
    for (const meeting of listed.body.meetings as { start: string }[]) taken.add(meeting.start);
    const slot = schedule.days.flatMap((day) => day.slots).find((candidate) => !taken.has(candidate.start))!;
    const response = await fetch(`${t.server.url}/api/v1/public/schedule`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        dates: [slot],
        meetingTopic: topicUuid,
        name: 'Małgorzata Brzęczyszczykiewicz',
        email: `phone-${lang}-${Date.now()}@example.com`,
        lang,
        place: 'offline',
        timezone: 'Europe/Warsaw',
        ...extra,
      }),
    });
    expect([response.status, response.status === 201 ? '' : await response.text()]).toEqual([201, '']);
    return (await response.json()) as { manageUrls: string[]; payment: { redirectUrl: string } | null };
  }

  for (const lang of ['en', 'pl'] as const) {
    it(`${lang}: booking, topic list, embed, confirmation, manage and pay pages all fit 360 px`, async () => {
      const booking = await phone(`/book/${t.server.owner.username}/${free.uuid}?lang=${lang}`);
      await booking.locator('#days button[data-date]').first().waitFor();
      await expectNoSidewaysScroll(booking, `${lang}-booking`);
      await chooseFirstSlot(booking);
      await expectNoSidewaysScroll(booking, `${lang}-form`);
      await booking.fill('input[name=name]', 'Małgorzata Brzęczyszczykiewicz');
      await booking.fill('input[name=email]', `confirm-${lang}@example.com`);
      await booking.click('#submit');
      await booking.locator('#booking-summary').waitFor();
      await expectNoSidewaysScroll(booking, `${lang}-confirmation`);

      const list = await phone(`/book/${t.server.owner.username}?lang=${lang}`);
      await expectNoSidewaysScroll(list, `${lang}-topics`);
      const embedded = await phone(`/book/${t.server.owner.username}/${paid.uuid}?lang=${lang}&embed=${encodeURIComponent('https://shop.example')}`);
      await embedded.locator('#days button[data-date]').first().waitFor();
      await expectNoSidewaysScroll(embedded, `${lang}-embed`);

      const { manageUrls } = await bookThroughApi(free.uuid, lang);
      const manage = await phone(manageUrls[0]!);
      await manage.locator('#days button[data-date]').first().waitFor();
      await expectNoSidewaysScroll(manage, `${lang}-manage`);

      const { payment } = await bookThroughApi(paid.uuid, lang, { gateway: 'p24' });
      const pay = await phone(`${new URL(payment!.redirectUrl).pathname}?lang=${lang}`);
      await expectNoSidewaysScroll(pay, `${lang}-pay`);
    });
  }

  it('tapping a day brings its times into view', async () => {
    const page = await phone(`/book/${t.server.owner.username}/${free.uuid}?lang=pl`);
    const days = page.locator('#days button[data-date]');
    await days.first().waitFor();
    // Scrolled back to the calendar, as after looking at the month, then a tap on another day.
    await page.evaluate('window.scrollTo(0, 0)');
    await days.nth((await days.count()) > 1 ? 1 : 0).tap();
    await expect
      .poll(async () =>
        page.evaluate(`(() => {
          const box = document.getElementById('h-time').getBoundingClientRect();
          const first = document.querySelector('#slots button').getBoundingClientRect();
          // The times' heading near the top, so the list below it fills the screen.
          return box.top >= 0 && box.top <= window.innerHeight / 3 && first.bottom <= window.innerHeight;
        })()`),
      )
      .toBe(true);
    await shot(page, 'phone-pl-day-tapped');
  });
});
