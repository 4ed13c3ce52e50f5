import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { userToJson } from '../../domain/representations.js';
import { updateUserProfile } from '../../scheduling/account/profile.js';
import type { UseCaseContext } from '../../scheduling/context.js';
import { principalOf } from '../request-guards.js';
import { API_KEY_SECURITY, AUTHENTICATED_ERRORS, Uuid, problemResponses } from '../schemas/common.js';
import { UpdateUserBodySchema } from '../schemas/teams.js';

/** A user's own record, beside their team memberships (teams.ts) and hours (availability.ts). */
export const userRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext }> = async (app, { ctx }) => {
  app.patch(
    '/users/:userUuid',
    {
      schema: {
        tags: ['Teams'],
        summary: "Change a user's username or language",
        description:
          'By the user, or an admin of one of their teams (403 otherwise; 404 for a user of another account or a deactivated one). ' +
          'A new `username` changes every booking link of the user (`/book/{username}/…`); the old ones answer 301 to the new ones. ' +
          '`language` is the language of the e-mails termin sends the user as a host or member, whatever language the participant chose.',
        security: API_KEY_SECURITY,
        params: Type.Object({ userUuid: Uuid }),
        body: UpdateUserBodySchema,
        response: { 200: Type.Ref('User'), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404, 409) },
      },
    },
    async (request) => userToJson(await updateUserProfile(ctx, principalOf(request), request.params.userUuid, request.body)),
  );
};
