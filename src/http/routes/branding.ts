import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { NotFoundError } from '../../domain/errors.js';
import { themeStylesheet } from '../../domain/branding.js';
import { getBranding, getLogo } from '../../scheduling/account/branding.js';
import type { UseCaseContext } from '../../scheduling/context.js';
import { problemResponses } from '../schemas/common.js';

/**
 * `GET /branding/{accountUuid}/logo`: the business's logo as termin stored it, so pages and
 * e-mails never load an image from the business's own server (no tracking, no mixed
 * content, no broken image when that server is down). Public, like the booking pages
 * that show it. The `v` the links carry is the logo's hash: a URL with the current one is
 * cached for a year (a new logo is a new URL); any other is revalidated (ETag).
 */
export const brandingRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext }> = async (app, { ctx }) => {
  app.get(
    '/branding/:accountUuid/logo',
    {
      schema: {
        tags: ['Account'],
        summary: "The business's logo, as termin serves it",
        description:
          'No key: booking pages and e-mails load it. A PNG, JPEG, WebP or GIF of at most 512 kB, fetched once from `branding.logoUrl` (`PATCH /account`). ' +
          'Link to `branding.logo` from `GET /account`: its `v` changes with the logo, and such a URL is cached for a year. 404 when the account has no logo.',
        params: Type.Object({ accountUuid: Type.String({ format: 'uuid' }) }),
        querystring: Type.Object({ v: Type.Optional(Type.String({ maxLength: 64, description: "The logo's version, as `branding.logo` carries it." })) }),
        response: {
          200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'The image (image/png, image/jpeg, image/webp or image/gif).' }),
          304: Type.Null({ description: 'Not modified (If-None-Match).' }),
          ...problemResponses(400, 404),
        },
      },
    },
    async (request, reply) => {
      const logo = await getLogo(ctx, request.params.accountUuid);
      if (!logo) throw new NotFoundError('logo');
      const etag = `"${logo.hash.slice(0, 32)}"`;
      const current = request.query.v !== undefined && logo.hash.startsWith(request.query.v) && request.query.v.length >= 16;
      reply
        .header('etag', etag)
        .header('cache-control', current ? 'public, max-age=31536000, immutable' : 'public, max-age=300')
        .header('x-content-type-options', 'nosniff')
        // An image, never a document: nothing in it may run even if opened directly.
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('cross-origin-resource-policy', 'cross-origin');
      if (request.headers['if-none-match'] === etag) return reply.code(304).send(null);
      return reply.code(200).type(logo.type).send(logo.bytes);
    },
  );

  app.get(
    '/branding/:accountUuid/theme.css',
    {
      schema: {
        tags: ['Account'],
        summary: "The pages' stylesheet of the business's accent colour",
        description:
          "No key. Sets the booking, manage and pay pages' accent to `branding.accentColorUsed` (never the raw colour: white text on it keeps 4.5:1). " +
          "A stylesheet, not inline style: the pages' Content-Security-Policy allows styles from termin only. 404 when the account set no colour.",
        params: Type.Object({ accountUuid: Type.String({ format: 'uuid' }) }),
        querystring: Type.Object({ v: Type.Optional(Type.String({ maxLength: 16, description: 'The colour the page asked for (cache key).' })) }),
        response: { 200: Type.String({ description: 'text/css' }), ...problemResponses(400, 404) },
      },
    },
    async (request, reply) => {
      const branding = await getBranding(ctx, request.params.accountUuid);
      if (branding.accentColor === null) throw new NotFoundError('theme');
      const current = request.query.v === branding.accent.slice(1);
      return reply
        .code(200)
        .type('text/css; charset=utf-8')
        .header('cache-control', current ? 'public, max-age=31536000, immutable' : 'public, max-age=300')
        .header('x-content-type-options', 'nosniff')
        .send(themeStylesheet(branding.accent));
    },
  );
};
