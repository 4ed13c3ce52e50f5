import { Type } from 'typebox';
import { GatewaySchema } from './account.js';
import { Nullable, Uuid } from './common.js';

export const NotificationParamsSchema = Type.Object(
  {
    gateway: GatewaySchema,
    accountUuid: Uuid,
  },
  { additionalProperties: false },
);

export const PaymentEventSchema = Type.Object({
  status: Type.String({ description: 'The state the change led to: pending, paid, expired, failed, refunded (an entry per refund, partial ones too) or refund_failed.' }),
  at: Type.String({ format: 'date-time' }),
  event: Type.String({ description: 'The event recorded: payment.pending, payment.paid, payment.expired, payment.failed, payment.refunded, payment.refund_failed.' }),
  amount: Nullable(Type.Integer({ description: 'For a refund: the minor units that went back.' })),
});

export const PaymentDetailsSchema = Type.Object({
  payment: Type.Ref('Payment'),
  meetings: Type.Array(Type.Ref('Meeting')),
  events: Type.Array(PaymentEventSchema, { description: 'Every change of the payment, oldest first: the audit trail.' }),
});

export const PayParamsSchema = Type.Object({ uuid: Uuid }, { additionalProperties: false });
