import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { pageOf } from '../../domain/paging.js';
import { PAGING, PageQuery } from '../schemas/paging.js';
import type { DiscountCode } from '../../domain/discount.js';
import type { UseCaseContext } from '../../scheduling/context.js';
import { createDiscountCode, deleteDiscountCode, getDiscountCode, listDiscountCodes } from '../../scheduling/topics/discount-codes.js';
import { toIso } from '../../domain/representations.js';
import { principalOf } from '../request-guards.js';
import { API_KEY_SECURITY, AUTHENTICATED_ERRORS, UuidParams, problemResponses } from '../schemas/common.js';
import { CreateDiscountCodeBodySchema, DiscountCodeListSchema } from '../schemas/discount-codes.js';

function discountToJson(discount: DiscountCode) {
  return {
    uuid: discount.uuid,
    code: discount.code,
    percentOff: discount.percentOff,
    amountOff: discount.amountOff,
    expiresAt: discount.expiresAt === null ? null : toIso(discount.expiresAt),
    usageLimit: discount.usageLimit,
    timesUsed: discount.timesUsed,
    createdAt: toIso(discount.createdAt),
  };
}

/** The account's discount codes, for the `discount` field of POST /schedule. */
export const discountCodeRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext }> = async (app, { ctx }) => {
  app.post(
    '/discount-codes',
    {
      schema: {
        tags: ['Discount codes'],
        summary: 'Create a discount code',
        description:
          "By an admin of any team. Percent off or a fixed amount off (in the price's currency), optionally expiring and limited " +
          'in uses. A paid booking that gives it pays the discounted total; an unknown, expired or used-up code is 422 DISCOUNT_INVALID.',
        security: API_KEY_SECURITY,
        body: CreateDiscountCodeBodySchema,
        response: { 201: Type.Ref('DiscountCode'), ...problemResponses(...AUTHENTICATED_ERRORS, 403) },
      },
    },
    async (request, reply) => reply.code(201).send(discountToJson(await createDiscountCode(ctx, principalOf(request), request.body))),
  );

  app.get(
    '/discount-codes',
    {
      schema: {
        tags: ['Discount codes'],
        summary: "The account's discount codes",
        description: `By an admin of any team; oldest first (by creation, the same order on every database), each with how often it was used. ${PAGING}`,
        security: API_KEY_SECURITY,
        querystring: PageQuery('Discount codes'),
        response: { 200: DiscountCodeListSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403) },
      },
    },
    async (request) => {
      const page = pageOf(await listDiscountCodes(ctx, principalOf(request)), (discount) => [discount.createdAt, discount.uuid], request.query);
      return { discountCodes: page.items.map(discountToJson), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/discount-codes/:uuid',
    {
      schema: {
        tags: ['Discount codes'],
        summary: 'A discount code',
        description: 'By an admin of any team; with how often it was used. 404 for an unknown code or one of another account.',
        security: API_KEY_SECURITY,
        params: UuidParams,
        response: { 200: Type.Ref('DiscountCode'), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => discountToJson(await getDiscountCode(ctx, principalOf(request), request.params.uuid)),
  );

  app.delete(
    '/discount-codes/:uuid',
    {
      schema: {
        tags: ['Discount codes'],
        summary: 'Delete a discount code',
        description: 'By an admin of any team. Bookings that used it keep their price.',
        security: API_KEY_SECURITY,
        params: UuidParams,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request, reply) => {
      await deleteDiscountCode(ctx, principalOf(request), request.params.uuid);
      return reply.code(204).send(null);
    },
  );
};
