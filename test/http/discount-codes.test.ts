import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApiKeyForUser } from '../../src/scheduling/account/api-keys.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

type Slot = { start: string; username: string };

for (const dialect of DIALECTS) {
  describe(`discount codes [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let paid: { uuid: string };
    let slots: Slot[];
    let next = 0;

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
    });
    // An account, codes and slots of its own for every test: codes are listed and counted per
    // account, and one test moves the clock past a code's expiry.
    beforeEach(async () => {
      t.clock.set('2027-01-04T06:00:00.000Z');
      next = 0;
      acme = await createTestAccount(t.ctx, { timezone: 'UTC', places: ['zoom'] });
      // Bookings may use only a gateway the account enabled and configured.
      await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { gateways: { stripe: { secretKey: 'sk_test_x', webhookSecret: 'whsec_x' } } });
      paid = (
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Paid', durationMinutes: 30, places: ['zoom'], price: { amount: 15000, currency: 'PLN' } })
      ).json();
      const body = (await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic: paid.uuid, timezone: 'UTC', offset: 0 })).json();
      slots = body.days.flatMap((d: { slots: Slot[] }) => d.slots);
    });
    afterAll(async () => t.close());

    const createCode = (body: Record<string, unknown>, key = acme.apiKey) => call(t.app, key, 'POST', '/api/v1/discount-codes', body);
    const bookWith = (discount: string | undefined) =>
      call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [slots[next++]],
        email: 'p@example.com',
        lang: 'en',
        name: 'P',
        place: 'zoom',
        meetingTopic: paid.uuid,
        timezone: 'UTC',
        gateway: 'stripe',
        ...(discount === undefined ? {} : { discount }),
      });

    it('is managed by admins: create, list, delete', async () => {
      const created = await createCode({ code: 'spring-20', percentOff: 20, expiresAt: '2027-02-01T00:00:00Z', usageLimit: 100 });
      expect(created.statusCode).toBe(201);
      expect(created.json()).toMatchObject({ code: 'SPRING-20', percentOff: 20, amountOff: null, expiresAt: '2027-02-01T00:00:00.000Z', usageLimit: 100, timesUsed: 0 });
      expect(expectProblem(await createCode({ code: 'SPRING-20', percentOff: 10 }), 400, 'VALIDATION_FAILED').errors).toEqual([{ path: '/code', message: 'already exists' }]);
      expectProblem(await createCode({ code: 'BOTH', percentOff: 10, amountOff: { amount: 100, currency: 'PLN' } }), 400, 'VALIDATION_FAILED');
      const temp = (await createCode({ code: 'TEMP', amountOff: { amount: 1000, currency: 'PLN' } })).json();
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/discount-codes')).json().discountCodes.map((c: { code: string }) => c.code)).toEqual(['SPRING-20', 'TEMP']);
      expect((await call(t.app, acme.apiKey, 'DELETE', `/api/v1/discount-codes/${temp.uuid}`)).statusCode).toBe(204);
      expectProblem(await bookWith('TEMP'), 422, 'DISCOUNT_INVALID');

      const member = (await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'M', lastName: 'M', email: 'm@acme.test' })).json();
      const memberKey = (await createApiKeyForUser(t.ctx, member.uuid)).apiKey;
      expectProblem(await createCode({ code: 'MINE', percentOff: 50 }, memberKey), 403, 'FORBIDDEN');
    });

    it('is quoted for the booking page before booking: the same total the booking pays, the same refusals, nothing used up', async () => {
      expect((await createCode({ code: 'spring-20', percentOff: 20, usageLimit: 1 })).statusCode).toBe(201);
      expect((await createCode({ code: 'EURO', amountOff: { amount: 500, currency: 'EUR' } })).statusCode).toBe(201);
      // The booking page asks without a key; only public topics are quoted.
      const quote = (body: Record<string, unknown>) => call(t.app, null, 'POST', '/api/v1/public/quote', { meetingTopic: paid.uuid, ...body });
      expectProblem(await quote({}), 404, 'NOT_FOUND');
      await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${paid.uuid}`, { public: true });

      const plain = await quote({ dates: 2 });
      expect(plain.statusCode).toBe(200);
      expect(plain.json()).toEqual({ price: { amount: 30000, currency: 'PLN' }, total: { amount: 30000, currency: 'PLN' }, discount: null });
      const spring = await quote({ discount: ' spring-20 ' });
      expect(spring.json()).toEqual({
        price: { amount: 15000, currency: 'PLN' },
        total: { amount: 12000, currency: 'PLN' },
        discount: { code: 'SPRING-20', percentOff: 20, amountOff: null },
      });
      expect(expectProblem(await quote({ discount: 'NOPE' }), 422, 'DISCOUNT_INVALID').detail).toContain('is not a known discount code');
      expect(expectProblem(await quote({ discount: 'EURO' }), 422, 'DISCOUNT_INVALID').detail).toContain('does not apply to prices in PLN');
      expectProblem(await quote({ priceVariant: '0193b0a4-6f1e-7c3a-9d2b-5e8f1a2b3c4d' }), 400, 'VALIDATION_FAILED');

      // Quoting used nothing up: the one use is still there, and the booking pays what was quoted.
      const booked = await bookWith('SPRING-20');
      expect(booked.json().payment).toMatchObject({ amount: spring.json().total.amount, currency: 'PLN' });
      expect(expectProblem(await quote({ discount: 'spring-20' }), 422, 'DISCOUNT_INVALID').detail).toContain('has been used up');
    });

    it('lowers the amount to pay, matching the code without regard to case', async () => {
      expect((await createCode({ code: 'spring-20', percentOff: 20 })).statusCode).toBe(201);
      const response = await bookWith(' spring-20 ');
      expect(response.statusCode).toBe(201);
      expect(response.json().payment).toMatchObject({ amount: 12000, currency: 'PLN', discountCode: 'SPRING-20', status: 'pending' });
      const codes = (await call(t.app, acme.apiKey, 'GET', '/api/v1/discount-codes')).json().discountCodes;
      expect(codes.find((c: { code: string }) => c.code === 'SPRING-20').timesUsed).toBe(1);
    });

    it('refuses unknown, expired, used-up and wrong-currency codes with 422, booking nothing', async () => {
      await createCode({ code: 'ONCE', percentOff: 10, usageLimit: 1 });
      await createCode({ code: 'SOON', percentOff: 10, expiresAt: '2027-01-04T07:00:00Z' });
      await createCode({ code: 'EURO', amountOff: { amount: 500, currency: 'EUR' } });
      expect((await bookWith('ONCE')).statusCode).toBe(201);
      const cases: [string, string][] = [
        ['NOPE', 'is not a known discount code'],
        ['ONCE', 'has been used up'],
        ['EURO', 'does not apply to prices in PLN'],
      ];
      for (const [code, message] of cases) {
        const problem = expectProblem(await bookWith(code), 422, 'DISCOUNT_INVALID');
        expect(problem.errors).toEqual([{ path: '/discount', message }]);
      }
      t.clock.set('2027-01-04T07:00:00.000Z');
      expect(expectProblem(await bookWith('SOON'), 422, 'DISCOUNT_INVALID').errors![0]!.message).toBe('has expired');
    });

    it('confirms at once when the discount covers the whole price', async () => {
      await createCode({ code: 'FREE', percentOff: 100 });
      const response = await bookWith('FREE');
      expect(response.statusCode).toBe(201);
      expect(response.json().payment).toBeNull();
      expect(response.json().meetings[0].status).toBe('confirmed');
    });

    it('never lets concurrent bookings use a code past its limit', async () => {
      await createCode({ code: 'RACE', percentOff: 50, usageLimit: 2 });
      const responses = await Promise.all(Array.from({ length: 8 }, () => bookWith('RACE')));
      expect(responses.filter((r) => r.statusCode === 201)).toHaveLength(2);
      expect(responses.filter((r) => r.statusCode === 422)).toHaveLength(6);
      const codes = (await call(t.app, acme.apiKey, 'GET', '/api/v1/discount-codes')).json().discountCodes;
      expect(codes.find((c: { code: string }) => c.code === 'RACE').timesUsed).toBe(2);
    });
  });
}
