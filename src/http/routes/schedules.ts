import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { WEEKDAYS, type Availability } from '../../domain/availability.js';
import { toIso } from '../../domain/representations.js';
import type { Schedule } from '../../domain/schedule.js';
import type { UseCaseContext } from '../../scheduling/context.js';
import {
  createSchedule,
  getHostLimits,
  getSchedule,
  listSchedules,
  removeSchedule,
  replaceSchedule,
  setHostLimits,
  type ScheduleInput,
} from '../../scheduling/topics/schedules.js';
import { principalOf } from '../request-guards.js';
import { HostLimitsSchema, ScheduleBodySchema, ScheduleParamsSchema, ScheduleSchema } from '../schemas/availability.js';
import { API_KEY_SECURITY, AUTHENTICATED_ERRORS, Uuid, problemResponses } from '../schemas/common.js';
import type { Static } from 'typebox';

const UserParams = Type.Object({ userUuid: Uuid });
const WHO = 'By the user, or an admin of one of their teams (as for `…/availability`).';

function scheduleToJson(schedule: Schedule) {
  return {
    uuid: schedule.uuid,
    name: schedule.name,
    timezone: schedule.timezone,
    weekly: schedule.weekly,
    overrides: schedule.overrides,
    ...(schedule.holidays !== undefined || schedule.holidayExceptions !== undefined
      ? { holidays: schedule.holidays ?? null, holidayExceptions: schedule.holidayExceptions ?? [] }
      : {}),
    createdAt: toIso(schedule.createdAt),
    updatedAt: toIso(schedule.updatedAt),
  };
}

function scheduleInputOf(body: Static<typeof ScheduleBodySchema>): ScheduleInput {
  return {
    name: body.name,
    timezone: body.timezone,
    weekly: Object.fromEntries(WEEKDAYS.map((day) => [day, body.weekly[day] ?? []])) as Availability['weekly'],
    overrides: body.overrides ?? [],
    holidays: body.holidays ?? null,
    holidayExceptions: body.holidayExceptions ?? [],
  };
}

export const scheduleRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext }> = async (app, { ctx }) => {
  app.post(
    '/users/:userUuid/schedules',
    {
      schema: {
        tags: ['Availability'],
        summary: 'Add a named schedule',
        description:
          "Hours beside the user's default ones (`…/availability`, which stays the default): same shape and rules (HH:MM in the " +
          "schedule's own `timezone`, `end` may be `24:00`, no overlaps; overrides replace a date's hours). A topic uses it by naming " +
          'it: `schedule` (individual topics) or `hostSchedules` (`{ username: uuid }`, team topics). Whatever hours a topic uses, ' +
          `every meeting of the host blocks them on every topic. At most 50 per user. ${WHO}`,
        security: API_KEY_SECURITY,
        params: UserParams,
        body: ScheduleBodySchema,
        response: { 201: ScheduleSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request, reply) => reply.code(201).send(scheduleToJson(await createSchedule(ctx, principalOf(request), request.params.userUuid, scheduleInputOf(request.body)))),
  );

  app.get(
    '/users/:userUuid/schedules',
    {
      schema: {
        tags: ['Availability'],
        summary: "A user's named schedules",
        description: `Oldest first; the default hours are \`…/availability\`. ${WHO}`,
        security: API_KEY_SECURITY,
        params: UserParams,
        response: { 200: Type.Object({ schedules: Type.Array(ScheduleSchema) }), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => ({ schedules: (await listSchedules(ctx, principalOf(request), request.params.userUuid)).map(scheduleToJson) }),
  );

  app.get(
    '/users/:userUuid/schedules/:scheduleUuid',
    {
      schema: {
        tags: ['Availability'],
        summary: 'One named schedule',
        description: WHO,
        security: API_KEY_SECURITY,
        params: ScheduleParamsSchema,
        response: { 200: ScheduleSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => scheduleToJson(await getSchedule(ctx, principalOf(request), request.params.userUuid, request.params.scheduleUuid)),
  );

  app.put(
    '/users/:userUuid/schedules/:scheduleUuid',
    {
      schema: {
        tags: ['Availability'],
        summary: 'Replace a named schedule',
        description: `Name and hours as a whole, as when created. The topics using it offer the new hours at once, on every instance. ${WHO}`,
        security: API_KEY_SECURITY,
        params: ScheduleParamsSchema,
        body: ScheduleBodySchema,
        response: { 200: ScheduleSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => scheduleToJson(await replaceSchedule(ctx, principalOf(request), request.params.userUuid, request.params.scheduleUuid, scheduleInputOf(request.body))),
  );

  app.delete(
    '/users/:userUuid/schedules/:scheduleUuid',
    {
      schema: {
        tags: ['Availability'],
        summary: 'Delete a named schedule',
        description:
          '204 when deleted. A schedule that live topics use is 409 SCHEDULE_IN_USE, naming them: their hours would otherwise switch ' +
          `to the default ones unseen; choose another schedule there (or \`null\`) first. ${WHO}`,
        security: API_KEY_SECURITY,
        params: ScheduleParamsSchema,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await removeSchedule(ctx, principalOf(request), request.params.userUuid, request.params.scheduleUuid);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/users/:userUuid/limits',
    {
      schema: {
        tags: ['Availability'],
        summary: "A host's own limits across topics",
        description: `The most meetings the host takes per day and per calendar week, whatever the topic. ${WHO}`,
        security: API_KEY_SECURITY,
        params: UserParams,
        response: { 200: HostLimitsSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => getHostLimits(ctx, principalOf(request), request.params.userUuid),
  );

  app.put(
    '/users/:userUuid/limits',
    {
      schema: {
        tags: ['Availability'],
        summary: "Set a host's own limits across topics",
        description:
          "Counted in the host's time zone (that of `…/availability`): `daily` per calendar day, `weekly` per calendar week, Monday " +
          "first (a week with a clock change included). Every meeting holding the host's time counts (confirmed, or held for payment " +
          'or approval), whatever its topic; remote calendar events do not. A day or week that is full offers no slot of any topic, ' +
          'and a booking (all its dates counted together) is refused with SLOT_UNAVAILABLE. Topics keep their own `dailyLimit`, ' +
          `\`weeklyLimit\` and \`monthlyLimit\` besides. Views change at once on every instance. ${WHO}`,
        security: API_KEY_SECURITY,
        params: UserParams,
        body: HostLimitsSchema,
        response: { 200: HostLimitsSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => setHostLimits(ctx, principalOf(request), request.params.userUuid, request.body),
  );
};
