import { describe, expect, it } from 'vitest';
import { currencyExponent, formatMinorUnits, MoneyFormatError, parseDecimalAmount, rescaleMinorUnits } from './money.js';

describe('currencyExponent', () => {
  it.each([
    ['PLN', 2],
    ['eur', 2],
    ['JPY', 0],
    ['KRW', 0],
    ['KWD', 3],
    ['BHD', 3],
  ])('%s has %i decimals', (currency, exponent) => {
    expect(currencyExponent(currency)).toBe(exponent);
  });

  it.each(['', 'PL', 'PLNX', '12$'])('refuses %j', (currency) => {
    expect(() => currencyExponent(currency)).toThrow(MoneyFormatError);
  });
});

describe('formatMinorUnits and parseDecimalAmount', () => {
  it.each([
    [15_000, 'PLN', '150.00'],
    [5, 'PLN', '0.05'],
    [0, 'PLN', '0.00'],
    [-5, 'PLN', '-0.05'],
    [1_500, 'JPY', '1500'],
    [1_234, 'KWD', '1.234'],
    [9_007_199_254_740_991, 'PLN', '90071992547409.91'],
  ])('%i %s ⇄ %s', (amount, currency, text) => {
    expect(formatMinorUnits(amount, currency)).toBe(text);
    expect(parseDecimalAmount(text, currency)).toBe(amount);
  });

  it.each([
    ['150', 'PLN', 15_000],
    ['150.5', 'PLN', 15_050],
    ['1500.00', 'JPY', 1_500],
    [' 7.10 ', 'PLN', 710],
  ])('reads %j %s as %i', (text, currency, amount) => {
    expect(parseDecimalAmount(text, currency)).toBe(amount);
  });

  it.each([
    ['150.001', 'PLN'],
    ['1500.5', 'JPY'],
    ['1,50', 'PLN'],
    ['1e3', 'PLN'],
    ['', 'PLN'],
  ])('refuses %j %s instead of rounding', (text, currency) => {
    expect(() => parseDecimalAmount(text, currency)).toThrow(MoneyFormatError);
  });

  it('refuses a fractional amount', () => {
    expect(() => formatMinorUnits(1.5, 'PLN')).toThrow(MoneyFormatError);
  });
});

describe('rescaleMinorUnits', () => {
  it.each([
    [5, 0, 2, 500],
    [500, 2, 0, 5],
    [15_000, 2, 2, 15_000],
  ])('%i from exponent %i to %i is %i', (amount, from, to, expected) => {
    expect(rescaleMinorUnits(amount, from, to)).toBe(expected);
  });

  it('refuses what cannot be expressed exactly', () => {
    expect(() => rescaleMinorUnits(550, 2, 0)).toThrow(MoneyFormatError);
  });
});
