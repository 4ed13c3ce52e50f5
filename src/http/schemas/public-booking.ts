import { Type } from 'typebox';
import { MultiLine, Nullable, SingleLine, Timestamp, Uuid } from './common.js';
import { CalculateScheduleBodySchema, MeetingSchema, ScheduleBodySchema } from './schedule.js';
import { MoneySchema } from './meeting-topics.js';
import { TOPIC_LIMITS } from '../../domain/meeting-topic.js';

const { metadata: _metadata, ...bookingFields } = ScheduleBodySchema.properties;

export const PublicScheduleBodySchema = Type.Object(
  {
    ...bookingFields,
    website: Type.Optional(
      Type.String({
        maxLength: 500,
        description: 'Honeypot: leave empty; bots fill it. A request with anything in it is refused (400 at /website) and nothing is stored.',
      }),
    ),
    singleUseToken: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description:
          "The token of a single-use link (`/book/once/{token}`; the page sends it): books the link's topic even when it is not public, and uses the link up in the booking's own transaction. A link used, expired or unknown is 410 LINK_GONE; of two bookings through one link at once exactly one is made.",
      }),
    ),
  },
  { additionalProperties: false },
);

/** What POST /public/schedule answers: the booking, plus each meeting's manage link for the confirmation page. */
export const PublicBookingSchema = Type.Object({
  meetings: Type.Array(Type.Ref('Meeting')),
  payment: Nullable(Type.Ref('Payment')),
  manageUrls: Type.Array(Type.String({ format: 'uri' }), {
    description: "Each meeting's private manage link `{PUBLIC_URL}/booking/{token}`, in the order of `meetings` (the one the confirmation e-mail carries).",
  }),
});

export const TokenParams = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200, description: 'The token of the manage link `{PUBLIC_URL}/booking/{token}` in the confirmation e-mail.' }),
});

const { metadata: _meetingMetadata, ...meetingFields } = MeetingSchema.properties;

/** The meeting as its participant sees it: everything but the booking client's `metadata`. */
export const ParticipantMeetingSchema = Type.Object(meetingFields);

export const ManagedBookingSchema = Type.Object({
  meeting: ParticipantMeetingSchema,
  topic: Type.Object({
    uuid: Uuid,
    name: Type.String(),
    description: Type.String(),
    durationMinutes: Type.Integer(),
    cancellationNoticeMinutes: Type.Integer(),
  }),
  hostName: Type.String(),
  canChange: Type.Boolean({ description: 'The participant may still cancel or move the meeting through this link.' }),
  changeDeadline: Timestamp,
});

export const TokenCancelBodySchema = Type.Object(
  { reason: Type.Optional(MultiLine({ maxLength: 2000, description: 'Shown to the host (and in the participant’s own cancellation).' })) },
  { additionalProperties: false },
);

export const TokenRescheduleBodySchema = Type.Object(
  {
    start: ScheduleBodySchema.properties.dates.items.properties.start,
    username: Type.Optional(SingleLine({ minLength: 1, maxLength: 120, description: 'The host the slot names (team topics); default: the same host.' })),
  },
  { additionalProperties: false },
);

export const TokenScheduleBodySchema = Type.Object(
  {
    timezone: CalculateScheduleBodySchema.properties.timezone,
    offset: CalculateScheduleBodySchema.properties.offset,
    month: CalculateScheduleBodySchema.properties.month,
    year: CalculateScheduleBodySchema.properties.year,
  },
  { additionalProperties: false },
);

export const PublicQuoteBodySchema = Type.Object(
  {
    meetingTopic: Uuid,
    priceVariant: Type.Optional(Uuid),
    discount: Type.Optional(SingleLine({ maxLength: 100, description: 'A discount code to try; empty or absent: the price without one.' })),
    dates: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, description: 'How many dates the booking would hold (default 1): the price is per date.' })),
    duration: Type.Optional(
      Type.Integer({
        minimum: TOPIC_LIMITS.durationMinutes[0],
        maximum: TOPIC_LIMITS.durationMinutes[1],
        description:
          "The chosen length, one of the topic's `durations` (else 400 at /duration; default `durationMinutes`). Without `priceVariant`, the variant for that length is the price, as in the booking; a variant of another length is 400 at /priceVariant.",
      }),
    ),
  },
  { additionalProperties: false },
);

export const PublicQuoteSchema = Type.Object({
  /** Before any discount; null for a free topic. */
  price: Nullable(MoneySchema),
  /** What the booking would cost: the price less the discount. */
  total: Nullable(MoneySchema),
  discount: Nullable(
    Type.Object({
      code: Type.String(),
      percentOff: Nullable(Type.Integer()),
      amountOff: Nullable(MoneySchema),
    }),
  ),
});
