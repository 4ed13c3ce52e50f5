import { Type } from 'typebox';
import { PAYMENT_STATUSES } from '../../domain/payment.js';
import { GatewaySchema } from './account.js';
import { Email, Nullable, StringEnum, Timestamp, Uuid } from './common.js';
import { MeetingSchema } from './schedule.js';

/** The participant asked about: in the body only, never in a URL (URLs are logged). */
export const ParticipantEmailBodySchema = Type.Object({ email: Email("The participant's e-mail, compared without regard to case.") }, { additionalProperties: false });

const ExportedPaymentSchema = Type.Object({
  uuid: Uuid,
  amount: Type.Integer({ description: "Minor units: the whole booking's payment." }),
  currency: Type.String(),
  status: StringEnum(PAYMENT_STATUSES),
  gateway: GatewaySchema,
  createdAt: Timestamp,
  expiresAt: Timestamp,
  paidAt: Nullable(Timestamp),
  refundedAmount: Type.Integer({ description: 'Minor units refunded so far.' }),
});

const SentMessageSchema = Type.Object({
  kind: Type.String({
    description:
      '`confirmed`, `rescheduled`, `located` (the invitation and its updates), `cancelled`, `reminder`, `payment-pending` (the pay link), `payment-released` (unpaid in time), `payment-refunded`.',
  }),
  channel: StringEnum(['email', 'sms'] as const),
  sentAt: Timestamp,
});

const { payment: _payment, ...meetingFields } = MeetingSchema.properties;

export const ParticipantExportSchema = Type.Object({
  email: Type.String({ description: 'The e-mail asked about, as given.' }),
  exportedAt: Timestamp,
  meetings: Type.Array(
    Type.Object({
      ...meetingFields,
      payments: Type.Array(ExportedPaymentSchema, { description: "The booking's payment (none for a free meeting)." }),
      messages: Type.Array(SentMessageSchema, {
        description:
          'Messages sent to the participant about the meeting, oldest first, as far as termin records them: e-mails for 30 days after they were sent ' +
          '(the outbox then forgets them), SMS reminders for as long as the meeting is kept.',
      }),
    }),
    {
      description:
        'Every meeting of the account with that participant, any status, past and future, by start: the record `GET /meetings/{uuid}` shows (with form answers and metadata).',
    },
  ),
});

export const ErasureSchema = Type.Object({
  erased: Type.Integer({ description: 'Meetings whose participant data this call erased: 0 when there was nothing (left) to erase.' }),
});
