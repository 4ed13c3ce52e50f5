import type { DiscountCode } from '../../domain/discount.js';
import type { DbOrTrx, DiscountCodeRow } from '../database.js';

function discountRowToDiscount(row: DiscountCodeRow): DiscountCode {
  return {
    uuid: row.id,
    accountUuid: row.account_id,
    code: row.code,
    percentOff: row.percent_off,
    amountOff: row.amount_off !== null && row.amount_currency !== null ? { amount: row.amount_off, currency: row.amount_currency } : null,
    expiresAt: row.expires_at,
    usageLimit: row.usage_limit,
    timesUsed: row.times_used,
    createdAt: row.created_at,
  };
}

export async function insertDiscountCode(db: DbOrTrx, discount: DiscountCode): Promise<void> {
  await db
    .insertInto('discount_codes')
    .values({
      id: discount.uuid,
      account_id: discount.accountUuid,
      code: discount.code,
      percent_off: discount.percentOff,
      amount_off: discount.amountOff?.amount ?? null,
      amount_currency: discount.amountOff?.currency ?? null,
      expires_at: discount.expiresAt,
      usage_limit: discount.usageLimit,
      times_used: 0,
      created_at: discount.createdAt,
    })
    .execute();
}

export async function selectDiscountCodes(db: DbOrTrx, accountUuid: string): Promise<DiscountCode[]> {
  const rows = await db.selectFrom('discount_codes').selectAll().where('account_id', '=', accountUuid).orderBy('code').execute();
  return rows.map(discountRowToDiscount);
}

export async function findDiscountCode(db: DbOrTrx, accountUuid: string, uuid: string): Promise<DiscountCode | undefined> {
  const row = await db.selectFrom('discount_codes').selectAll().where('account_id', '=', accountUuid).where('id', '=', uuid).executeTakeFirst();
  return row && discountRowToDiscount(row);
}

/** `code` already normalised (upper-case). */
export async function findDiscountByCode(db: DbOrTrx, accountUuid: string, code: string): Promise<DiscountCode | undefined> {
  const row = await db.selectFrom('discount_codes').selectAll().where('account_id', '=', accountUuid).where('code', '=', code).executeTakeFirst();
  return row && discountRowToDiscount(row);
}

export async function deleteDiscountCodeRow(db: DbOrTrx, accountUuid: string, uuid: string): Promise<boolean> {
  const result = await db.deleteFrom('discount_codes').where('account_id', '=', accountUuid).where('id', '=', uuid).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * Counts one use, unless the limit is reached: a conditional update, so concurrent bookings
 * can never use a code more often than its limit. False when it was used up.
 */
export async function useDiscountCode(db: DbOrTrx, uuid: string): Promise<boolean> {
  const result = await db
    .updateTable('discount_codes')
    .set((eb) => ({ times_used: eb('times_used', '+', 1) }))
    .where('id', '=', uuid)
    .where((eb) => eb.or([eb('usage_limit', 'is', null), eb('times_used', '<', eb.ref('usage_limit'))]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
