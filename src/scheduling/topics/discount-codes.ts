import { normalizeDiscountCode, validateDiscountCodeInput, type DiscountCode, type DiscountCodeInput } from '../../domain/discount.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../domain/errors.js';
import { deleteDiscountCodeRow, findDiscountByCode, findDiscountCode, insertDiscountCode, selectDiscountCodes } from '../../db/repositories/discount-codes.js';
import { isAdminOfAnyTeam } from '../../db/repositories/teams.js';
import { inTransaction } from '../../db/transaction.js';
import { newId } from '../../ids.js';
import type { Principal, UseCaseContext } from '../context.js';
import { actorOf, recordAuditEvent } from '../audit/record-audit.js';

/** Discount codes are the account's; an admin of any of its teams manages them. */
async function requireAccountAdmin(ctx: Pick<UseCaseContext, 'db'>, principal: Principal): Promise<void> {
  if (!(await isAdminOfAnyTeam(ctx.db, principal.userUuid))) throw new ForbiddenError('Only a team admin may manage discount codes');
}

export async function createDiscountCode(ctx: Pick<UseCaseContext, 'now' | 'db'>, principal: Principal, input: DiscountCodeInput): Promise<DiscountCode> {
  await requireAccountAdmin(ctx, principal);
  const now = ctx.now();
  const errors = validateDiscountCodeInput(input, now);
  if (errors.length > 0) throw new ValidationError(errors);
  const code = normalizeDiscountCode(input.code);
  return inTransaction(ctx.db, async (trx) => {
    if (await findDiscountByCode(trx, principal.accountUuid, code)) throw new ValidationError([{ path: '/code', message: 'already exists' }]);
    const discount: DiscountCode = {
      uuid: newId(now),
      accountUuid: principal.accountUuid,
      code,
      percentOff: input.percentOff ?? null,
      amountOff: input.amountOff ?? null,
      expiresAt: input.expiresAt === undefined ? null : Date.parse(input.expiresAt),
      usageLimit: input.usageLimit ?? null,
      timesUsed: 0,
      createdAt: now,
    };
    await insertDiscountCode(trx, discount);
    await recordAuditEvent(trx, {
      accountUuid: discount.accountUuid,
      action: 'discount.created',
      actor: actorOf(principal),
      target: { type: 'discount-code', uuid: discount.uuid },
      details: { code },
      now,
    });
    return discount;
  });
}

export async function listDiscountCodes(ctx: Pick<UseCaseContext, 'db'>, principal: Principal): Promise<DiscountCode[]> {
  await requireAccountAdmin(ctx, principal);
  return selectDiscountCodes(ctx.db, principal.accountUuid);
}

export async function getDiscountCode(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, uuid: string): Promise<DiscountCode> {
  await requireAccountAdmin(ctx, principal);
  const discount = await findDiscountCode(ctx.db, principal.accountUuid, uuid);
  if (!discount) throw new NotFoundError('discount code');
  return discount;
}

/** Deleted codes stop working at once; payments that used one keep its id. */
export async function deleteDiscountCode(ctx: Pick<UseCaseContext, 'now' | 'db'>, principal: Principal, uuid: string): Promise<void> {
  await requireAccountAdmin(ctx, principal);
  await inTransaction(ctx.db, async (trx) => {
    const discount = await findDiscountCode(trx, principal.accountUuid, uuid);
    if (!discount || !(await deleteDiscountCodeRow(trx, principal.accountUuid, uuid))) throw new NotFoundError('discount code');
    const details = { code: discount.code };
    await recordAuditEvent(trx, {
      accountUuid: principal.accountUuid,
      action: 'discount.deleted',
      actor: actorOf(principal),
      target: { type: 'discount-code', uuid },
      details,
      now: ctx.now(),
    });
  });
}
