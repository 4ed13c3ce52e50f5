import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderedMessage } from '../../src/mail/message.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import type { FakeGateway } from '../fakes/common-gateway.js';
import { startFakeP24 } from '../fakes/p24-gateway.js';
import { startFakePaypal } from '../fakes/paypal-gateway.js';
import { startFakePayu } from '../fakes/payu-gateway.js';
import { startFakeStripe } from '../fakes/stripe-gateway.js';
import { startFakeTpay } from '../fakes/tpay-gateway.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, runJobsCapturingMail, type TestApp } from '../helpers.js';

/**
 * Currencies and amounts at the door: a price must be in an active ISO 4217 currency, and a
 * booking may use only a gateway that can take its currency and amount (Tpay: PLN only;
 * Stripe: three-decimal amounts ending in 0; PayPal: HUF, JPY, TWD in whole units; …), so
 * nobody is sent a payment e-mail that can never be paid while the slot is held. The booking
 * page offers only those gateways. No gateway is called: the rules are the adapters' own.
 */
type Slot = { start: string; username: string };

for (const dialect of DIALECTS) {
  describe(`currencies and amounts at the door [${dialect}]`, () => {
    const fakes: FakeGateway[] = [];
    let t: TestApp;
    let acme: CreatedAccount;
    let participants = 0;

    beforeAll(async () => {
      fakes.push(await startFakeStripe(), await startFakeP24(), await startFakePayu(), await startFakePaypal(), await startFakeTpay());
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
      acme = await createTestAccount(t.ctx, { timezone: 'UTC', places: ['zoom'] });
      const gateways = Object.fromEntries(fakes.map((fake) => [fake.code, { ...fake.credentials.settings, ...fake.credentials.secrets }]));
      expect((await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { gateways })).statusCode).toBe(200);
    }, 60_000);

    afterAll(async () => {
      await t?.close();
      await Promise.all(fakes.map((fake) => fake.close()));
    });

    const createTopic = (body: Record<string, unknown>) =>
      call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Consultation', durationMinutes: 30, places: ['zoom'], public: true, bookingWindowDays: 365, ...body });

    async function paidTopic(price: { amount: number; currency: string }, variants: { name: string; price: { amount: number; currency: string } }[] = []) {
      const response = await createTopic({ price, priceVariants: variants });
      expect(response.statusCode, response.body).toBe(201);
      return response.json() as { uuid: string; priceVariants: { uuid: string }[] };
    }

    async function firstSlot(topicUuid: string): Promise<Slot> {
      const body = (await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic: topicUuid, timezone: 'UTC', offset: 0 })).json();
      return (body.days as { slots: Slot[] }[]).flatMap((day) => day.slots)[0]!;
    }

    async function attempt(topicUuid: string, gateway: string, extra: Record<string, unknown> = {}) {
      participants += 1;
      const email = `participant${participants}@example.com`;
      const slot = await firstSlot(topicUuid);
      const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [slot],
        email,
        lang: 'en',
        name: `Participant ${participants}`,
        place: 'zoom',
        meetingTopic: topicUuid,
        timezone: 'UTC',
        gateway,
        ...extra,
      });
      return { response, email, slot };
    }

    async function expectGatewayRefused(topicUuid: string, gateway: string, message: string, extra: Record<string, unknown> = {}) {
      const { response, email, slot } = await attempt(topicUuid, gateway, extra);
      expect(expectProblem(response, 400, 'VALIDATION_FAILED').errors).toEqual([{ path: '/gateway', message }]);
      // Nothing was booked: the slot is still offered, and no payment e-mail goes out.
      expect((await firstSlot(topicUuid)).start).toBe(slot.start);
      const sent: RenderedMessage[] = [];
      await runJobsCapturingMail(t.ctx, sent);
      expect(sent.filter((message) => message.to.email === email)).toEqual([]);
    }

    async function expectBooked(topicUuid: string, gateway: string, extra: Record<string, unknown> = {}) {
      const { response } = await attempt(topicUuid, gateway, extra);
      expect(response.statusCode, response.body).toBe(201);
      return response.json().payment as { amount: number; currency: string; gateway: string };
    }

    it('refuses a price, a variant’s price or a discount in a currency ISO 4217 does not have (or no longer has)', async () => {
      const message = 'must be an active ISO 4217 currency code such as PLN or EUR';
      expect(expectProblem(await createTopic({ price: { amount: 15000, currency: 'ZZZ' } }), 400, 'VALIDATION_FAILED').errors).toEqual([{ path: '/price/currency', message }]);
      expect(expectProblem(await createTopic({ price: { amount: 15000, currency: 'HRK' } }), 400, 'VALIDATION_FAILED').errors).toEqual([{ path: '/price/currency', message }]);
      expect(expectProblem(await createTopic({ priceVariants: [{ name: 'Long', price: { amount: 20000, currency: 'XAU' } }] }), 400, 'VALIDATION_FAILED').errors).toContainEqual({
        path: '/priceVariants/0/price/currency',
        message,
      });
      const topic = await paidTopic({ amount: 15000, currency: 'PLN' });
      expect(
        expectProblem(await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${topic.uuid}`, { price: { amount: 15000, currency: 'ZZZ' } }), 400, 'VALIDATION_FAILED')
          .errors,
      ).toEqual([{ path: '/price/currency', message }]);
      expect(
        expectProblem(await call(t.app, acme.apiKey, 'POST', '/api/v1/discount-codes', { code: 'ZED-OFF', amountOff: { amount: 500, currency: 'ZZZ' } }), 400, 'VALIDATION_FAILED')
          .errors,
      ).toEqual([{ path: '/amountOff/currency', message: 'must be an active ISO 4217 currency code such as PLN' }]);
      // Active codes pass, with any exponent.
      for (const currency of ['EUR', 'HUF', 'JPY', 'KWD', 'CLF']) expect((await createTopic({ price: { amount: 15000, currency } })).statusCode).toBe(201);
    });

    it('refuses at booking a gateway that cannot take the currency, naming the account’s gateways that can; another one books', async () => {
      const euro = await paidTopic({ amount: 15000, currency: 'EUR' });
      await expectGatewayRefused(euro.uuid, 'tpay', 'cannot take 150.00 EUR: Tpay takes PLN only, not EUR; use one of: stripe, p24, payu, paypal');
      const usd = await paidTopic({ amount: 15000, currency: 'USD' });
      await expectGatewayRefused(usd.uuid, 'p24', 'cannot take 150.00 USD: Przelewy24 takes PLN, EUR, GBP and CZK only, not USD; use one of: stripe, payu, paypal');
      const yen = await paidTopic({ amount: 1500, currency: 'JPY' });
      await expectGatewayRefused(yen.uuid, 'payu', 'cannot take 1500 JPY: PayU does not take payments in JPY; use one of: stripe, paypal');
      expect(await expectBooked(euro.uuid, 'p24')).toMatchObject({ amount: 15000, currency: 'EUR', gateway: 'p24' });
    });

    it('refuses an amount the chosen gateway cannot express, the discounted total included', async () => {
      const dinar = await paidTopic({ amount: 5125, currency: 'KWD' });
      await expectGatewayRefused(dinar.uuid, 'stripe', "cannot take 5.125 KWD: Stripe takes KWD amounts whose third decimal is 0; none of the account's gateways can take it");
      const forint = await paidTopic({ amount: 150050, currency: 'HUF' });
      await expectGatewayRefused(forint.uuid, 'paypal', 'cannot take 1500.50 HUF: PayPal takes HUF in whole units only (no decimals); use one of: stripe, payu');
      const wholeForint = await paidTopic({ amount: 150000, currency: 'HUF' });
      expect(await expectBooked(wholeForint.uuid, 'paypal')).toMatchObject({ amount: 150000, currency: 'HUF' });
      // 7 % off 1500.00 HUF leaves 1395.00, whole; 1 % off 999.00 HUF leaves 989.01, not.
      expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/discount-codes', { code: 'ONE-PERCENT', percentOff: 1 })).statusCode).toBe(201);
      const odd = await paidTopic({ amount: 99900, currency: 'HUF' });
      await expectGatewayRefused(odd.uuid, 'paypal', 'cannot take 989.01 HUF: PayPal takes HUF in whole units only (no decimals); use one of: stripe, payu', {
        discount: 'ONE-PERCENT',
      });
    });

    it('offers on the booking page only the gateways that can take the topic’s price and every variant’s', async () => {
      const offered = async (topicUuid: string) => {
        const page = await t.app.inject({ method: 'GET', url: `/book/${acme.owner.username}/${topicUuid}`, headers: { accept: 'text/html' } });
        expect(page.statusCode).toBe(200);
        return [...page.body.matchAll(/name="gateway" value="(\w+)"/g)].map((match) => match[1]);
      };
      expect(await offered((await paidTopic({ amount: 15000, currency: 'PLN' })).uuid)).toEqual(['stripe', 'p24', 'payu', 'paypal', 'tpay']);
      expect(await offered((await paidTopic({ amount: 15000, currency: 'EUR' })).uuid)).toEqual(['stripe', 'p24', 'payu', 'paypal']);
      const forint = await paidTopic({ amount: 150000, currency: 'HUF' }, [{ name: 'Long', price: { amount: 225050, currency: 'HUF' } }]);
      expect(await offered(forint.uuid)).toEqual(['stripe', 'payu']);
    });
  });
}
