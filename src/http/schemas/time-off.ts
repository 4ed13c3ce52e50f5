import { Type } from 'typebox';
import { MAX_TIME_OFF_DAYS, MAX_TIME_OFF_REASON } from '../../domain/time-off.js';
import { Nullable, SingleLine, Timestamp, UtcInstant, Uuid } from './common.js';

export const TimeOffBodySchema = Type.Object(
  {
    start: UtcInstant('When the time off begins.'),
    end: UtcInstant(`When it ends (after \`start\`, in the future, at most ${MAX_TIME_OFF_DAYS} days later).`),
    reason: Type.Optional(Nullable(Type.String({ maxLength: MAX_TIME_OFF_REASON, description: 'The host\'s own note ("Holiday in Crete"); shown to the host and admins only.' }))),
    delegate: Type.Optional(
      Nullable(
        SingleLine({
          minLength: 1,
          maxLength: 120,
          description:
            "The stand-in's username (an active member of the same account, not the user): where a team topic's round robin would have offered the user, it offers the stand-in.",
        }),
      ),
    ),
  },
  { additionalProperties: false },
);

export const TimeOffSchema = Type.Object(
  {
    uuid: Uuid,
    start: Timestamp,
    end: Timestamp,
    reason: Nullable(Type.String()),
    delegate: Nullable(Type.String({ description: "The stand-in's username; null: none." })),
    createdAt: Timestamp,
  },
  { title: 'TimeOff' },
);

export const TimeOffCreatedSchema = Type.Object(
  {
    timeOff: TimeOffSchema,
    conflicts: Type.Array(Type.Object({ uuid: Uuid, meetingTopic: Uuid, start: Timestamp, end: Timestamp }), {
      description: 'Meetings of the user already booked in the span: kept, not cancelled (move or cancel them yourself).',
    }),
  },
  { title: 'TimeOffCreated' },
);
