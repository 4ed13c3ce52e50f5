import type { FieldError } from './errors.js';
import type { Money } from './meeting-topic.js';
import { isIso4217Currency } from './money.js';

/** A code a participant types when booking a paid topic: percent off, or a fixed amount off. */
export interface DiscountCode {
  uuid: string;
  accountUuid: string;
  code: string;
  percentOff: number | null;
  amountOff: Money | null;
  expiresAt: number | null;
  usageLimit: number | null;
  timesUsed: number;
  createdAt: number;
}

export interface DiscountCodeInput {
  code: string;
  percentOff?: number | undefined;
  amountOff?: Money | undefined;
  expiresAt?: string | undefined;
  usageLimit?: number | undefined;
}

/** Codes are compared without regard to case or surrounding spaces: `' spring25 '` is `SPRING25`. */
export function normalizeDiscountCode(code: string): string {
  return code.trim().toUpperCase();
}

export function validateDiscountCodeInput(input: DiscountCodeInput, now: number): FieldError[] {
  const errors: FieldError[] = [];
  if (!/^[A-Z0-9][A-Z0-9_-]{2,39}$/.test(normalizeDiscountCode(input.code))) {
    errors.push({ path: '/code', message: 'must be 3 to 40 letters, digits, - or _' });
  }
  if ((input.percentOff === undefined) === (input.amountOff === undefined)) {
    errors.push({ path: '/percentOff', message: 'give exactly one of percentOff and amountOff' });
  }
  if (input.percentOff !== undefined && (!Number.isInteger(input.percentOff) || input.percentOff < 1 || input.percentOff > 100)) {
    errors.push({ path: '/percentOff', message: 'must be an integer from 1 to 100' });
  }
  if (input.amountOff !== undefined) {
    if (!Number.isInteger(input.amountOff.amount) || input.amountOff.amount < 1) errors.push({ path: '/amountOff/amount', message: 'must be a positive integer in minor units' });
    if (!/^[A-Z]{3}$/.test(input.amountOff.currency) || !isIso4217Currency(input.amountOff.currency)) {
      errors.push({ path: '/amountOff/currency', message: 'must be an active ISO 4217 currency code such as PLN' });
    }
  }
  if (input.expiresAt !== undefined) {
    const expiresAt = Date.parse(input.expiresAt);
    if (Number.isNaN(expiresAt)) errors.push({ path: '/expiresAt', message: 'must be a date-time' });
    else if (expiresAt <= now) errors.push({ path: '/expiresAt', message: 'must be in the future' });
  }
  if (input.usageLimit !== undefined && (!Number.isInteger(input.usageLimit) || input.usageLimit < 1)) {
    errors.push({ path: '/usageLimit', message: 'must be a positive integer' });
  }
  return errors;
}

/**
 * Why a code cannot be used now, or null when it can:
 * `discountRefusal({ …, expiresAt: yesterday }, now, price)` → `'has expired'`.
 */
export function discountRefusal(code: DiscountCode, now: number, price: Money): string | null {
  if (code.expiresAt !== null && code.expiresAt <= now) return 'has expired';
  if (code.usageLimit !== null && code.timesUsed >= code.usageLimit) return 'has been used up';
  if (code.amountOff !== null && code.amountOff.currency !== price.currency) return `does not apply to prices in ${price.currency}`;
  return null;
}

/**
 * The price after the code: percent off rounds to the nearest minor unit, a fixed amount
 * never takes the price below zero. `applyDiscount({ amount: 15000, currency: 'PLN' }, 20 % off)` → 12000.
 */
export function applyDiscount(price: Money, code: Pick<DiscountCode, 'percentOff' | 'amountOff'>): Money {
  if (code.percentOff !== null) return { amount: Math.round((price.amount * (100 - code.percentOff)) / 100), currency: price.currency };
  return { amount: Math.max(0, price.amount - (code.amountOff?.amount ?? 0)), currency: price.currency };
}
