import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { freePort, HAS_CHROMIUM } from '../helpers.js';
import { chooseFirstSlot, createTopic, openAllDay, seriousViolations, shot, useServerAndBrowser } from './harness.js';

/** A team's one calendar, a paid topic handing over to its payment page, and the embed. */
describe.runIf(HAS_CHROMIUM)('team, paid and embedded booking pages in a browser', () => {
  // The payment page's gateway call goes nowhere: only reaching /pay/… is checked here.
  const t = useServerAndBrowser({ env: async () => ({ P24_API_URL: `http://127.0.0.1:${await freePort()}` }) });

  async function open(url: string): Promise<Page> {
    const context = await t.browser.newContext({ timezoneId: 'Europe/London', locale: 'en-GB' });
    const page = await context.newPage();
    await page.goto(url.startsWith('http') ? url : `${t.server.url}${url}`);
    return page;
  }

  it('a team topic shows one calendar; each slot names a free host and the meeting is booked with that host', async () => {
    const team = t.server.owner.teamUuid;
    const members: { uuid: string; username: string }[] = [];
    for (const [firstName, lastName] of [
      ['Ada', 'Team'],
      ['Bob', 'Team'],
    ] as const) {
      const response = await t.server.api('POST', `/teams/${team}/users`, { firstName, lastName, email: `${firstName.toLowerCase()}@team.example`, admin: false });
      expect(response.status).toBe(201);
      members.push(response.body);
      await openAllDay(t.server, response.body.uuid);
    }
    const topic = await createTopic(t.server, { name: 'Team call', team, hosts: members.map((member) => member.username), places: ['offline'] });
    const page = await open(`/book/teams/${team}/${topic.uuid}`);
    await shot(page, 'team-01-calendar');
    const { start } = await chooseFirstSlot(page);
    const host = await page.getAttribute(`#slots button[data-start="${start}"]`, 'data-username');
    expect(members.map((member) => member.username)).toContain(host);
    await page.fill('input[name=name]', 'Tess Team');
    await page.fill('input[name=email]', 'tess@example.com');
    await page.click('#submit');
    await page.locator('#done').waitFor();
    // For a team topic the confirmation names who hosts it: the free host the slot was booked with.
    await page.locator('#booking-summary').waitFor();
    const hostMember = members.find((member) => member.username === host) as unknown as { firstName: string; lastName: string };
    expect(await page.textContent('#done #host')).toBe(`${hostMember.firstName} ${hostMember.lastName}`);
    await shot(page, 'team-02-confirmation');

    const listed = await t.server.api('GET', `/meetings?team=${team}&limit=200`);
    const booked = (listed.body.meetings as { meetingTopic: string; start: string; username: string }[]).filter((meeting) => meeting.meetingTopic === topic.uuid);
    expect(booked.map((meeting) => [meeting.start, meeting.username])).toEqual([[start, host]]);
  });

  it('a paid topic shows its price and variants, and goes on to the payment page', async () => {
    const gateways = await t.server.api('PATCH', '/account', { gateways: { p24: { merchantId: 1001, posId: 1001, apiKey: 'test-api-key', crc: 'test-crc' } } });
    expect(gateways.status).toBe(200);
    const topic = await createTopic(t.server, {
      name: 'Paid consultation',
      places: ['offline'],
      price: { amount: 15000, currency: 'PLN' },
      priceVariants: [{ name: '90 minutes', price: { amount: 20000, currency: 'PLN' } }],
    });
    const page = await open(`/book/${t.server.owner.username}/${topic.uuid}`);
    expect((await page.textContent('.facts'))!.replace(/\s+/g, ' ')).toContain('from PLN 150.00');
    await chooseFirstSlot(page);
    const variant = topic.priceVariants[0].uuid as string;
    await page.check(`input[name=priceVariant][value="${variant}"]`);
    await page.fill('input[name=name]', 'Paula Payer');
    await page.fill('input[name=email]', 'paula@example.com');
    await page.click('details.invoice summary');
    await page.fill('input[name=invoiceName]', 'Payer Sp. z o.o.');
    await shot(page, 'paid-01-form');
    expect(await seriousViolations(page)).toEqual([]);
    expect((await page.textContent('#submit'))!.replace(/\s/g, ' ')).toBe('Continue to payment · PLN 200.00');
    // The answer is read on its way through: the page leaves for /pay at once.
    let manageUrls: string[] = [];
    await page.route('**/api/v1/public/schedule', async (route) => {
      const response = await route.fetch();
      manageUrls = ((await response.json()) as { manageUrls: string[] }).manageUrls;
      await route.fulfill({ response });
    });
    await Promise.all([page.waitForURL(/\/pay\/[0-9a-f-]{36}/), page.click('#submit')]);
    const paymentUuid = /\/pay\/([0-9a-f-]{36})/.exec(page.url())![1];
    await shot(page, 'paid-02-payment-page');

    const payment = await t.server.api('GET', `/payments/${paymentUuid}`);
    expect(payment.status).toBe(200);
    expect(payment.body.payment).toMatchObject({ amount: 20000, currency: 'PLN', gateway: 'p24' });
    expect(
      payment.body.meetings.map((meeting: { status: string; priceVariant: string; invoice: { invoiceName: string } }) => [
        meeting.status,
        meeting.priceVariant,
        meeting.invoice?.invoiceName,
      ]),
    ).toEqual([['pending_payment', variant, 'Payer Sp. z o.o.']]);

    // The booking's own page says what it costs (the chosen variant) and that it is not paid yet.
    const manage = await open(manageUrls[0]!);
    expect((await manage.textContent('#price'))!.replace(/\s/g, ' ')).toBe('PLN 200.00 (awaiting payment)');
    await shot(manage, 'paid-03-manage-unpaid');
  });

  it('embedded on another site: an iframe sized to its content, and the booking announced with postMessage', async () => {
    const topic = await createTopic(t.server, { name: 'Embedded call', places: ['offline'] });
    // The business's own site, on another origin (localhost vs 127.0.0.1), served by a tiny loopback server.
    const http = await import('node:http');
    const port = await freePort();
    const bookingUrl = `${t.server.url}/book/${t.server.owner.username}/${topic.uuid}`;
    const site = http.createServer((_request, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end(`<!doctype html><html lang="en"><head><title>Shop</title></head><body><h1>Our shop</h1>
<script>window.termin = []; window.addEventListener('message', (e) => { if (e.data && e.data.type === 'termin:booked') window.termin.push({ origin: e.origin, data: e.data }); });</script>
<script src="${t.server.url}/embed.js" data-termin-booking="${bookingUrl}"></script><footer>after</footer></body></html>`);
    });
    await new Promise<void>((resolve) => site.listen(port, 'localhost', resolve));
    try {
      const page = await open(`http://localhost:${port}/`);
      const frameElement = page.locator('iframe');
      await frameElement.waitFor();
      const frame = page.frameLocator('iframe');
      await frame.locator('button[data-date]').first().waitFor();
      // The iframe grows to the page's height instead of scrolling inside itself.
      await expect.poll(async () => (await frameElement.boundingBox())!.height).toBeGreaterThan(500);
      const day = frame.locator('button[data-date]').first();
      await day.click();
      const slot = frame.locator('#slots button[data-start]').first();
      const start = await slot.getAttribute('data-start');
      await slot.click();
      await frame.locator('input[name=name]').fill('Emma Embed');
      await frame.locator('input[name=email]').fill('emma@example.com');
      await frame.locator('#submit').click();
      await frame.locator('#done').waitFor();
      await shot(page, 'embed-01-booked');
      const messages = (await page.evaluate('window.termin')) as { origin: string; data: { type: string; meetings: { start: string }[]; payment: unknown } }[];
      expect(messages).toHaveLength(1);
      expect(messages[0]!.origin).toBe(t.server.url);
      expect(messages[0]!.data.meetings.map((meeting) => meeting.start)).toEqual([start]);
      expect(messages[0]!.data.payment).toBeNull();
    } finally {
      site.close();
    }
  });
});
