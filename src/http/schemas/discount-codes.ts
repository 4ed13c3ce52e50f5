import { Type } from 'typebox';
import { MAX_COUNT, Nullable, SingleLine, Timestamp, UtcInstant, Uuid } from './common.js';
import { MoneySchema } from './meeting-topics.js';
import { NextCursor } from './paging.js';

export const CreateDiscountCodeBodySchema = Type.Object(
  {
    code: SingleLine({ minLength: 3, maxLength: 40, description: 'Letters, digits, - and _; matched without regard to case.' }),
    percentOff: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Give this or amountOff.' })),
    amountOff: Type.Optional(MoneySchema),
    expiresAt: Type.Optional(UtcInstant('The code stops working at this instant.')),
    usageLimit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_COUNT, description: `How many paid bookings may use it; at most ${MAX_COUNT.toLocaleString('en')}.` })),
  },
  { additionalProperties: false },
);

export const DiscountCodeSchema = Type.Object(
  {
    uuid: Uuid,
    code: Type.String(),
    percentOff: Nullable(Type.Integer()),
    amountOff: Nullable(MoneySchema),
    expiresAt: Nullable(Timestamp),
    usageLimit: Nullable(Type.Integer()),
    timesUsed: Type.Integer(),
    createdAt: Timestamp,
  },
  { $id: 'DiscountCode', title: 'DiscountCode' },
);

export const DiscountCodeListSchema = Type.Object({ discountCodes: Type.Array(Type.Ref('DiscountCode')), nextCursor: NextCursor });
