import { Type } from 'typebox';
import { LANGS, MEETING_STATUSES } from '../../domain/meeting.js';
import { GatewaySchema, PlaceSchema } from './account.js';
import { EMAIL_PATTERN, FreeObject, Nullable, StringEnum, Timestamp, TimeZone, Uuid } from './common.js';

export const CalculateScheduleBodySchema = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 120, description: "Host's username." }),
    meetingTopic: Uuid,
    timezone: TimeZone,
    offset: Type.Integer({ minimum: 0, multipleOf: 7, description: 'Days from today (in `timezone`) to the first of 7 dates; a multiple of 7. Checked but ignored when `month` is given.' }),
    month: Type.Optional(Type.Integer({ minimum: 1, description: '1 is January of `year`; 13 is January of the year after, and so on.' })),
    team: Type.Optional(Uuid),
    year: Type.Optional(Type.Integer({ minimum: 1970, maximum: 9999, description: 'Default: the current year in `timezone`.' })),
  },
  { additionalProperties: false },
);

export const SlotSchema = Type.Object(
  { start: Timestamp, username: Type.String() },
  { $id: 'Slot', title: 'Slot', description: 'Can be sent back unchanged as an entry of `dates` in POST /schedule.' },
);

export const ScheduleSchema = Type.Object({
  username: Type.String(),
  meetingTopic: Uuid,
  team: Nullable(Uuid),
  timezone: TimeZone,
  durationMinutes: Type.Integer(),
  from: Type.String({ format: 'date' }),
  to: Type.String({ format: 'date' }),
  days: Type.Array(
    Type.Object({ date: Type.String({ format: 'date' }), slots: Type.Array(Type.Ref('Slot')) }),
    { description: 'Every date of the range once, in order; slots grouped under their local date in `timezone`, in time order.' },
  ),
});

const text = (maxLength: number, description?: string) => Type.String({ maxLength, ...(description ? { description } : {}) });

export const ScheduleBodySchema = Type.Object(
  {
    dates: Type.Array(
      Type.Object(
        {
          start: Type.String({ description: 'UTC date-time in ISO 8601 format, as a slot of POST /calculate-schedule gives it.', examples: ['2027-03-29T07:00:00.000Z'] }),
          username: Type.String({ minLength: 1, maxLength: 120, description: "The host's username." }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 20, description: 'Booked together or not at all.' },
    ),
    email: Type.String({ pattern: EMAIL_PATTERN, maxLength: 320, description: "Participant's e-mail." }),
    lang: StringEnum(LANGS, { description: 'Language of the messages the participant gets.' }),
    name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: "Participant's name." }),
    phone: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: 'Required when the topic requires a phone.' })),
    place: PlaceSchema,
    meetingTopic: Uuid,
    team: Type.Optional(Uuid),
    timezone: TimeZone,
    gateway: Type.Optional(GatewaySchema),
    note: Type.Optional(text(5000)),
    invoiceName: Type.Optional(text(500)),
    invoiceAddress: Type.Optional(text(500)),
    invoicePostalCode: Type.Optional(text(50)),
    invoiceCity: Type.Optional(text(200)),
    invoiceTaxNumber: Type.Optional(text(100)),
    discount: Type.Optional(text(100, 'Discount code.')),
    priceVariant: Type.Optional(Uuid),
    form: Type.Optional(FreeObject),
    metadata: Type.Optional(FreeObject),
  },
  { additionalProperties: false },
);

export const ScheduleHeadersSchema = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'A repeat with the same key and body within 24 h returns the first response.' })),
});

const ParticipantSchema = Type.Object({
  name: Type.String(),
  email: Type.String(),
  phone: Nullable(Type.String()),
  timezone: TimeZone,
  lang: StringEnum(LANGS),
});

const InvoiceSchema = Type.Object({
  invoiceName: Nullable(Type.String()),
  invoiceAddress: Nullable(Type.String()),
  invoicePostalCode: Nullable(Type.String()),
  invoiceCity: Nullable(Type.String()),
  invoiceTaxNumber: Nullable(Type.String()),
});

export const MeetingSchema = Type.Object(
  {
    uuid: Uuid,
    meetingTopic: Uuid,
    team: Nullable(Uuid),
    username: Type.String({ description: "The host's username." }),
    start: Timestamp,
    end: Timestamp,
    status: StringEnum(MEETING_STATUSES),
    place: PlaceSchema,
    participant: ParticipantSchema,
    note: Nullable(Type.String()),
    priceVariant: Nullable(Uuid),
    form: FreeObject,
    metadata: FreeObject,
    invoice: Nullable(InvoiceSchema),
    createdAt: Timestamp,
    cancelledAt: Nullable(Timestamp),
    cancelReason: Nullable(Type.String()),
  },
  { $id: 'Meeting', title: 'Meeting' },
);

export const PaymentSchema = Type.Object(
  {
    uuid: Uuid,
    gateway: GatewaySchema,
    status: StringEnum(['pending', 'paid', 'expired', 'cancelled'] as const),
    amount: Type.Integer({ description: 'Minor units, after the price variant and discount, for all meetings of the booking.' }),
    currency: Type.String(),
    redirectUrl: Type.String({ description: 'Where to send the participant to pay.' }),
    expiresAt: Timestamp,
    discountCode: Nullable(Type.String({ description: 'The discount code applied, if any.' })),
  },
  { $id: 'Payment', title: 'Payment' },
);

export const BookingSchema = Type.Object({
  meetings: Type.Array(Type.Ref('Meeting')),
  payment: Nullable(Type.Ref('Payment')),
});

export const MeetingListQuerySchema = Type.Object(
  {
    username: Type.Optional(Type.String({ minLength: 1, description: "Host's username." })),
    team: Type.Optional(Uuid),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Meetings starting at or after this instant.' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Meetings starting before this instant.' })),
    status: Type.Optional(Type.Array(StringEnum(MEETING_STATUSES), { description: 'One or more statuses; repeat the parameter for several (status=confirmed&status=pending_payment).' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    cursor: Type.Optional(Type.String({ maxLength: 200, description: 'The `nextCursor` of the previous page.' })),
  },
  { additionalProperties: false },
);

export const MeetingListSchema = Type.Object({
  meetings: Type.Array(Type.Ref('Meeting')),
  nextCursor: Nullable(Type.String({ description: 'Pass as `cursor` for the next page; null on the last page.' })),
});

export const CancelBodySchema = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 2000 })) }, { additionalProperties: false });
