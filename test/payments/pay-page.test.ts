import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createTestAccount, createTestApp, type TestApp } from '../helpers.js';

/**
 * What a participant sees of a paid booking's prices: the payment page styled like the
 * booking page, its amount in the language's money format beside "Continue to payment",
 * and a booking page whose options do not offer the topic's base price twice.
 */
type Slot = { start: string; username: string };

for (const dialect of DIALECTS) {
  describe(`the pay page and price options [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;

    beforeAll(async () => {
      t = await createTestApp(dialect, undefined, { PUBLIC_URL: 'http://termin.test' });
      acme = await createTestAccount(t.ctx, { timezone: 'UTC', places: ['zoom'] });
      expect((await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { gateways: { stripe: { secretKey: 'sk_test_x', webhookSecret: 'whsec_x' } } })).statusCode).toBe(200);
    });
    afterAll(async () => t?.close());

    async function createTopic(extra: Record<string, unknown>) {
      const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
        name: 'Consultation',
        durationMinutes: 30,
        places: ['zoom'],
        bookingWindowDays: 365,
        public: true,
        ...extra,
      });
      expect(response.statusCode, response.body).toBe(201);
      return response.json() as { uuid: string; priceVariants: { uuid: string }[] };
    }

    async function book(topic: string, lang: 'en' | 'pl', priceVariant?: string) {
      const schedule = (await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic: topic, timezone: 'UTC', offset: 7 })).json();
      const slot = (schedule.days as { slots: Slot[] }[]).flatMap((day) => day.slots)[0]!;
      const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [slot],
        email: 'pat@example.com',
        name: 'Pat',
        lang,
        place: 'zoom',
        meetingTopic: topic,
        timezone: 'UTC',
        gateway: 'stripe',
        ...(priceVariant ? { priceVariant } : {}),
      });
      expect(response.statusCode, response.body).toBe(201);
      return response.json() as { payment: { uuid: string; redirectUrl: string } };
    }

    it('styles the pay page like the booking page and shows the total beside "Continue to payment", in the language’s format', async () => {
      const topic = await createTopic({ price: { amount: 15000, currency: 'PLN' }, priceVariants: [{ name: '90 minutes', price: { amount: 20000, currency: 'PLN' } }] });
      const booking = await book(topic.uuid, 'en', topic.priceVariants[0]!.uuid);
      const page = await t.app.inject({ method: 'GET', url: `/pay/${booking.payment.uuid}/return` });
      expect(page.statusCode).toBe(200);
      const stylesheet = /<link rel="stylesheet" href="(\/assets\/booking\.[0-9a-f]+\.css)">/.exec(page.body)?.[1];
      expect(stylesheet).toBeDefined();
      expect((await t.app.inject({ method: 'GET', url: stylesheet! })).statusCode).toBe(200);
      const action = (/<p class="pay-action">([\s\S]*?)<\/p>/.exec(page.body)?.[1] ?? '').replace(/\u00a0/g, ' ');
      expect(action).toContain(`href="${booking.payment.redirectUrl}"`);
      expect(action).toContain('Continue to payment');
      expect(action).toContain('PLN 200.00');

      const polish = await book(topic.uuid, 'pl');
      const strona = (await t.app.inject({ method: 'GET', url: `/pay/${polish.payment.uuid}/return` })).body;
      expect(/<p class="pay-action">([\s\S]*?)<\/p>/.exec(strona)?.[1]?.replace(/\u00a0/g, ' ')).toContain('150,00 zł');
    });

    it('does not offer the base price again when a variant already has it', async () => {
      const topic = await createTopic({
        price: { amount: 15000, currency: 'PLN' },
        priceVariants: [
          { name: '60 minutes', price: { amount: 15000, currency: 'PLN' } },
          { name: '90 minutes', price: { amount: 20000, currency: 'PLN' } },
        ],
      });
      const page = (await t.app.inject({ method: 'GET', url: `/book/${acme.owner.username}/${topic.uuid}?lang=en` })).body;
      const options = [...page.matchAll(/<input type="radio" name="priceVariant" value="([^"]*)"/g)].map((match) => match[1]);
      expect(options).toEqual(topic.priceVariants.map((variant) => variant.uuid));
      // With no variant at the base price, the base price stays a choice of its own.
      const other = await createTopic({ price: { amount: 10000, currency: 'PLN' }, priceVariants: [{ name: '90 minutes', price: { amount: 20000, currency: 'PLN' } }] });
      const otherPage = (await t.app.inject({ method: 'GET', url: `/book/${acme.owner.username}/${other.uuid}?lang=en` })).body;
      expect([...otherPage.matchAll(/<input type="radio" name="priceVariant" value="([^"]*)"/g)].map((match) => match[1])).toEqual(['', other.priceVariants[0]!.uuid]);
    });
  });
}
