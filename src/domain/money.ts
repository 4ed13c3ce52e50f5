import { ISO_4217_MINOR_UNITS } from './iso-4217.js';

/**
 * Amounts in termin are integers in the currency's minor units, with ISO 4217's own
 * exponent from the pinned table in iso-4217.ts (never the runtime's ICU, which differs
 * between Node versions): `currencyExponent('PLN')` → 2, `currencyExponent('JPY')` → 0,
 * `currencyExponent('KWD')` → 3, `currencyExponent('HUF')` → 2.
 * Gateways that want a decimal string (PayPal, Tpay) get it from `formatMinorUnits`:
 * `formatMinorUnits(15000, 'PLN')` → "150.00", `formatMinorUnits(1500, 'JPY')` → "1500",
 * and `parseDecimalAmount('150.00', 'PLN')` → 15000 reads it back.
 */

/** Thrown for a malformed currency code or amount; adapters turn it into their own errors. */
export class MoneyFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MoneyFormatError';
  }
}

/** An active ISO 4217 code with a minor unit (any case): `PLN`, `eur` yes; `ZZZ`, `HRK` (withdrawn), `XAU` no. */
export function isIso4217Currency(currency: string): boolean {
  return Object.hasOwn(ISO_4217_MINOR_UNITS, currency.toUpperCase());
}

/** The number of decimal places of `currency` (ISO 4217 code, any case); refuses a code the list does not have. */
export function currencyExponent(currency: string): number {
  const code = currency.toUpperCase();
  if (!Object.hasOwn(ISO_4217_MINOR_UNITS, code)) throw new MoneyFormatError(`"${currency}" is not an ISO 4217 currency code`);
  return ISO_4217_MINOR_UNITS[code]!;
}

/** 15000 PLN → "150.00"; -5 PLN → "-0.05"; 1500 JPY → "1500"; 1234 KWD → "1.234". */
export function formatMinorUnits(amount: number, currency: string): string {
  return formatWithExponent(amount, currencyExponent(currency));
}

/** The decimal form of an integer amount of 10^-exponent units (for gateways with their own exponent). */
export function formatWithExponent(amount: number, exponent: number): string {
  if (!Number.isSafeInteger(amount)) throw new MoneyFormatError(`amount must be an integer number of minor units, got ${amount}`);
  const sign = amount < 0 ? '-' : '';
  const digits = String(Math.abs(amount));
  if (exponent === 0) return sign + digits;
  const padded = digits.padStart(exponent + 1, '0');
  return `${sign}${padded.slice(0, -exponent)}.${padded.slice(-exponent)}`;
}

/**
 * "150.00" PLN → 15000, "150" PLN → 15000, "150.5" PLN → 15050, "1500" JPY → 1500.
 * More decimals than the currency has (a fraction of a minor unit) is refused rather than
 * rounded: money is never changed silently. Trailing zeros beyond the exponent are accepted
 * ("1500.00" JPY → 1500), since some gateways always print two decimals.
 */
export function parseDecimalAmount(value: string, currency: string): number {
  return parseWithExponent(value, currencyExponent(currency));
}

export function parseWithExponent(value: string, exponent: number): number {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(value.trim());
  if (match === null) throw new MoneyFormatError(`"${value}" is not a decimal amount`);
  const [, sign = '', whole = '', rawFraction = ''] = match;
  const fraction = rawFraction.replace(/0+$/, '');
  if (fraction.length > exponent) throw new MoneyFormatError(`"${value}" has more than ${exponent} decimal places`);
  const minor = Number(whole + fraction.padEnd(exponent, '0'));
  if (!Number.isSafeInteger(minor)) throw new MoneyFormatError(`"${value}" is too large`);
  return sign === '-' && minor !== 0 ? -minor : minor;
}

/**
 * Re-expresses an amount for a gateway whose exponent for the currency differs from
 * termin's: `rescaleMinorUnits(5, 0, 2)` → 500 (5 ISK for Stripe's two-decimal ISK),
 * `rescaleMinorUnits(500, 2, 0)` → 5. Throws when the amount cannot be expressed exactly.
 */
export function rescaleMinorUnits(amount: number, fromExponent: number, toExponent: number): number {
  if (!Number.isSafeInteger(amount)) throw new MoneyFormatError(`amount must be an integer number of minor units, got ${amount}`);
  if (toExponent >= fromExponent) {
    const scaled = amount * 10 ** (toExponent - fromExponent);
    if (!Number.isSafeInteger(scaled)) throw new MoneyFormatError(`amount ${amount} is too large`);
    return scaled;
  }
  const divisor = 10 ** (fromExponent - toExponent);
  if (amount % divisor !== 0) throw new MoneyFormatError(`amount ${amount} cannot be expressed with ${toExponent} decimal places`);
  return amount / divisor;
}
