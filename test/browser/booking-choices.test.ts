import { HAS_CHROMIUM } from '../helpers.js';
import { describe, expect, it } from 'vitest';
import { chooseFirstSlot, createTopic, seriousViolations, shot, useServerAndBrowser } from './harness.js';

/**
 * Issue 41 items 1–3 on a 360 px phone, in English and Polish: the participant picks the
 * length before the times, the link fills their details and answers, a conditional question
 * shows only while it applies, and guests come along.
 */
describe.runIf(HAS_CHROMIUM)('booking choices on the booking page', () => {
  const t = useServerAndBrowser();

  it('length first, prefilled details, a conditional question and guests, at 360 px in English and Polish', async () => {
    for (const lang of ['en', 'pl'] as const) {
      const topic = await createTopic(t.server, {
        name: `Choices ${lang}`,
        places: ['offline'],
        durations: [30, 60],
        allowGuests: true,
        form: [
          { key: 'kind', label: lang === 'pl' ? 'Kto rezerwuje?' : 'Who books?', type: 'select', options: ['person', 'company'], required: true },
          { key: 'vat', label: lang === 'pl' ? 'NIP' : 'VAT number', required: true, showIf: { key: 'kind', equals: 'company' } },
          { key: 'topics', label: lang === 'pl' ? 'Tematy' : 'Topics', type: 'multiselect', options: ['pricing', 'security'] },
        ],
      });
      const query = `lang=${lang}&name=Jan%20Kowalski&email=jan.${lang}%40example.com&form.kind=company&form.topics=security`;
      const page = await t.open(`/book/${t.server.owner.username}/${topic.uuid}?${query}`, { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
      await page.locator('#days button[data-date]').first().waitFor();
      expect(await page.textContent('#durations legend')).toBe(lang === 'pl' ? 'Długość' : 'Length');
      // The length comes before the times, and choosing it asks for that length's times.
      const asked = page.waitForResponse((response) => response.url().endsWith('/calculate-schedule') && (response.request().postData() ?? '').includes('"duration":60'));
      await page.check('input[name=duration][value="60"]');
      await asked;
      await chooseFirstSlot(page, 1);

      // Filled from the link, as a CRM's link does.
      expect(await page.inputValue('input[name=name]')).toBe('Jan Kowalski');
      expect(await page.inputValue('input[name=email]')).toBe(`jan.${lang}@example.com`);
      expect(await page.inputValue('select[name="form.kind"]')).toBe('company');
      expect(await page.isChecked('input[name="form.topics"][value=security]')).toBe(true);
      // The VAT question applies to a company only: shown while it does, with no hint left over.
      expect(await page.isVisible('input[name="form.vat"]')).toBe(true);
      expect(await page.isVisible('.show-if-hint')).toBe(false);
      await page.selectOption('select[name="form.kind"]', 'person');
      expect(await page.isVisible('input[name="form.vat"]')).toBe(false);
      await page.selectOption('select[name="form.kind"]', 'company');
      await page.fill('input[name="form.vat"]', 'PL1234567890');
      await page.fill('textarea[name=guests]', 'ola@example.com, piotr@example.com');
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
      expect(await seriousViolations(page)).toEqual([]);
      await shot(page, `choices-360-${lang}`);

      await page.click('#submit');
      await page.locator('#done').waitFor();
      await expect.poll(() => page.textContent('#done')).toContain(`60 min`);
      expect(await seriousViolations(page)).toEqual([]);
      const meetings = (await t.server.api('GET', `/meetings?username=${t.server.owner.username}&limit=200`)).body.meetings.filter(
        (meeting: { meetingTopic: string }) => meeting.meetingTopic === topic.uuid,
      );
      expect(meetings).toHaveLength(1);
      expect(meetings[0]).toMatchObject({
        durationMinutes: 60,
        guests: ['ola@example.com', 'piotr@example.com'],
        form: { kind: 'company', vat: 'PL1234567890', topics: ['security'] },
        participant: { lang },
      });
      await page.context().close();
    }
  });

  it('the pay button’s total, and a discount’s quote, follow the chosen length', async () => {
    expect((await t.server.api('PATCH', '/account', { gateways: { p24: { merchantId: 1001, posId: 1001, apiKey: 'test-api-key', crc: 'test-crc' } } })).status).toBe(200);
    expect((await t.server.api('POST', '/discount-codes', { code: 'TEN', percentOff: 10 })).status).toBe(201);
    const topic = await createTopic(t.server, {
      name: 'Paid lengths',
      places: ['offline'],
      durations: [30, 60],
      price: { amount: 10_000, currency: 'PLN' },
      priceVariants: [{ name: 'One hour', price: { amount: 18_000, currency: 'PLN' }, durationMinutes: 60 }],
    });
    for (const [lang, short, long, discounted] of [
      ['en', 'Continue to payment · PLN 100.00', 'Continue to payment · PLN 180.00', 'Continue to payment · PLN 162.00'],
      ['pl', 'Przejdź do płatności · 100,00 zł', 'Przejdź do płatności · 180,00 zł', 'Przejdź do płatności · 162,00 zł'],
    ] as const) {
      const page = await t.open(`/book/${t.server.owner.username}/${topic.uuid}?lang=${lang}`, { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
      const total = async () => (await page.textContent('#submit'))!.replace(/\s/g, ' ');
      await chooseFirstSlot(page);
      expect(await total()).toBe(short);
      // The hour has a price of its own: the only one offered with it, and the one on the button.
      const asked = page.waitForResponse((response) => response.url().endsWith('/calculate-schedule') && (response.request().postData() ?? '').includes('"duration":60'));
      await page.check('input[name=duration][value="60"]');
      await asked;
      await chooseFirstSlot(page, 1);
      expect(await total()).toBe(long);
      expect(await page.isVisible('input[name=priceVariant]')).toBe(false);
      await page.fill('input[name=discount]', 'TEN');
      await page.press('input[name=discount]', 'Tab');
      await expect.poll(total).toBe(discounted);
      expect(await seriousViolations(page)).toEqual([]);
      await page.context().close();
    }
  });
});
