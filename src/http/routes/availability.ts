import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { WEEKDAYS, type Availability } from '../../domain/availability.js';
import { getAvailability, setAvailability } from '../../scheduling/availability.js';
import type { UseCaseContext } from '../../scheduling/context.js';
import { principalOf } from '../request-guards.js';
import { AvailabilityBodySchema } from '../schemas/availability.js';
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
          'Local wall-clock intervals in the host\'s IANA `timezone` (which becomes the user\'s time zone), applied across ' +
          'daylight-saving changes; `end` may be `24:00`; intervals of one day must not overlap (touching is fine, and touching ' +
          'intervals, across midnight too, form one continuous stretch). An override replaces that date\'s weekly hours.',
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
      };
      return setAvailability(ctx, principalOf(request), request.params.userUuid, input);
    },
  );
};
