import { TOPIC_LIMITS } from '../../domain/meeting-topic.js';
import { Type } from 'typebox';
import { Nullable, SingleLine, StringEnum, Timestamp, TimeZone, UtcInstant, Uuid } from './common.js';

/** Every code the engine's trace gives (src/domain/slots.ts Exclusion), in the contract's order. */
export const EXCLUSION_CODES = [
  'OUTSIDE_HOURS',
  'DAY_OFF',
  'HOLIDAY',
  'TIME_OFF',
  'MEETING',
  'BUFFER',
  'CALENDAR_EVENT',
  'MINIMUM_NOTICE',
  'BOOKING_WINDOW',
  'DAILY_LIMIT',
  'WEEKLY_LIMIT',
  'MONTHLY_LIMIT',
  'OFF_GRID',
  'SEATS_FULL',
  'HOST_INACTIVE',
] as const;

export const ExplainScheduleBodySchema = Type.Object(
  {
    username: SingleLine({ minLength: 1, maxLength: 120, description: "The host's username (for a collective or round-robin team topic: any one of its hosts)." }),
    meetingTopic: Uuid,
    start: UtcInstant('The start to explain.'),
    team: Type.Optional(Uuid),
    duration: Type.Optional(
      Type.Integer({
        minimum: TOPIC_LIMITS.durationMinutes[0],
        maximum: TOPIC_LIMITS.durationMinutes[1],
        description: "The length to explain the start for. One of the topic's `durations` (400 at `/duration` otherwise); default its `durationMinutes`.",
      }),
    ),
  },
  { additionalProperties: false },
);

const ReasonSchema = Type.Object(
  {
    code: StringEnum(EXCLUSION_CODES),
    detail: Type.String({ description: 'One English sentence, times on the host’s clock in their zone.' }),
    schedule: Type.Optional(Type.String({ description: 'OUTSIDE_HOURS: the schedule whose hours apply, a uuid or "default".' })),
    date: Type.Optional(Type.String({ format: 'date', description: 'OUTSIDE_HOURS, DAY_OFF, HOLIDAY: the host-local date of the start.' })),
    name: Type.Optional(Type.String({ description: "HOLIDAY: the public holiday's name (English where the holiday library has it)." })),
    hours: Type.Optional(
      Type.Array(Type.Object({ start: Type.String(), end: Type.String() }), { description: 'OUTSIDE_HOURS: the host’s hours that local date (override or weekday), `HH:MM`.' }),
    ),
    meetingUuid: Type.Optional(
      Nullable(
        Type.String({ format: 'uuid', description: 'MEETING, BUFFER: the meeting in the way; null when the caller may not see it (not the host nor an admin of their teams).' }),
      ),
    ),
    start: Type.Optional(Timestamp),
    end: Type.Optional(Timestamp),
    bufferBeforeMinutes: Type.Optional(Type.Integer({ description: 'BUFFER: the buffer before the later of the two meetings.' })),
    bufferAfterMinutes: Type.Optional(Type.Integer({ description: 'BUFFER: the buffer after the earlier of the two meetings.' })),
    calendarUuid: Type.Optional(Uuid),
    from: Type.Optional(Timestamp),
    to: Type.Optional(Timestamp),
    earliest: Type.Optional(Timestamp),
    latest: Type.Optional(Timestamp),
    limit: Type.Optional(Type.Integer()),
    count: Type.Optional(Type.Integer({ description: 'Meetings already in that period.' })),
    scope: Type.Optional(StringEnum(['topic', 'host'] as const, { description: "Limits: the topic's limit, or the host's own across topics (PUT /users/{uuid}/limits)." })),
    previous: Type.Optional(Nullable(Timestamp)),
    next: Type.Optional(Nullable(Timestamp)),
    seats: Type.Optional(Type.Integer()),
    username: Type.Optional(
      Type.String({
        description: 'Collective topics only: the host this reason is about (a start is offered only when every host of the topic is free, so every host is explained).',
      }),
    ),
  },
  { title: 'ExclusionReason', description: 'Why a start is not offered; which context fields appear depends on `code` (see the operation).' },
);

export const ScheduleExplanationSchema = Type.Object(
  {
    start: Timestamp,
    end: Timestamp,
    offered: Type.Boolean({ description: 'True (and `reasons` empty) exactly when POST /calculate-schedule offers this start now.' }),
    reasons: Type.Array(ReasonSchema, { description: 'Every reason that excludes the start, not just the first.' }),
    timezone: TimeZone,
  },
  {
    examples: [
      {
        start: '2027-03-29T08:15:00.000Z',
        end: '2027-03-29T08:45:00.000Z',
        offered: false,
        timezone: 'Europe/Warsaw',
        reasons: [
          {
            code: 'OFF_GRID',
            detail: "It is not on the topic's slot grid; the nearest grid starts are 2027-03-29 10:00 and 2027-03-29 10:30 (Europe/Warsaw).",
            previous: '2027-03-29T08:00:00.000Z',
            next: '2027-03-29T08:30:00.000Z',
          },
          {
            code: 'MEETING',
            detail: 'The host has another meeting then, 2027-03-29 10:00–2027-03-29 11:00 (Europe/Warsaw).',
            meetingUuid: '0193b0a4-6f1e-7c3a-9d2b-5e8f1a2b3c4d',
            start: '2027-03-29T08:00:00.000Z',
            end: '2027-03-29T09:00:00.000Z',
          },
          {
            code: 'CALENDAR_EVENT',
            detail: "The host's connected calendar is busy 2027-03-29 10:30–2027-03-29 12:00 (Europe/Warsaw).",
            calendarUuid: '0193b0a4-6f1e-7c3a-9d2b-5e8f1a2b3c4e',
            from: '2027-03-29T08:30:00.000Z',
            to: '2027-03-29T10:00:00.000Z',
          },
        ],
      },
    ],
  },
);
