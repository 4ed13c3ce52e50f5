import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { UseCaseContext } from '../../scheduling/context.js';
import { getUserPlaceDetails, setUserPlaceDetails } from '../../scheduling/topics/place-details.js';
import { principalOf } from '../request-guards.js';
import { API_KEY_SECURITY, AUTHENTICATED_ERRORS, Uuid, problemResponses } from '../schemas/common.js';
import { PlaceDetailsRecordSchema, PlaceDetailsSchema } from '../schemas/place-details.js';

const UserParams = Type.Object({ userUuid: Uuid });

/** A host's own place details: `GET|PUT /users/{userUuid}/place-details`. */
export const placeDetailsRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext }> = async (app, { ctx }) => {
  app.get(
    '/users/:userUuid/place-details',
    {
      schema: {
        tags: ['Availability'],
        summary: "A host's own place details",
        description: "The host's own address, meeting-room links or number per place (`{}` when none). By the user, or an admin of one of their teams.",
        security: API_KEY_SECURITY,
        params: UserParams,
        response: { 200: PlaceDetailsRecordSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => getUserPlaceDetails(ctx, principalOf(request), request.params.userUuid),
  );

  app.put(
    '/users/:userUuid/place-details',
    {
      schema: {
        tags: ['Availability'],
        summary: "Replace a host's own place details",
        description:
          'The body is the whole set, e.g. `{ "zoom": "https://zoom.us/j/123", "offline": "ul. Prosta 1, Warszawa" }` (`{}` clears it); responds with it. ' +
          "Each key must be a place the account enables (400 at `/<place>` otherwise); an online place's value must be an https:// link; one line, " +
          "at most 500 characters each. Meetings booked with this host from now on take the host's detail for their place before the topic's; " +
          'meetings already booked keep the location they were booked with. By the user, or an admin of one of their teams.',
        security: API_KEY_SECURITY,
        params: UserParams,
        body: PlaceDetailsSchema,
        response: { 200: PlaceDetailsRecordSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => setUserPlaceDetails(ctx, principalOf(request), request.params.userUuid, request.body),
  );
};
