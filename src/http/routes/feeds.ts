import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { NotFoundError } from '../../domain/errors.js';
import { renderFeedOfToken } from '../../scheduling/calendars/calendars.js';
import type { UseCaseContext } from '../../scheduling/context.js';

/**
 * `GET /feeds/{token}.ics`: a host's private meetings feed for calendar apps (no key: the
 * token is the key). Unknown or rotated tokens are a 404 like any unknown page.
 */
export const feedRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext }> = async (app, { ctx }) => {
  app.get(
    '/feeds/:file',
    {
      schema: {
        hide: true,
        params: Type.Object({ file: Type.String({ maxLength: 200 }) }),
      },
    },
    async (request, reply) => {
      const match = /^(.+)\.ics$/.exec(request.params.file);
      const text = match ? await renderFeedOfToken(ctx, match[1]!) : undefined;
      if (text === undefined) throw new NotFoundError('feed');
      return reply
        .code(200)
        .type('text/calendar; charset=utf-8')
        .header('cache-control', 'private, max-age=300')
        .header('x-robots-tag', 'noindex')
        .header('x-content-type-options', 'nosniff')
        .send(text);
    },
  );
};
