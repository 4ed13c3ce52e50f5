import { beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM } from '../helpers.js';
import { createTopic, seriousViolations, shot, useServerAndBrowser } from './harness.js';

/**
 * The payment page as the participant sees it on the way to (or back from) the gateway:
 * styled like the booking page, the total beside "Continue to payment", nothing scrolling
 * sideways on a phone. Screenshots: test/artifacts/pay-*.png.
 */
describe.runIf(HAS_CHROMIUM)('the pay page in a browser', () => {
  const t = useServerAndBrowser();
  let payUrl: string;

  beforeAll(async () => {
    expect((await t.server.api('PATCH', '/account', { gateways: { stripe: { secretKey: 'sk_test_x', webhookSecret: 'whsec_x' } } })).status).toBe(200);
    const topic = await createTopic(t.server, {
      name: 'Paid consultation',
      places: ['offline'],
      price: { amount: 15000, currency: 'PLN' },
      priceVariants: [{ name: '90 minutes', price: { amount: 20000, currency: 'PLN' } }],
    });
    const schedule = await t.server.api('POST', '/calculate-schedule', { username: t.server.owner.username, meetingTopic: topic.uuid, timezone: 'Europe/Warsaw', offset: 7 });
    const slot = (schedule.body.days as { slots: { start: string; username: string }[] }[]).flatMap((day) => day.slots)[0]!;
    const booked = await t.server.api('POST', '/schedule', {
      dates: [slot],
      email: 'paula@example.com',
      name: 'Paula Payer',
      lang: 'en',
      place: 'offline',
      meetingTopic: topic.uuid,
      timezone: 'Europe/Warsaw',
      gateway: 'stripe',
      priceVariant: topic.priceVariants[0].uuid,
    });
    expect(booked.status).toBe(201);
    // Back from the gateway before it confirmed: the page shows the payment still to be made (no gateway call).
    payUrl = `${t.server.url}/pay/${booked.body.payment.uuid}/return`;
  }, 90_000);

  for (const width of [1280, 360]) {
    it(`at ${width} px: the booking page's styles, the total beside "Continue to payment", no sideways scrolling`, async () => {
      const page = await t.browser.newPage({ viewport: { width, height: 800 } });
      try {
        await page.goto(payUrl);
        const action = page.locator('.pay-action');
        expect((await action.textContent())!.replace(/\s+/g, ' ')).toMatch(/Continue to payment PLN 200\.00/);
        // The stylesheet is applied: the link is drawn as the booking page's primary button.
        const background = await page.evaluate(`getComputedStyle(document.querySelector('.pay-action a.primary')).backgroundColor`);
        expect(background).not.toBe('rgba(0, 0, 0, 0)');
        expect(await page.evaluate(`document.documentElement.scrollWidth - document.documentElement.clientWidth`)).toBe(0);
        expect(await seriousViolations(page)).toEqual([]);
        await shot(page, `pay-pending-${width}`);
      } finally {
        await page.close();
      }
    });
  }
});
