import { Type, type TSchema } from 'typebox';
import { HOST_LIMIT_RANGES } from '../../domain/period-limits.js';
import { NonBlankLine, Nullable, TimeZone, Timestamp, Uuid } from './common.js';

const LocalTime = (description: string) => Type.String({ pattern: '^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$', description, examples: ['09:00'] });

export const IntervalSchema = Type.Object(
  { start: LocalTime('Local wall-clock start, HH:MM.'), end: LocalTime('Local wall-clock end, HH:MM; 24:00 is the end of the day.') },
  { additionalProperties: false },
);

function weekOf<T extends TSchema>(day: T) {
  return { monday: day, tuesday: day, wednesday: day, thursday: day, friday: day, saturday: day, sunday: day };
}

export const AvailabilityBodySchema = Type.Object(
  {
    timezone: TimeZone,
    weekly: Type.Object(weekOf(Type.Optional(Type.Array(IntervalSchema, { maxItems: 24 }))), {
      additionalProperties: false,
      description: 'Hours per weekday in `timezone`; a day left out has no hours.',
    }),
    overrides: Type.Optional(
      Type.Array(
        Type.Object(
          {
            date: Type.String({ format: 'date', description: 'Local date, YYYY-MM-DD.' }),
            intervals: Type.Array(IntervalSchema, { maxItems: 24, description: '[] makes the date a day off.' }),
          },
          { additionalProperties: false },
        ),
        { maxItems: 1000, description: "Each replaces that date's weekly hours." },
      ),
    ),
    holidays: Type.Optional(
      Nullable(
        Type.String({
          pattern: '^[A-Z]{2}$',
          description:
            "An ISO 3166 country code (e.g. `PL`): that country's public holidays (type `public` in the maintained `date-holidays` library; observances and school holidays are workdays) are days off in `timezone`, explained as `HOLIDAY`. A country the library does not know is 400 at `/holidays`. An override of the date wins. Default: none.",
          examples: ['PL'],
        }),
      ),
    ),
    holidayExceptions: Type.Optional(
      Type.Array(Type.String({ format: 'date' }), { maxItems: 366, description: 'Local dates of those holidays worked anyway (YYYY-MM-DD).', examples: [['2027-11-01']] }),
    ),
  },
  { additionalProperties: false },
);

const OutInterval = Type.Object({ start: Type.String(), end: Type.String() });
/** Present when the hours name a holiday country or exceptions. */
const HolidayOut = {
  holidays: Type.Optional(Nullable(Type.String({ description: 'The ISO 3166 country whose public holidays are days off; null: none.' }))),
  holidayExceptions: Type.Optional(Type.Array(Type.String(), { description: 'Holiday dates worked anyway.' })),
};
export const AvailabilitySchema = Type.Object(
  {
    timezone: TimeZone,
    weekly: Type.Object(weekOf(Type.Array(OutInterval))),
    overrides: Type.Array(Type.Object({ date: Type.String(), intervals: Type.Array(OutInterval) })),
    ...HolidayOut,
  },
  { $id: 'Availability', title: 'Availability' },
);

export const DateOverrideBodySchema = Type.Object(
  { intervals: Type.Array(IntervalSchema, { maxItems: 24, description: "The date's hours in the host's time zone; [] makes the date a day off." }) },
  { additionalProperties: false },
);

export const DateOverrideParamsSchema = Type.Object({
  userUuid: Uuid,
  date: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'The host-local date, YYYY-MM-DD.', examples: ['2027-12-24'] }),
});

/** `POST` / `PUT …/schedules`: a name and the same hours as the default availability. */
export const ScheduleBodySchema = Type.Object(
  {
    name: NonBlankLine({ maxLength: 200, description: 'What the host calls it: "Summer hours", "Evenings".' }),
    ...AvailabilityBodySchema.properties,
  },
  { additionalProperties: false },
);

export const ScheduleSchema = Type.Object(
  {
    uuid: Uuid,
    name: Type.String(),
    timezone: TimeZone,
    weekly: Type.Object(weekOf(Type.Array(OutInterval))),
    overrides: Type.Array(Type.Object({ date: Type.String(), intervals: Type.Array(OutInterval) })),
    ...HolidayOut,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'Schedule' },
);

export const ScheduleParamsSchema = Type.Object({ userUuid: Uuid, scheduleUuid: Uuid });

const HostLimit = (period: string, [min, max]: readonly [number, number]) =>
  Nullable(Type.Integer({ minimum: min, maximum: max, description: `Most meetings per ${period} of the host's time zone, across all their topics; null: no limit.` }));

export const HostLimitsSchema = Type.Object(
  {
    daily: HostLimit('day', HOST_LIMIT_RANGES.daily),
    weekly: HostLimit('calendar week (Monday first)', HOST_LIMIT_RANGES.weekly),
  },
  { additionalProperties: false },
);
