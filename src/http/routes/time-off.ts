import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { toIso } from '../../domain/representations.js';
import type { UseCaseContext } from '../../scheduling/context.js';
import { addTimeOff, getTimeOff, listTimeOff, removeTimeOff, type TimeOffView } from '../../scheduling/topics/time-off.js';
import { principalOf } from '../request-guards.js';
import { API_KEY_SECURITY, AUTHENTICATED_ERRORS, Uuid, problemResponses } from '../schemas/common.js';
import { TimeOffBodySchema, TimeOffCreatedSchema, TimeOffSchema } from '../schemas/time-off.js';

const UserParams = Type.Object({ userUuid: Uuid });
const TimeOffParams = Type.Object({ userUuid: Uuid, uuid: Uuid });
const WHO = 'By the user, or an admin of one of their teams (as for `…/availability`).';

export function timeOffToJson(timeOff: TimeOffView) {
  return { uuid: timeOff.uuid, start: toIso(timeOff.start), end: toIso(timeOff.end), reason: timeOff.reason, delegate: timeOff.delegate, createdAt: toIso(timeOff.createdAt) };
}

export const timeOffRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext }> = async (app, { ctx }) => {
  app.post(
    '/users/:userUuid/time-off',
    {
      schema: {
        tags: ['Availability'],
        summary: 'Take time off, with an optional stand-in',
        description:
          'The user is offered nowhere in [`start`, `end`) (POST /explain-schedule says `TIME_OFF`), on every topic and every schedule. ' +
          "With `delegate`, a team topic's round robin offers the stand-in where it would have offered the user. Meetings already booked " +
          "in the span stay booked and are listed in `conflicts`. Taken under the user's lock, as a booking is: a booking either commits " +
          `first (and is a conflict) or is refused. ${WHO}`,
        security: API_KEY_SECURITY,
        params: UserParams,
        body: TimeOffBodySchema,
        response: { 201: TimeOffCreatedSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
      config: { location: '/api/v1/users/{userUuid}/time-off/{timeOff.uuid}' },
    },
    async (request, reply) => {
      const body = request.body;
      const created = await addTimeOff(ctx, principalOf(request), request.params.userUuid, {
        start: Date.parse(body.start),
        end: Date.parse(body.end),
        reason: body.reason,
        delegate: body.delegate,
      });
      return reply.code(201).send({
        timeOff: timeOffToJson(created.timeOff),
        conflicts: created.conflicts.map((conflict) => ({ uuid: conflict.uuid, meetingTopic: conflict.meetingTopic, start: toIso(conflict.start), end: toIso(conflict.end) })),
      });
    },
  );

  app.get(
    '/users/:userUuid/time-off',
    {
      schema: {
        tags: ['Availability'],
        summary: "A user's time off",
        description: `The time off that has not ended yet, soonest first. ${WHO}`,
        security: API_KEY_SECURITY,
        params: UserParams,
        response: { 200: Type.Object({ timeOff: Type.Array(TimeOffSchema) }), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => ({ timeOff: (await listTimeOff(ctx, principalOf(request), request.params.userUuid)).map(timeOffToJson) }),
  );

  app.get(
    '/users/:userUuid/time-off/:uuid',
    {
      schema: {
        tags: ['Availability'],
        operationId: 'getUserTimeOffEntry',
        summary: 'One time off',
        description: `The time off as POST answered it (the created resource's \`Location\`); 404 when there is no such time off of the user. ${WHO}`,
        security: API_KEY_SECURITY,
        params: TimeOffParams,
        response: { 200: TimeOffSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => timeOffToJson(await getTimeOff(ctx, principalOf(request), request.params.userUuid, request.params.uuid)),
  );

  app.delete(
    '/users/:userUuid/time-off/:uuid',
    {
      schema: {
        tags: ['Availability'],
        summary: 'Remove a time off',
        description: `The user is offered in that span again. 204 when removed; 404 when there is no such time off of the user. ${WHO}`,
        security: API_KEY_SECURITY,
        params: TimeOffParams,
        response: { 204: Type.Null({ description: 'Removed.' }), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request, reply) => {
      await removeTimeOff(ctx, principalOf(request), request.params.userUuid, request.params.uuid);
      return reply.code(204).send(null);
    },
  );
};
