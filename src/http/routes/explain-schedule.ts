import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { UseCaseContext } from '../../scheduling/context.js';
import { explainSchedule } from '../../scheduling/booking/explain.js';
import { principalOf } from '../request-guards.js';
import { problemResponses } from '../schemas/common.js';
import { ExplainScheduleBodySchema, ScheduleExplanationSchema } from '../schemas/explain-schedule.js';

/** `POST /explain-schedule`: why a start is (not) offered, from the slot engine's own trace. */
export const explainScheduleRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext }> = async (app, { ctx }) => {
  app.post(
    '/explain-schedule',
    {
      schema: {
        tags: ['Scheduling'],
        summary: 'Why is this time not offered?',
        description:
          'Every reason the slot engine leaves `start` out for this host and topic, not just the first; `offered: true` with `reasons: []` ' +
          'exactly when POST /calculate-schedule offers the start now (the same engine: the explanation is its own trace). ' +
          'By the host, an admin of one of their teams, or, for a team topic, any key of the account (403 otherwise; 404 for another ' +
          "account's topic, and for a `username` that is no host of the topic, a deactivated user's included; a deactivated host of an " +
          "individual topic may also be asked about by the account's owner). For a team topic `team` is required; for a collective topic the start needs every host free, so the reasons are every host's, each naming its host in `username`. " +
          'Reasons and their context fields:\n\n' +
          '| code | context |\n|---|---|\n' +
          '| `OUTSIDE_HOURS` | `schedule` (uuid or "default"), the host-local `date` and its `hours` (the meeting must fit in them) |\n' +
          '| `DAY_OFF` | `date` (an override with no hours) |\n' +
          "| `HOLIDAY` | `date`, `name` (a public holiday of the schedule's `holidays` country, not among its `holidayExceptions`) |\n" +
          "| `TIME_OFF` | `start`, `end` of the host's time off the meeting would overlap (POST /users/{uuid}/time-off) |\n" +
          '| `MEETING` | `meetingUuid`, `start`, `end` (another meeting overlaps) |\n' +
          '| `BUFFER` | `meetingUuid`, `start`, `end`, `bufferAfterMinutes` (of the earlier) / `bufferBeforeMinutes` (of the later): buffers overlap |\n' +
          '| `CALENDAR_EVENT` | `calendarUuid`, busy `from`/`to` (never a title) |\n' +
          '| `MINIMUM_NOTICE` | `earliest` |\n| `BOOKING_WINDOW` | `latest` |\n' +
          "| `DAILY_LIMIT`, `WEEKLY_LIMIT`, `MONTHLY_LIMIT` | `limit`, `count`, `scope` (`topic`, or `host`: the host's own limits) |\n" +
          '| `OFF_GRID` | `previous`/`next` grid starts (null when the interval has none that side) |\n' +
          '| `SEATS_FULL` | `seats` |\n| `HOST_INACTIVE` | — (a host of the topic who is deactivated: the only reason given, no meeting times) |\n\n' +
          'Privacy: `meetingUuid` is null unless the caller is the host or an admin of one of their teams (a plain member asking about ' +
          "a team topic sees that a meeting is in the way and when, not which). Times in `detail` are on the host's clock (`timezone`).",
        body: ExplainScheduleBodySchema,
        response: { 200: ScheduleExplanationSchema, ...problemResponses(400, 401, 403, 404, 406, 413, 415, 429) },
      },
    },
    async (request) => explainSchedule(ctx, principalOf(request), request.body),
  );
};
