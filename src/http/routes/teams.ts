import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { addTeamMember, createTeam, listTeamMembers, listTeams, removeTeamMember } from '../../scheduling/account/teams.js';
import type { UseCaseContext } from '../../scheduling/context.js';
import { getTeamMember, updateTeamMember } from '../../scheduling/account/members.js';
import { memberToJson, teamToJson } from '../../domain/representations.js';
import { principalOf } from '../request-guards.js';
import { pickLang } from '../pages/i18n.js';
import { API_KEY_SECURITY, AUTHENTICATED_ERRORS, TeamUuidParams, problemResponses } from '../schemas/common.js';
import { CreateMemberBodySchema, CreateTeamBodySchema, MemberListSchema, MemberParamsSchema, TeamListSchema, UpdateMemberBodySchema } from '../schemas/teams.js';
import { Type } from 'typebox';
import { pageOf } from '../../domain/paging.js';
import { PAGING, PageQuery } from '../schemas/paging.js';

/** Teams and their members. */
export const teamRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext }> = async (app, { ctx }) => {
  app.get(
    '/teams',
    {
      schema: {
        tags: ['Teams'],
        summary: 'List the teams the caller administers',
        description: `Only teams in which the key's user is an admin, oldest first (by creation, the same order on every database). ${PAGING}`,
        security: API_KEY_SECURITY,
        querystring: PageQuery('Teams'),
        response: { 200: TeamListSchema, ...problemResponses(...AUTHENTICATED_ERRORS) },
      },
    },
    async (request) => {
      const page = pageOf(await listTeams(ctx, principalOf(request)), (team) => [team.createdAt, team.uuid], request.query);
      return { teams: page.items.map(teamToJson), nextCursor: page.nextCursor };
    },
  );

  app.post(
    '/teams',
    {
      schema: {
        tags: ['Teams'],
        summary: 'Create a team',
        description: "By an admin of any team of the account; the caller becomes the new team's first admin.",
        security: API_KEY_SECURITY,
        body: CreateTeamBodySchema,
        response: { 201: Type.Ref('Team'), ...problemResponses(...AUTHENTICATED_ERRORS, 403) },
      },
    },
    async (request, reply) => reply.code(201).send(teamToJson(await createTeam(ctx, principalOf(request), request.body.name))),
  );

  app.get(
    '/teams/:teamUuid/users',
    {
      schema: {
        tags: ['Teams'],
        summary: 'List the members of a team',
        description: `The caller must be an admin of the team (403 otherwise; 404 for a team of another account). Oldest user first (by creation). ${PAGING}`,
        security: API_KEY_SECURITY,
        params: TeamUuidParams,
        querystring: PageQuery('Members'),
        response: { 200: MemberListSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => {
      const page = pageOf(await listTeamMembers(ctx, principalOf(request), request.params.teamUuid), (member) => [member.createdAt, member.uuid], request.query);
      return { users: page.items.map(memberToJson), nextCursor: page.nextCursor };
    },
  );

  app.post(
    '/teams/:teamUuid/users',
    {
      schema: {
        tags: ['Teams'],
        summary: 'Create a member in a team',
        description:
          'The e-mail is trimmed and compared case-insensitively within the account: a person who is already a user of the account ' +
          'is added to the team without using a new seat (409 ALREADY_MEMBER if already in this team). Adding a person who is already a ' +
          "member of other teams needs the caller to be an admin of one of those teams, or the account's owner (403 FORBIDDEN otherwise): " +
          "this team's admins would then manage their hours, topics, connections and feed. A new user gets a unique " +
          "username made from their names, the account's time zone and Monday–Friday 09:00–17:00 availability, " +
          'and an invitation e-mail naming the account, the team and the caller, with a single-use link to sign in to the web app (`{PUBLIC_URL}/app/login/…`, valid 7 days), ' +
          'in the language of `Accept-Language` (any of en, pl, de, uk, es, fr; else English). A person already a user of the account (even one deactivated) gets no invitation. ' +
          "403 PLAN_LIMIT_REACHED when the account's plan has no free seat.",
        security: API_KEY_SECURITY,
        params: TeamUuidParams,
        body: CreateMemberBodySchema,
        response: { 201: Type.Ref('Member'), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      // The new member's invitation is written in the caller's language (Accept-Language: pl), else English.
      const member = await addTeamMember(ctx, principalOf(request), request.params.teamUuid, request.body, { lang: pickLang(undefined, request.headers['accept-language']) });
      return reply.code(201).send(memberToJson(member));
    },
  );

  app.get(
    '/teams/:teamUuid/users/:userUuid',
    {
      schema: {
        tags: ['Teams'],
        summary: 'A member of a team',
        description: 'By an admin of the team (403 otherwise); 404 for a user who is not a member of this team, or a team of another account.',
        security: API_KEY_SECURITY,
        params: MemberParamsSchema,
        response: { 200: Type.Ref('Member'), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => memberToJson(await getTeamMember(ctx, principalOf(request), request.params.teamUuid, request.params.userUuid)),
  );

  app.patch(
    '/teams/:teamUuid/users/:userUuid',
    {
      schema: {
        tags: ['Teams'],
        summary: 'Edit a member: rename them, or grant or take away admin',
        description:
          'By an admin of the team. Only the fields sent change. `firstName`/`lastName` rename the user everywhere (their ' +
          "`username` stays as it is, so booking links and scheduling calls keep working; PATCH /users/{userUuid} changes it); `admin` is this team's admin right. " +
          'Taking it from the last admin is 409 LAST_ADMIN: to leave a team, make another member an admin first. ' +
          '404 for a user who is not a member of this team.',
        security: API_KEY_SECURITY,
        params: MemberParamsSchema,
        body: UpdateMemberBodySchema,
        response: { 200: Type.Ref('Member'), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404, 409) },
      },
    },
    async (request) => memberToJson(await updateTeamMember(ctx, principalOf(request), request.params.teamUuid, request.params.userUuid, request.body)),
  );

  app.delete(
    '/teams/:teamUuid/users/:userUuid',
    {
      schema: {
        tags: ['Teams'],
        summary: 'Delete a member from a team',
        description:
          'Removes the membership. A user left in no team is deactivated: their seat is freed, their keys stop working and they ' +
          'no longer appear as a host; their meetings are kept. 409 LAST_ADMIN if the team would be left without an admin.',
        security: API_KEY_SECURITY,
        params: MemberParamsSchema,
        response: { 204: Type.Null({ description: 'Removed.' }), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await removeTeamMember(ctx, principalOf(request), request.params.teamUuid, request.params.userUuid);
      return reply.code(204).send(null);
    },
  );
};
