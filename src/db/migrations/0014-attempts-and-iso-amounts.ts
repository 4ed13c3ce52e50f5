import type { Kysely } from 'kysely';
import { ISO_4217_MINOR_UNITS } from '../../domain/iso-4217.js';

/**
 * Two changes that ship together.
 *
 * 1. A payment remembers which try at creating its gateway transaction is current
 *    (`creation_attempt`, 0 first) and when that try began (`creation_attempt_at`, epoch ms):
 *    the adapter derives the request from them, so a try repeated after a lost answer is the
 *    same request (Stripe keeps a key's first answer and refuses the key with other
 *    parameters), and a new try gets a new idempotency key.
 *
 * 2. Amounts are in ISO 4217's minor units from now on (domain/iso-4217.ts); until now the
 *    runtime's ICU decided, and ICU 78 (Node 20.20) gives 0 decimals to HUF, IDR, COP, PKR, …
 *    and IQD where ISO gives 2 and 3. An amount stored as 1500 HUF meant 1500 Ft then (that is
 *    what the pages showed and the gateways were asked for) and would mean 15.00 Ft now, so
 *    the amounts stored in such a currency are re-expressed in ISO's units (1500 → 150000):
 *    the money stays what it was. "Then" is the ICU of the Node that runs this migration, so
 *    upgrade termin on the Node version its previous release ran on. Currencies ISO 4217 does
 *    not list are left as they are (no gateway takes them any more). Event and webhook
 *    payloads already recorded are history and keep their numbers.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // Planned (and so checked) before anything changes: an amount that cannot be re-expressed fails the migration untouched.
  const updates = await planIsoAmounts(db, runtimeExponent);
  await db.schema
    .alterTable('payments')
    .addColumn('creation_attempt', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('payments').addColumn('creation_attempt_at', 'bigint').execute();
  await applyUpdates(db, updates);
}

/** Drops the attempt columns; amounts stay in ISO's units (the code before this migration would read HUF & co. 100× off). */
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payments').dropColumn('creation_attempt_at').execute();
  await db.schema.alterTable('payments').dropColumn('creation_attempt').execute();
}

/** The decimals termin used for a code before this migration: the runtime's ICU, asked as money.ts asked it. */
function runtimeExponent(code: string): number | null {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return null;
  }
}

const INTEGER_COLUMN_MAX = 2_147_483_647;

type Update = { table: string; id: string; set: Record<string, number | string | null> };

/**
 * Re-expresses every stored amount whose currency's exponent was `exponentBefore(code)` in
 * ISO 4217's exponent (`reexpressStoredAmounts(db, (code) => (code === 'HUF' ? 0 : null))`
 * turns a 1500 HUF price into 150000): topic prices and variants, discount amounts, payments
 * (amount and refunded amount) and their refunds. Exact or not at all: an amount that would
 * not fit its column, or could only be divided with a remainder, throws naming the row, and
 * nothing is changed.
 */
export async function reexpressStoredAmounts(db: Kysely<any>, exponentBefore: (code: string) => number | null): Promise<void> {
  await applyUpdates(db, await planIsoAmounts(db, exponentBefore));
}

async function applyUpdates(db: Kysely<any>, updates: Update[]): Promise<void> {
  if (updates.length === 0) return;
  const apply = async (trx: Kysely<any>) => {
    for (const update of updates) await trx.updateTable(update.table).set(update.set).where('id', '=', update.id).execute();
  };
  // PostgreSQL runs a migration in a transaction already; SQLite's migrations run outside one.
  if (db.isTransaction) await apply(db);
  else await db.transaction().execute(apply);
}

async function planIsoAmounts(db: Kysely<any>, exponentBefore: (code: string) => number | null): Promise<Update[]> {
  const factors = new Map<string, { multiply: number; divide: number } | null>();
  const factorOf = (currency: string | null) => {
    if (currency === null) return null;
    if (!factors.has(currency)) {
      const iso = Object.hasOwn(ISO_4217_MINOR_UNITS, currency) ? ISO_4217_MINOR_UNITS[currency]! : null;
      const before = iso === null ? null : exponentBefore(currency);
      factors.set(currency, iso === null || before === null || before === iso ? null : { multiply: 10 ** Math.max(0, iso - before), divide: 10 ** Math.max(0, before - iso) });
    }
    return factors.get(currency) ?? null;
  };
  const rescale = (amount: unknown, factor: { multiply: number; divide: number }, where: string): number => {
    const value = Number(amount);
    if (value % factor.divide !== 0) throw new Error(`${where}: ${value} cannot be re-expressed in ISO 4217 minor units without rounding`);
    const result = (value / factor.divide) * factor.multiply;
    if (!Number.isSafeInteger(result) || Math.abs(result) > INTEGER_COLUMN_MAX)
      throw new Error(`${where}: ${value} is too large once re-expressed in ISO 4217 minor units (${result})`);
    return result;
  };
  const updates: Update[] = [];

  const topics = await db.selectFrom('meeting_topics').select(['id', 'price_amount', 'price_currency', 'price_variants']).execute();
  for (const topic of topics) {
    const variants = JSON.parse(String(topic.price_variants)) as { price: { amount: number; currency: string } }[];
    let changed = false;
    let priceAmount = topic.price_amount === null ? null : Number(topic.price_amount);
    const priceFactor = factorOf(topic.price_currency as string | null);
    if (priceAmount !== null && priceFactor !== null) {
      priceAmount = rescale(priceAmount, priceFactor, `meeting topic ${topic.id} price`);
      changed = true;
    }
    for (const variant of variants) {
      const factor = factorOf(variant.price.currency);
      if (factor === null) continue;
      variant.price.amount = rescale(variant.price.amount, factor, `meeting topic ${topic.id} variant price`);
      changed = true;
    }
    if (changed) updates.push({ table: 'meeting_topics', id: topic.id, set: { price_amount: priceAmount, price_variants: JSON.stringify(variants) } });
  }

  const discounts = await db.selectFrom('discount_codes').select(['id', 'amount_off', 'amount_currency']).where('amount_off', 'is not', null).execute();
  for (const discount of discounts) {
    const factor = factorOf(discount.amount_currency as string | null);
    if (factor !== null) updates.push({ table: 'discount_codes', id: discount.id, set: { amount_off: rescale(discount.amount_off, factor, `discount code ${discount.id}`) } });
  }

  const payments = await db.selectFrom('payments').select(['id', 'amount', 'refunded_amount', 'currency']).execute();
  for (const payment of payments) {
    const factor = factorOf(payment.currency as string);
    if (factor === null) continue;
    updates.push({
      table: 'payments',
      id: payment.id,
      set: { amount: rescale(payment.amount, factor, `payment ${payment.id}`), refunded_amount: rescale(payment.refunded_amount, factor, `payment ${payment.id} refunded amount`) },
    });
    const refunds = await db.selectFrom('payment_refunds').select(['id', 'amount']).where('payment_id', '=', payment.id).execute();
    for (const refund of refunds) updates.push({ table: 'payment_refunds', id: refund.id, set: { amount: rescale(refund.amount, factor, `refund ${refund.id}`) } });
  }
  return updates;
}
