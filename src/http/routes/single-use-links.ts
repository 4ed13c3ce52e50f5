import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { toIso } from '../../domain/representations.js';
import type { UseCaseContext } from '../../scheduling/context.js';
import { SINGLE_USE_DAYS, createSingleUseLink, listSingleUseLinks } from '../../scheduling/topics/single-use-links.js';
import { principalOf } from '../request-guards.js';
import { API_KEY_SECURITY, AUTHENTICATED_ERRORS, Timestamp, Uuid, UuidParams, problemResponses } from '../schemas/common.js';

const WHO = "By a host of the topic, or whoever may change it (its creator, its hosts' team admins; a team topic's admins).";

export const singleUseLinkRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext }> = async (app, { ctx }) => {
  app.post(
    '/meeting-topics/:uuid/single-use-links',
    {
      schema: {
        tags: ['Meeting topics'],
        summary: 'Make a single-use booking link',
        description:
          "A link (`{PUBLIC_URL}/book/once/{token}`) that opens the topic's booking page, also for a topic that is not public, and books it " +
          'once: the booking uses the link up in its own transaction, so of two participants booking through it at the same moment exactly one ' +
          'gets a meeting (the other 410 LINK_GONE). After that booking, or after `expiresAt`, the page answers 410 with a friendly page. ' +
          `Only the token's hash is stored: the URL is shown here once. ${WHO}`,
        security: API_KEY_SECURITY,
        params: UuidParams,
        body: Type.Object(
          {
            expiresInDays: Type.Optional(
              Type.Integer({
                minimum: SINGLE_USE_DAYS.min,
                maximum: SINGLE_USE_DAYS.max,
                default: SINGLE_USE_DAYS.default,
                description: 'Days until the link expires (default 7).',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({ uuid: Uuid, url: Type.String({ format: 'uri' }), expiresAt: Timestamp, createdAt: Timestamp }, { title: 'SingleUseLinkCreated' }),
          ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const link = await createSingleUseLink(ctx, principalOf(request), request.params.uuid, request.body?.expiresInDays);
      return reply.code(201).send({ uuid: link.uuid, url: link.url, expiresAt: toIso(link.expiresAt), createdAt: toIso(link.createdAt) });
    },
  );

  app.get(
    '/meeting-topics/:uuid/single-use-links',
    {
      schema: {
        tags: ['Meeting topics'],
        summary: "A topic's unused single-use links",
        description: `The links neither used nor expired, newest first; without their URLs (only a hash of each token is kept). ${WHO}`,
        security: API_KEY_SECURITY,
        params: UuidParams,
        response: {
          200: Type.Object({ links: Type.Array(Type.Object({ uuid: Uuid, createdAt: Timestamp, expiresAt: Timestamp }, { title: 'SingleUseLink' })) }),
          ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404),
        },
      },
    },
    async (request) => ({
      links: (await listSingleUseLinks(ctx, principalOf(request), request.params.uuid)).map((link) => ({
        uuid: link.uuid,
        createdAt: toIso(link.createdAt),
        expiresAt: toIso(link.expiresAt),
      })),
    }),
  );
};
