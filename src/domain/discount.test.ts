import { describe, expect, it } from 'vitest';
import { applyDiscount, discountRefusal, normalizeDiscountCode, validateDiscountCodeInput, type DiscountCode } from './discount.js';

const PLN = (amount: number) => ({ amount, currency: 'PLN' });
const code = (extra: Partial<DiscountCode>): DiscountCode => ({
  uuid: 'u',
  accountUuid: 'a',
  code: 'SPRING',
  percentOff: 20,
  amountOff: null,
  expiresAt: null,
  usageLimit: null,
  timesUsed: 0,
  createdAt: 0,
  ...extra,
});

describe('applyDiscount', () => {
  it.each([
    [PLN(15000), { percentOff: 20, amountOff: null }, 12000],
    [PLN(999), { percentOff: 15, amountOff: null }, 849], // 849.15 rounds to 849
    [PLN(15000), { percentOff: 100, amountOff: null }, 0],
    [PLN(15000), { percentOff: null, amountOff: PLN(5000) }, 10000],
    [PLN(3000), { percentOff: null, amountOff: PLN(5000) }, 0],
  ])('%j with %j → %i', (price, discount, expected) => {
    expect(applyDiscount(price, discount)).toEqual(PLN(expected));
  });
});

describe('discountRefusal', () => {
  const now = Date.parse('2027-03-01T00:00:00Z');
  it.each([
    [code({}), null],
    [code({ expiresAt: now }), 'has expired'],
    [code({ expiresAt: now + 1 }), null],
    [code({ usageLimit: 3, timesUsed: 3 }), 'has been used up'],
    [code({ usageLimit: 3, timesUsed: 2 }), null],
    [code({ percentOff: null, amountOff: { amount: 100, currency: 'EUR' } }), 'does not apply to prices in PLN'],
  ])('%j → %s', (discount, expected) => {
    expect(discountRefusal(discount, now, PLN(15000))).toBe(expected);
  });
});

describe('validateDiscountCodeInput', () => {
  const now = Date.parse('2027-03-01T00:00:00Z');
  it('accepts a percentage code and normalises case', () => {
    expect(validateDiscountCodeInput({ code: ' spring-25 ', percentOff: 25, expiresAt: '2027-04-01T00:00:00Z', usageLimit: 10 }, now)).toEqual([]);
    expect(normalizeDiscountCode(' spring-25 ')).toBe('SPRING-25');
  });
  it('names every problem', () => {
    const errors = validateDiscountCodeInput({ code: 'x', percentOff: 120, amountOff: { amount: 0, currency: 'zł' }, expiresAt: '2026-01-01T00:00:00Z', usageLimit: 0 }, now);
    expect(errors.map((e) => e.path)).toEqual(['/code', '/percentOff', '/percentOff', '/amountOff/amount', '/amountOff/currency', '/expiresAt', '/usageLimit']);
  });
});
