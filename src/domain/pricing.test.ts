import { describe, expect, it } from 'vitest';
import { priceBooking } from './pricing.js';

const topic = {
  price: { amount: 15_000, currency: 'PLN' },
  priceVariants: [
    { uuid: 'v-90', name: '90 min', price: { amount: 40_000, currency: 'PLN' } },
    { uuid: 'v-15', name: '15 min', price: { amount: 5_000, currency: 'PLN' } },
  ],
};

describe('priceBooking', () => {
  it.each([
    ['the topic price for one date', null, 1, null, { amount: 15_000, currency: 'PLN' }],
    ['the topic price times the dates', null, 3, null, { amount: 45_000, currency: 'PLN' }],
    ['the chosen variant, not the topic price', 'v-90', 2, null, { amount: 80_000, currency: 'PLN' }],
    ['a percentage off the whole booking', 'v-90', 2, { percentOff: 25, amountOff: null }, { amount: 60_000, currency: 'PLN' }],
    ['a fixed amount off the whole booking', null, 2, { percentOff: null, amountOff: { amount: 10_000, currency: 'PLN' } }, { amount: 20_000, currency: 'PLN' }],
    ['never below zero', 'v-15', 1, { percentOff: null, amountOff: { amount: 10_000, currency: 'PLN' } }, { amount: 0, currency: 'PLN' }],
  ] as const)('%s', (_name, variant, dates, discount, expected) => {
    expect(priceBooking(topic, variant, dates, discount)).toEqual(expected);
  });

  it('is null for a free topic', () => {
    expect(priceBooking({ price: null, priceVariants: [] }, null, 2, { percentOff: 10, amountOff: null })).toBeNull();
  });

  it('a topic with only variants charges the first when none is chosen', () => {
    expect(priceBooking({ price: null, priceVariants: topic.priceVariants }, null, 1, null)).toEqual({ amount: 40_000, currency: 'PLN' });
  });
});
