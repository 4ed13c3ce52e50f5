import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { calculateSchedule } from '../../scheduling/booking/calculate.js';
import type { UseCaseContext } from '../../scheduling/context.js';
import { problemResponses } from '../schemas/common.js';
import { CalculateScheduleBodySchema, ScheduleSchema } from '../schemas/schedule.js';

/** `POST /calculate-schedule`, public: a booking page calls it without a key. */
export const calculateScheduleRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext }> = async (app, { ctx }) => {
  // The bytes, not a string: a cached view then goes out without being encoded again.
  const serialized = new WeakMap<object, Buffer>();
  app.post(
    '/calculate-schedule',
    {
      // calculateSchedule only reads its input: a booking page's repeated body is parsed and validated once.
      config: { repeatableBody: true },
      schema: {
        tags: ['Scheduling'],
        summary: 'Calculate available dates',
        description:
          'Public: no key needed (a key, when sent, must be valid, and then the topic must belong to its account). With `month`, ' +
          'every local date of that month in `timezone`; otherwise 7 dates from today plus `offset` days. A slot starts when the ' +
          'host can take the whole meeting: inside their weekly hours (in their own zone, across daylight-saving changes) and ' +
          "overrides, on the topic's grid, after the minimum notice, within the booking window and daily limit, with buffers kept " +
          'on both sides. For a team topic, `team` is required and `username` must be one of its hosts. ' +
          'Team view: for a team topic, leave `username` out. The response has `"username": null` and offers every start at which ' +
          'at least one host is free, each slot naming the host it would be booked with (round-robin: the free host with the fewest ' +
          'meetings of this topic, confirmed or held for payment, in the ISO week of the slot, Monday 00:00 to Monday 00:00 UTC; ' +
          "ties go to the alphabetically first username; with the topic's `hostWeights`, a host still below their weight's share of the team's meetings that week first, then the smallest (those meetings + 1) / weight), " +
          'so a slot can be sent back unchanged as a `dates` entry of POST /schedule. A topic with more than one seat offers a start ' +
          'until it is full, each slot saying `seatsLeft`. ' +
          '`username` stays required for an individual topic (400 at /username). ' +
          'Views are cached; behind several instances, a booking or change made through one shows in the views of the others ' +
          'as soon as they hear of it from the database (milliseconds), and a slot taken meanwhile is refused by POST /schedule (409), never booked twice.',
        security: [{}, { apiKey: [] }, { bearerApiKey: [] }],
        body: CalculateScheduleBodySchema,
        response: { 200: ScheduleSchema, ...problemResponses(400, 401, 404, 406, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const schedule = await calculateSchedule(ctx, request.principal, request.body);
      // A cached schedule comes back as the same object until it changes: serialise it once.
      let body = serialized.get(schedule);
      if (body === undefined) {
        body = Buffer.from(JSON.stringify(schedule));
        serialized.set(schedule, body);
      }
      // A Buffer payload goes out as is; the 200 schema still documents and types the shape.
      return reply.type('application/json; charset=utf-8').send(body as unknown as typeof schedule);
    },
  );
};
