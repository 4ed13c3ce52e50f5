import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageOf } from '../../domain/paging.js';
import { PAGING } from '../schemas/paging.js';
import { Type } from 'typebox';
import { isPaidTopic, type MeetingTopic } from '../../domain/meeting-topic.js';
import type { UseCaseContext } from '../../scheduling/context.js';
import { createMeetingTopic, deleteMeetingTopic, getMeetingTopic, listMeetingTopics, updateMeetingTopic } from '../../scheduling/topics/meeting-topics.js';
import { toIso } from '../../domain/representations.js';
import { principalOf } from '../request-guards.js';
import { API_KEY_SECURITY, AUTHENTICATED_ERRORS, UuidParams, problemResponses } from '../schemas/common.js';
import { CreateTopicBodySchema, MeetingTopicListSchema, MeetingTopicQuerySchema, UpdateTopicBodySchema } from '../schemas/meeting-topics.js';

export function topicToJson(topic: MeetingTopic) {
  return {
    uuid: topic.uuid,
    name: topic.name,
    durationMinutes: topic.durationMinutes,
    durations: topic.durations,
    allowGuests: topic.allowGuests,
    slotIntervalMinutes: topic.slotIntervalMinutes,
    bufferBeforeMinutes: topic.bufferBeforeMinutes,
    bufferAfterMinutes: topic.bufferAfterMinutes,
    minimumNoticeMinutes: topic.minimumNoticeMinutes,
    bookingWindowDays: topic.bookingWindowDays,
    dailyLimit: topic.dailyLimit,
    weeklyLimit: topic.weeklyLimit,
    monthlyLimit: topic.monthlyLimit,
    schedule: topic.schedule,
    hostSchedules: topic.hostSchedules,
    places: topic.places,
    phoneRequired: topic.phoneRequired,
    requiresApproval: topic.requiresApproval,
    approvalDeadlineHours: topic.approvalDeadlineHours,
    seats: topic.seats,
    hostWeights: topic.hostWeights,
    assignment: topic.assignment,
    reminders: topic.reminders,
    price: topic.price,
    priceVariants: topic.priceVariants,
    form: topic.form,
    placeDetails: topic.placeDetails,
    description: topic.description,
    confirmationMessage: topic.confirmationMessage,
    translations: topic.translations,
    public: topic.public,
    slug: topic.slug,
    cancellationNoticeMinutes: topic.cancellationNoticeMinutes,
    team: topic.teamUuid,
    hosts: topic.hosts.map((host) => host.username),
    allTeamMembers: topic.allTeamMembers,
    paid: isPaidTopic(topic),
    createdAt: toIso(topic.createdAt),
    updatedAt: toIso(topic.updatedAt),
  };
}

export const meetingTopicRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext }> = async (app, { ctx }) => {
  app.post(
    '/meeting-topics',
    {
      schema: {
        tags: ['Meeting topics'],
        summary: 'Create a meeting topic',
        description:
          'Any user may create individual topics hosted by themselves; admins may also name members of their teams as hosts, and ' +
          "create team topics (`team`) hosted by the team's members. A topic with a `price` or `priceVariants` is paid.",
        security: API_KEY_SECURITY,
        body: CreateTopicBodySchema,
        response: { 201: Type.Ref('MeetingTopic'), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404, 409) },
      },
    },
    async (request, reply) => reply.code(201).send(topicToJson(await createMeetingTopic(ctx, principalOf(request), request.body))),
  );

  app.get(
    '/meeting-topics',
    {
      schema: {
        tags: ['Meeting topics'],
        summary: "The account's meeting topics",
        description: `Oldest first. Filter by \`team\` uuid or by host \`username\`. ${PAGING}`,
        security: API_KEY_SECURITY,
        querystring: MeetingTopicQuerySchema,
        response: { 200: MeetingTopicListSchema, ...problemResponses(...AUTHENTICATED_ERRORS) },
      },
    },
    async (request) => {
      const page = pageOf(await listMeetingTopics(ctx, principalOf(request), request.query), (topic) => [topic.createdAt, topic.uuid], request.query);
      return { meetingTopics: page.items.map(topicToJson), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/meeting-topics/:uuid',
    {
      schema: {
        tags: ['Meeting topics'],
        summary: 'One meeting topic',
        description: 'Any key of the account may read it; 404 for a topic of another account.',
        security: API_KEY_SECURITY,
        params: UuidParams,
        response: { 200: Type.Ref('MeetingTopic'), ...problemResponses(...AUTHENTICATED_ERRORS, 404) },
      },
    },
    async (request) => topicToJson(await getMeetingTopic(ctx, principalOf(request), request.params.uuid)),
  );

  app.patch(
    '/meeting-topics/:uuid',
    {
      schema: {
        tags: ['Meeting topics'],
        summary: 'Change a meeting topic',
        description: "Fields left out keep their values. A topic's team cannot change. Existing meetings are not affected.",
        security: API_KEY_SECURITY,
        params: UuidParams,
        body: UpdateTopicBodySchema,
        response: { 200: Type.Ref('MeetingTopic'), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404, 409) },
      },
    },
    async (request) => topicToJson(await updateMeetingTopic(ctx, principalOf(request), request.params.uuid, request.body)),
  );

  app.delete(
    '/meeting-topics/:uuid',
    {
      schema: {
        tags: ['Meeting topics'],
        summary: 'Delete a meeting topic',
        description: 'It can no longer be booked; meetings already booked are kept.',
        security: API_KEY_SECURITY,
        params: UuidParams,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request, reply) => {
      await deleteMeetingTopic(ctx, principalOf(request), request.params.uuid);
      return reply.code(204).send(null);
    },
  );
};
