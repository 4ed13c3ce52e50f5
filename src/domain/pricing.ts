import { applyDiscount, type DiscountCode } from './discount.js';
import { ValidationError } from './errors.js';
import { basePrice } from './meeting.js';
import type { MeetingTopic, Money } from './meeting-topic.js';

/**
 * What a booking costs: the chosen price variant's price (else the topic's) for each date,
 * less the discount. Null for a free topic; an amount of 0 when a discount covers it all
 * (nothing to pay: the meetings are confirmed at once).
 *
 * `priceBooking({ price: { amount: 15000, currency: 'PLN' }, priceVariants: [] }, null, 2, { percentOff: 10, amountOff: null })`
 * → `{ amount: 27000, currency: 'PLN' }`.
 */
export function priceBooking(
  topic: Pick<MeetingTopic, 'price' | 'priceVariants'>,
  priceVariantUuid: string | null,
  dateCount: number,
  discount: Pick<DiscountCode, 'percentOff' | 'amountOff'> | null,
): Money | null {
  const price = basePrice(topic, priceVariantUuid);
  if (price === null) return null;
  const total = { amount: price.amount * dateCount, currency: price.currency };
  return discount ? applyDiscount(total, discount) : total;
}

/**
 * The price variant a booking of the topic's (chosen) length pays: the one named, else the
 * variant for that length, else none (the topic's own price). The booking and its quote share
 * it so that the page's total is what is charged. A named variant of another length is a 400
 * at /priceVariant; whether a named one exists at all is left to the caller (their answers differ).
 *
 * `priceVariantForLength({ durationMinutes: 60, priceVariants: [{ uuid: 'v', durationMinutes: 60, … }] }, undefined)` → `'v'`.
 */
export function priceVariantForLength(topic: Pick<MeetingTopic, 'durationMinutes' | 'priceVariants'>, named: string | undefined): string | null {
  const uuid = named ?? topic.priceVariants.find((variant) => variant.durationMinutes === topic.durationMinutes)?.uuid ?? null;
  const variant = uuid === null ? undefined : topic.priceVariants.find((candidate) => candidate.uuid === uuid);
  if (variant?.durationMinutes !== undefined && variant.durationMinutes !== topic.durationMinutes) {
    throw new ValidationError([{ path: '/priceVariant', message: `is the price of ${variant.durationMinutes} minutes, not of the ${topic.durationMinutes} chosen` }]);
  }
  return uuid;
}
