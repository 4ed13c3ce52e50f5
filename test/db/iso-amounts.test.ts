import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { down, reexpressStoredAmounts } from '../../src/db/migrations/0014-attempts-and-iso-amounts.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { ISO_4217_MINOR_UNITS } from '../../src/domain/iso-4217.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe-gateway.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, type TestApp } from '../helpers.js';

/**
 * Migration 0014's data step. Until it, the runtime's ICU decided a currency's decimals, and
 * ICU 78 gives HUF none: a stored 1500 HUF was shown and charged as 1500 Ft. With ISO 4217's
 * two decimals the same number would mean 15.00 Ft, so the step re-expresses stored amounts in
 * such a currency (1500 → 150000) and the money stays what it was. Here the "before" exponents
 * are given (HUF 0, everything else as ISO), whatever ICU this runtime has.
 */
type Slot = { start: string; username: string };
const hufWasWhole = (code: string) => (code === 'HUF' ? 0 : (ISO_4217_MINOR_UNITS[code] ?? null));

for (const dialect of DIALECTS) {
  describe(`amounts re-expressed in ISO 4217 minor units [${dialect}]`, () => {
    let t: TestApp;
    let stripe: FakeStripe;
    let acme: CreatedAccount;

    beforeAll(async () => {
      const clock = createClock('2027-01-04T06:00:00.000Z');
      stripe = await startFakeStripe({ now: clock.now });
      t = await createTestApp(dialect, clock, { STRIPE_API_URL: stripe.baseUrl });
      acme = await createTestAccount(t.ctx, { timezone: 'UTC', places: ['zoom'] });
      expect((await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { gateways: { stripe: { ...stripe.credentials.secrets } } })).statusCode).toBe(200);
    }, 60_000);

    afterAll(async () => {
      await t?.close();
      await stripe?.close();
    });

    const topic = async (uuid: string) => (await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${uuid}`)).json();
    const createTopic = async (body: Record<string, unknown>) => {
      const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Konzultáció', durationMinutes: 30, places: ['zoom'], public: true, ...body });
      expect(response.statusCode, response.body).toBe(201);
      return response.json() as { uuid: string };
    };

    it('re-expresses what was stored in whole forints — prices, variants, discounts, payments — and leaves other currencies alone', async () => {
      // What the code before 0014 stored for "1500 Ft, or 2500 Ft for the long one, 100 Ft off".
      const forint = await createTopic({ price: { amount: 1500, currency: 'HUF' }, priceVariants: [{ name: 'Long', price: { amount: 2500, currency: 'HUF' } }] });
      const zloty = await createTopic({ price: { amount: 15000, currency: 'PLN' } });
      const discount = (await call(t.app, acme.apiKey, 'POST', '/api/v1/discount-codes', { code: 'SZAZ', amountOff: { amount: 100, currency: 'HUF' } })).json();
      const schedule = (
        await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic: forint.uuid, timezone: 'UTC', offset: 0 })
      ).json();
      const slot = (schedule.days as { slots: Slot[] }[]).flatMap((day) => day.slots)[0]!;
      const booked = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [slot],
        email: 'jan@example.com',
        lang: 'en',
        name: 'Jan',
        place: 'zoom',
        meetingTopic: forint.uuid,
        timezone: 'UTC',
        gateway: 'stripe',
      });
      expect(booked.statusCode, booked.body).toBe(201);
      const payment = booked.json().payment as { uuid: string; amount: number };
      expect(payment.amount).toBe(1500);

      await reexpressStoredAmounts(t.ctx.db, hufWasWhole);

      expect(await topic(forint.uuid)).toMatchObject({ price: { amount: 150000, currency: 'HUF' }, priceVariants: [{ name: 'Long', price: { amount: 250000, currency: 'HUF' } }] });
      expect(await topic(zloty.uuid)).toMatchObject({ price: { amount: 15000, currency: 'PLN' } });
      const codes = (await call(t.app, acme.apiKey, 'GET', '/api/v1/discount-codes')).json();
      expect((codes.discountCodes ?? codes).find((code: { uuid: string }) => code.uuid === discount.uuid)).toMatchObject({ amountOff: { amount: 10000, currency: 'HUF' } });
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/payments/${payment.uuid}`)).json().payment).toMatchObject({ amount: 150000, currency: 'HUF', refundedAmount: 0 });
      // The booking page shows the price the host set: 1500 Ft, with ISO's two decimals.
      const page = await t.app.inject({ method: 'GET', url: `/book/${acme.owner.username}/${forint.uuid}`, headers: { accept: 'text/html' } });
      expect(page.body).toMatch(/HUF\s1,500\.00/);
    });

    it('changes nothing when an amount would not fit once re-expressed, naming it', async () => {
      const before = (await call(t.app, acme.apiKey, 'GET', '/api/v1/meeting-topics')).json();
      const huge = await createTopic({ price: { amount: 30_000_000, currency: 'HUF' } });
      let after: unknown;
      try {
        await expect(reexpressStoredAmounts(t.ctx.db, hufWasWhole)).rejects.toThrow(`meeting topic ${huge.uuid} price: 30000000 is too large`);
        after = (await call(t.app, acme.apiKey, 'GET', '/api/v1/meeting-topics')).json();
      } finally {
        // The database is shared by the other tests, whose re-expressing this topic would stop.
        await t.ctx.db.deleteFrom('meeting_topics').where('id', '=', huge.uuid).execute();
      }
      const prices = (list: { meetingTopics?: unknown[] } | unknown[]) =>
        ((Array.isArray(list) ? list : (list.meetingTopics ?? [])) as { uuid: string; price: unknown }[])
          .filter((item) => item.uuid !== huge.uuid)
          .map((item) => [item.uuid, item.price]);
      expect(prices(after as { meetingTopics?: unknown[] })).toEqual(prices(before));
    });

    it('runs as part of migrating: the data written before 0014 is re-expressed by the decimals this runtime’s ICU gave it', async () => {
      const forint = await createTopic({ price: { amount: 1500, currency: 'HUF' } });
      const yen = await createTopic({ price: { amount: 1500, currency: 'JPY' } });
      // Back to the schema before 0014, as the previous release left it, then forward again.
      await t.ctx.db.deleteFrom('meeting_topics').where('price_amount', '>', 10_000_000).execute();
      await down(t.ctx.db);
      await t.ctx.db
        .deleteFrom('kysely_migration' as never)
        .where('name' as never, '=', '0014-attempts-and-iso-amounts' as never)
        .execute();
      const priceBefore = Number((await t.ctx.db.selectFrom('meeting_topics').select('price_amount').where('id', '=', forint.uuid).executeTakeFirstOrThrow()).price_amount);
      expect((await migrateToLatest(t.ctx.db)).applied).toEqual(['0014-attempts-and-iso-amounts']);
      const icuDecimals = new Intl.NumberFormat('en', { style: 'currency', currency: 'HUF' }).resolvedOptions().maximumFractionDigits ?? 2;
      expect((await topic(forint.uuid)).price).toEqual({ amount: priceBefore * 10 ** (2 - icuDecimals), currency: 'HUF' });
      expect((await topic(yen.uuid)).price).toEqual({ amount: 1500, currency: 'JPY' });
    });
  });
}
