import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { WEEKDAYS, type Availability } from '../../domain/availability.js';
import { getAvailability, removeDateOverride, setAvailability, setDateOverride } from '../../scheduling/topics/availability.js';
import type { UseCaseContext } from '../../scheduling/context.js';
import { principalOf } from '../request-guards.js';
import { AvailabilityBodySchema, DateOverrideBodySchema, DateOverrideParamsSchema } from '../schemas/availability.js';
import { API_KEY_SECURITY, AUTHENTICATED_ERRORS, Uuid, problemResponses } from '../schemas/common.js';

const UserParams = Type.Object({ userUuid: Uuid });

export const availabilityRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext }> = async (app, { ctx }) => {
  app.get(
    '/users/:userUuid/availability',
    {
      schema: {
        tags: ['Availability'],
        summary: "A user's weekly hours and date overrides",
        description: 'By the user, or an admin of one of their teams.',
        security: API_KEY_SECURITY,
        params: UserParams,
        response: { 200: Type.Ref('Availability'), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => getAvailability(ctx, principalOf(request), request.params.userUuid),
  );

  app.put(
    '/users/:userUuid/availability',
    {
      schema: {
        tags: ['Availability'],
        summary: "Replace a user's availability",
        description:
          "Local wall-clock intervals in the host's IANA `timezone` (which becomes the user's time zone), applied across " +
          'daylight-saving changes; `end` may be `24:00`; intervals of one day must not overlap (touching is fine, and touching ' +
          "intervals, across midnight too, form one continuous stretch). An override replaces that date's weekly hours.",
        security: API_KEY_SECURITY,
        params: UserParams,
        body: AvailabilityBodySchema,
        response: { 200: Type.Ref('Availability'), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => {
      const body = request.body;
      const input: Availability = {
        timezone: body.timezone,
        weekly: Object.fromEntries(WEEKDAYS.map((day) => [day, body.weekly[day] ?? []])) as Availability['weekly'],
        overrides: body.overrides ?? [],
        holidays: body.holidays ?? null,
        holidayExceptions: body.holidayExceptions ?? [],
      };
      return setAvailability(ctx, principalOf(request), request.params.userUuid, input);
    },
  );

  app.put(
    '/users/:userUuid/availability/overrides/:date',
    {
      schema: {
        tags: ['Availability'],
        summary: "Add or replace one date's override",
        description:
          "Sets the hours of one host-local date, replacing that date's weekly hours (and any earlier override of the date); " +
          'the weekly hours and the other overrides stay as they are. `{"intervals": []}` makes the date a day off. Same rules ' +
          "as the whole-week PUT (HH:MM in the host's time zone, `end` may be `24:00`, no overlaps). Responds with the whole " +
          'availability. By the user, or an admin of one of their teams. Free slots change at once on every instance.',
        security: API_KEY_SECURITY,
        params: DateOverrideParamsSchema,
        body: DateOverrideBodySchema,
        response: { 200: Type.Ref('Availability'), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => setDateOverride(ctx, principalOf(request), request.params.userUuid, request.params.date, request.body.intervals),
  );

  app.delete(
    '/users/:userUuid/availability/overrides/:date',
    {
      schema: {
        tags: ['Availability'],
        summary: "Remove one date's override",
        description:
          'The date follows the weekly hours again. 204 when removed; 404 NOT_FOUND when the date has no override (so a mistyped ' +
          'date does not pass silently). By the user, or an admin of one of their teams.',
        security: API_KEY_SECURITY,
        params: DateOverrideParamsSchema,
        response: { 204: Type.Null({ description: 'Removed.' }), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request, reply) => {
      await removeDateOverride(ctx, principalOf(request), request.params.userUuid, request.params.date);
      return reply.code(204).send(null);
    },
  );
};
