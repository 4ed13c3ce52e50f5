import { Type } from 'typebox';
import { TOPIC_LIMITS } from '../../domain/meeting-topic.js';
import { LANGS, MEETING_STATUSES, NO_SHOW_PARTIES } from '../../domain/meeting.js';
import { GatewaySchema, PlaceSchema } from './account.js';
import { PAYMENT_STATUSES } from '../../domain/payment.js';
import { MeetingLocationSchema } from './place-details.js';
import { REPEATED_OR_COMMAS } from '../query-lists.js';
import { Email, FreeObject, MultiLine, NonBlankLine, Nullable, SingleLine, StringEnum, Timestamp, TimeZone, UtcInstant, Uuid } from './common.js';

/** Far beyond any booking window (at most a few years), well inside what dates can hold. */
const MAX_OFFSET_DAYS = 7 * 5_000;
/** Months from January 1970 to December 9999; the domain refuses a month past the year 9999 anyway. */
const MAX_MONTH = (9999 - 1970 + 1) * 12;

export const CalculateScheduleBodySchema = Type.Object(
  {
    username: Type.Optional(
      SingleLine({
        minLength: 1,
        maxLength: 120,
        description: "Host's username. Required for an individual topic; leave it out for a team topic to get the team view (every host's free slots in one call).",
      }),
    ),
    meetingTopic: Uuid,
    timezone: TimeZone,
    offset: Type.Integer({
      minimum: 0,
      maximum: MAX_OFFSET_DAYS,
      multipleOf: 7,
      description: 'Days from today (in `timezone`) to the first of 7 dates; a multiple of 7. Checked but ignored when `month` is given.',
    }),
    month: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_MONTH, description: '1 is January of `year`; 13 is January of the year after, and so on (a month past 9999 is refused).' }),
    ),
    team: Type.Optional(Uuid),
    duration: Type.Optional(
      Type.Integer({
        minimum: TOPIC_LIMITS.durationMinutes[0],
        maximum: TOPIC_LIMITS.durationMinutes[1],
        description:
          "The length to offer slots for: slots, buffers, limits, seats and the grid apply to it. One of the topic's `durations` (400 at `/duration` otherwise); default its `durationMinutes`.",
      }),
    ),
    year: Type.Optional(Type.Integer({ minimum: 1970, maximum: 9999, description: 'Default: the current year in `timezone`.' })),
  },
  { additionalProperties: false },
);

export const SlotSchema = Type.Object(
  {
    start: Timestamp,
    username: Type.String(),
    seatsLeft: Type.Optional(Type.Integer({ minimum: 1, description: 'Topics with more than one seat (group meetings) only: how many participants can still book this start.' })),
  },
  { $id: 'Slot', title: 'Slot', description: 'Can be sent back unchanged as an entry of `dates` in POST /schedule.' },
);

export const ScheduleSchema = Type.Object({
  username: Nullable(Type.String({ description: 'The host asked for; null in the team view, where each slot names its host.' })),
  meetingTopic: Uuid,
  team: Nullable(Uuid),
  timezone: TimeZone,
  durationMinutes: Type.Integer(),
  from: Type.String({ format: 'date' }),
  to: Type.String({ format: 'date' }),
  days: Type.Array(Type.Object({ date: Type.String({ format: 'date' }), slots: Type.Array(Type.Ref('Slot')) }), {
    description: 'Every date of the range once, in order; slots grouped under their local date in `timezone`, in time order.',
  }),
  placesReady: Type.Record(Type.String(), Type.Array(PlaceSchema), {
    description:
      "Per host of the view (by username: the one asked for, or every host of a team topic), the topic's places at which a meeting " +
      "gets its join link at once: `zoom`, `google-meet`, `teamsForBusiness` and `webex` when the host's connection to that provider " +
      'works or a static link is set in place details; every other place always. A place not listed stays bookable: the meeting ' +
      'is booked without a link, the host is told what to connect, and the link follows by e-mail. In the team view, the ' +
      'round robin prefers hosts whose places are all ready.',
    examples: [{ 'anna-nowak': ['zoom', 'offline'] }],
  }),
});

export const ScheduleBodySchema = Type.Object(
  {
    dates: Type.Array(
      Type.Object(
        {
          start: UtcInstant('The start, as a slot of POST /calculate-schedule gives it.'),
          username: SingleLine({ minLength: 1, maxLength: 120, description: "The host's username." }),
          seatsLeft: Type.Optional(Type.Integer({ minimum: 0, description: 'Ignored: accepted so that a slot can be sent back as it came.' })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 20, description: 'Booked together or not at all.' },
    ),
    email: Email("Participant's e-mail."),
    lang: StringEnum(LANGS, { description: 'Language of the messages the participant gets.' }),
    locale: Type.Optional(
      SingleLine({
        minLength: 1,
        maxLength: 100,
        description:
          "The participant's locale (BCP 47, of the language in `lang`), e.g. `en-GB`, or `en-US-u-hc-h23` for 24-hour time: their e-mails " +
          'then read dates and times as their browser does (the booking page sends it). Only the region and the hour cycle (`-u-hc-h12`/`-u-hc-h23`) are kept. Unset: as `lang` reads (`en`: 12-hour, month first).',
        examples: ['en-GB'],
      }),
    ),
    name: NonBlankLine({ maxLength: 200, description: "Participant's name." }),
    phone: Type.Optional(SingleLine({ minLength: 1, maxLength: 50, description: 'Required when the topic requires a phone.' })),
    place: PlaceSchema,
    meetingTopic: Uuid,
    team: Type.Optional(Uuid),
    timezone: TimeZone,
    gateway: Type.Optional(GatewaySchema),
    note: Type.Optional(MultiLine({ maxLength: 5000, description: 'For the host; shown in their e-mail and invitation.' })),
    invoiceName: Type.Optional(SingleLine({ maxLength: 500 })),
    invoiceAddress: Type.Optional(MultiLine({ maxLength: 500 })),
    invoicePostalCode: Type.Optional(SingleLine({ maxLength: 50 })),
    invoiceCity: Type.Optional(SingleLine({ maxLength: 200 })),
    invoiceTaxNumber: Type.Optional(SingleLine({ maxLength: 100 })),
    discount: Type.Optional(SingleLine({ maxLength: 100, description: 'Discount code.' })),
    priceVariant: Type.Optional(Uuid),
    guests: Type.Optional(
      Type.Array(Email('A guest.'), {
        maxItems: 10,
        description:
          "A topic with `allowGuests`: e-mail addresses of people the participant brings, at most 10, each once and not the participant's own (else 400 at `/guests`). " +
          "Each is an ATTENDEE of the invitation and gets the confirmation, reschedule and cancel messages, without the manage link; the host's e-mail lists them.",
      }),
    ),
    duration: Type.Optional(
      Type.Integer({
        minimum: TOPIC_LIMITS.durationMinutes[0],
        maximum: TOPIC_LIMITS.durationMinutes[1],
        description:
          "The length booked, as the slots were calculated for (`duration` of POST /calculate-schedule); a price variant for that length is its price. One of the topic's `durations` (400 at `/duration` otherwise); default its `durationMinutes`.",
      }),
    ),
    form: Type.Optional(
      Type.Unsafe<Record<string, unknown>>({
        ...FreeObject,
        description:
          'Answers to the topic\'s questions, `{ "<key>": answer }`: a string for `text` (one line), `textarea`, `select` (one of its options), ' +
          '`email`, `phone` (E.164) and `date` (`YYYY-MM-DD`), true or false for `checkbox`, a number for `number`, an array of options for `multiselect`. ' +
          'A key that is no question of the topic, an answer of the wrong type, a required question unanswered, or an answer to a question whose ' +
          '`showIf` does not hold is refused (400 at `/form/<key>`), and nothing is booked.',
      }),
    ),
    metadata: Type.Optional(FreeObject),
  },
  { additionalProperties: false },
);

export const ScheduleHeadersSchema = Type.Object({
  'idempotency-key': Type.Optional(SingleLine({ minLength: 1, maxLength: 255, description: 'A repeat with the same key and body within 24 h returns the first response.' })),
});

const ParticipantSchema = Type.Object({
  name: Type.String({ description: "`(erased)` once the participant's personal data was erased (POST /participants/erase, or the account's retention)." }),
  email: Nullable(Type.String({ description: "null once the participant's personal data was erased." })),
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
    hosts: Type.Array(Type.String(), {
      description:
        'Everyone the meeting holds, by username, `username` first: that host alone, or for a collective team topic every host of the topic ' +
        '(each holds the time and gets the invitation).',
    }),
    start: Timestamp,
    end: Timestamp,
    durationMinutes: Type.Integer({ description: "The meeting's length, as chosen when booked (one of the topic's `durations`)." }),
    status: StringEnum(MEETING_STATUSES),
    place: PlaceSchema,
    location: MeetingLocationSchema,
    participant: ParticipantSchema,
    note: Nullable(Type.String()),
    guests: Type.Array(Type.String(), {
      description: "The participant's guests' e-mail addresses (`guests` of POST /schedule): attendees of the invitation, sent its confirmation, updates and cancellation.",
    }),
    priceVariant: Nullable(Uuid),
    form: FreeObject,
    metadata: FreeObject,
    invoice: Nullable(InvoiceSchema),
    createdAt: Timestamp,
    updatedAt: Type.String({
      format: 'date-time',
      examples: ['2027-03-29T07:00:00.000Z'],
      description:
        'When the meeting last changed (booked, confirmed, moved, cancelled, declined, its room or no-show recorded): compare it to tell a newer record from a stale one, e.g. webhooks delivered out of order.',
    }),
    cancelledAt: Nullable(Timestamp),
    cancelReason: Nullable(Type.String()),
    declineReason: Nullable(Type.String({ description: 'A declined request: the host\'s reason, or "not approved in time".' })),
    noShow: Nullable(StringEnum(NO_SHOW_PARTIES, { description: 'Who did not come, as marked after the start (POST /meetings/{uuid}/no-show); null otherwise.' })),
    payment: Type.Optional(
      Nullable(
        Type.Object(
          {
            uuid: Uuid,
            status: StringEnum(PAYMENT_STATUSES),
            amount: Type.Integer({ description: "Minor units: the whole booking's payment." }),
            currency: Type.String(),
            gateway: GatewaySchema,
            paidAt: Nullable(Timestamp),
            refundedAmount: Type.Integer({ description: 'Minor units refunded so far.' }),
          },
          { description: "The booking's payment (GET /meetings, GET /meetings/{uuid}, cancel); null for a free meeting. GET /payments/{uuid} has the details." },
        ),
      ),
    ),
  },
  { $id: 'Meeting', title: 'Meeting' },
);

export const PaymentSchema = Type.Object(
  {
    uuid: Uuid,
    gateway: GatewaySchema,
    status: StringEnum(PAYMENT_STATUSES, {
      description: '`pending` → `paid` | `expired` (the hold lapsed) | `failed` (the gateway reported a failure); a paid payment becomes `refunded` once all of it is refunded.',
    }),
    amount: Type.Integer({ description: 'Minor units, after the price variant and discount, for all meetings of the booking.' }),
    currency: Type.String(),
    redirectUrl: Type.String({ description: 'Where to send the participant to pay: `{PUBLIC_URL}/pay/{uuid}`, which hands over to the gateway.' }),
    expiresAt: Timestamp,
    paidAt: Nullable(Timestamp),
    refundedAmount: Type.Integer({ description: 'Minor units the gateway has confirmed refunding.' }),
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
    username: Type.Optional(SingleLine({ minLength: 1, maxLength: 120, description: "Host's username." })),
    team: Type.Optional(Uuid),
    from: Type.Optional(UtcInstant('Meetings starting at or after this instant.')),
    to: Type.Optional(UtcInstant('Meetings starting before this instant.')),
    status: Type.Optional(
      Type.Array(StringEnum(MEETING_STATUSES), {
        description: 'One or more statuses: repeat the parameter (status=confirmed&status=pending_payment) or separate them by commas (status=confirmed,pending_payment).',
      }),
    ),
    noShow: Type.Optional(StringEnum(NO_SHOW_PARTIES, { description: 'Only meetings marked with this no-show.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Meetings per page.' })),
    cursor: Type.Optional(SingleLine({ maxLength: 200, description: 'The `nextCursor` of the previous page.' })),
  },
  // @fastify/swagger takes a parameter's style from its container: the default for query parameters, said out loud for `status`.
  { additionalProperties: false, ...REPEATED_OR_COMMAS },
);

export const MeetingListSchema = Type.Object({
  meetings: Type.Array(Type.Ref('Meeting')),
  nextCursor: Nullable(Type.String({ description: 'Pass as `cursor` for the next page; null on the last page.' })),
});

export const RescheduleBodySchema = Type.Object(
  {
    start: UtcInstant('The new start, as a slot of POST /calculate-schedule gives it (this meeting not blocking).'),
    username: Type.Optional(SingleLine({ minLength: 1, maxLength: 120, description: 'Another host of the topic; default: the same host.' })),
  },
  { additionalProperties: false },
);

export const CancelBodySchema = Type.Object(
  {
    reason: Type.Optional(MultiLine({ maxLength: 2000, description: 'Shown to the participant and the host.' })),
    refund: Type.Optional(Type.Boolean({ default: true, description: "A paid, confirmed meeting's share of the payment goes back through the gateway unless this is false." })),
  },
  { additionalProperties: false },
);

export const NoShowBodySchema = Type.Object({ who: StringEnum(NO_SHOW_PARTIES, { description: 'Who did not come.' }) }, { additionalProperties: false });

export const DeclineBodySchema = Type.Object({ reason: Type.Optional(MultiLine({ maxLength: 2000, description: 'Told to the participant.' })) }, { additionalProperties: false });
