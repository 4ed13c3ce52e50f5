import { afterEach, describe, expect, it, vi } from 'vitest';
import { ISO_4217_MINOR_UNITS } from './iso-4217.js';
import { currencyExponent, formatMinorUnits, isIso4217Currency, MoneyFormatError, parseDecimalAmount, rescaleMinorUnits } from './money.js';

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

  it.each(['', 'PL', 'PLNX', '12$', 'ZZZ', 'XXX', 'XAU', 'HRK', 'ANG'])('refuses %j', (currency) => {
    expect(() => currencyExponent(currency)).toThrow(MoneyFormatError);
    expect(isIso4217Currency(currency)).toBe(false);
  });
});

/**
 * The exponents are ISO 4217's own (List One, the active codes with minor units), pinned in
 * iso-4217.ts. Read from the runtime's ICU they change with Node upgrades: ICU 78 (Node 20.20)
 * already reads HUF, IDR, COP and PKR as 0 and IQD as 0 where ISO says 2 and 3, which
 * would send a forint price to a gateway 100 times too small.
 */
describe('the ISO 4217 table', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it.each([
    ['PLN', 2],
    ['EUR', 2],
    ['USD', 2],
    ['GBP', 2],
    ['CHF', 2],
    ['CZK', 2],
    ['SEK', 2],
    ['NOK', 2],
    ['DKK', 2],
    ['HUF', 2],
    ['RON', 2],
    ['UAH', 2],
    ['TRY', 2],
    ['CAD', 2],
    ['AUD', 2],
    ['NZD', 2],
    ['MXN', 2],
    ['BRL', 2],
    ['INR', 2],
    ['IDR', 2],
    ['PKR', 2],
    ['COP', 2],
    ['TWD', 2],
    ['CNY', 2],
    ['HKD', 2],
    ['SGD', 2],
    ['ZAR', 2],
    ['MGA', 2],
    ['JPY', 0],
    ['KRW', 0],
    ['ISK', 0],
    ['CLP', 0],
    ['VND', 0],
    ['UGX', 0],
    ['XAF', 0],
    ['XOF', 0],
    ['XPF', 0],
    ['PYG', 0],
    ['KWD', 3],
    ['BHD', 3],
    ['JOD', 3],
    ['OMR', 3],
    ['TND', 3],
    ['LYD', 3],
    ['IQD', 3],
    ['CLF', 4],
    ['UYW', 4],
  ])('%s has %i decimals', (currency, exponent) => {
    expect(ISO_4217_MINOR_UNITS[currency]).toBe(exponent);
    expect(currencyExponent(currency)).toBe(exponent);
    expect(currencyExponent(currency.toLowerCase())).toBe(exponent);
  });

  it('holds only three capital letters with an exponent from 0 to 4, and the active codes it should', () => {
    const entries = Object.entries(ISO_4217_MINOR_UNITS);
    expect(entries.length).toBeGreaterThan(150);
    for (const [code, exponent] of entries) {
      expect(code).toMatch(/^[A-Z]{3}$/);
      expect([0, 1, 2, 3, 4]).toContain(exponent);
    }
    // Replacements of withdrawn codes are in; the withdrawn ones are not.
    expect(Object.keys(ISO_4217_MINOR_UNITS)).toEqual(expect.arrayContaining(['SLE', 'VES', 'VED', 'MRU', 'STN', 'ZWG', 'XCG', 'BYN']));
    for (const withdrawn of ['HRK', 'BGN', 'SLL', 'MRO', 'STD', 'BYR', 'VEF', 'ZWL', 'LTL', 'ANG', 'CUC']) expect(ISO_4217_MINOR_UNITS[withdrawn]).toBeUndefined();
  });

  it('does not ask the runtime: the exponents stay when Intl is gone', () => {
    const refuse = function NumberFormat(): never {
      throw new Error('Intl.NumberFormat must not decide exponents');
    };
    vi.stubGlobal('Intl', { ...Intl, NumberFormat: refuse });
    expect(currencyExponent('HUF')).toBe(2);
    expect(currencyExponent('JPY')).toBe(0);
    expect(currencyExponent('KWD')).toBe(3);
    expect(formatMinorUnits(123_456, 'HUF')).toBe('1234.56');
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
