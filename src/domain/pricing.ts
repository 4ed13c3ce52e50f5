import { applyDiscount, type DiscountCode } from './discount.js';
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
