import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageOf } from '../../domain/paging.js';
import { PAGING, PageQuery } from '../schemas/paging.js';
import { Type } from 'typebox';
import { isIntegrationProvider } from '../../domain/integrations.js';
import { connectionToJson } from '../../domain/representations.js';
import { callbackNeedsAppSession, completeConnection, getConnection, listConnections, removeConnection, startConnection } from '../../scheduling/integrations/connections.js';
import type { UseCaseContext } from '../../scheduling/context.js';
import { oauthOutcomeStatus, renderOAuthOutcome } from '../pages/oauth.js';
import { sendHtml } from '../pages/html.js';
import { principalOf } from '../request-guards.js';
import { API_KEY_SECURITY, AUTHENTICATED_ERRORS, problemResponses } from '../schemas/common.js';
import { UserParams } from '../schemas/calendars.js';
import {
  ConnectionBodySchema,
  ConnectionListSchema,
  ConnectionSchema,
  OAuthCallbackParams,
  OAuthCallbackQuery,
  StartedConnectionSchema,
  UserConnectionParams,
} from '../schemas/connections.js';

const WHO = 'By the user, or an admin of one of their teams.';

/** A host's OAuth connections (conference rooms, and Google's and Microsoft's calendars). */
export const connectionRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext }> = async (app, { ctx }) => {
  app.post(
    '/users/:userUuid/connections',
    {
      schema: {
        tags: ['Connections'],
        summary: 'Connect a provider (start OAuth)',
        description:
          `${WHO} Answers the connection and \`authorizeUrl\`, where the host's browser goes to grant access; the provider sends it back to ` +
          '`/oauth/{provider}/callback`, which finishes the connection in whichever browser gets there: its page names the provider account, the ' +
          'host and the account it was connected for, and the host is e-mailed the same at once, with how to remove it. (One started in the ' +
          'web app is bound to that browser session instead; elsewhere it is refused with 403 and nothing is stored.) One connection per host and provider: for one that exists (to ' +
          'connect again after an error) the answer is 200 with a new `authorizeUrl`. 400 at `/provider` when the account has no ' +
          'configured app for the provider (`PATCH /account` `integrations`); 409 `SECRET_UNREADABLE` when its app credentials were stored under ' +
          'a secret key the server no longer has (an admin enters them again).',
        security: API_KEY_SECURITY,
        params: UserParams,
        body: ConnectionBodySchema,
        response: { 200: StartedConnectionSchema, 201: StartedConnectionSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const started = await startConnection(ctx, principalOf(request), request.params.userUuid, request.body.provider);
      return reply.code(started.created ? 201 : 200).send({ ...connectionToJson(started.connection), authorizeUrl: started.authorizeUrl });
    },
  );

  app.get(
    '/users/:userUuid/connections',
    {
      schema: {
        tags: ['Connections'],
        summary: "A user's connections",
        description: `${WHO} Oldest first. ${PAGING} A connection whose tokens no secret key of the server opens (the key was changed) reads \`status: error\`, its \`lastError\` saying to connect again.`,
        security: API_KEY_SECURITY,
        params: UserParams,
        querystring: PageQuery('Connections'),
        response: { 200: ConnectionListSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => {
      const page = pageOf(await listConnections(ctx, principalOf(request), request.params.userUuid), (connection) => [connection.createdAt, connection.uuid], request.query);
      return { connections: page.items.map(connectionToJson), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/users/:userUuid/connections/:uuid',
    {
      schema: {
        tags: ['Connections'],
        summary: 'One connection',
        description: WHO,
        security: API_KEY_SECURITY,
        params: UserConnectionParams,
        response: { 200: ConnectionSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => connectionToJson(await getConnection(ctx, principalOf(request), request.params.userUuid, request.params.uuid)),
  );

  app.delete(
    '/users/:userUuid/connections/:uuid',
    {
      schema: {
        tags: ['Connections'],
        summary: 'Disconnect a provider',
        description: `${WHO} The tokens are revoked at the provider where it offers it (and where the server can still read them and the app's credentials), and forgotten. Rooms already made stay; new meetings at the provider's place get none. The host's calendars on the connection (Google, Microsoft) are removed with it, and their busy time no longer blocks.`,
        security: API_KEY_SECURITY,
        params: UserConnectionParams,
        response: { 204: Type.Null({ description: 'Disconnected.' }), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request, reply) => {
      await removeConnection(ctx, principalOf(request), request.params.userUuid, request.params.uuid);
      return reply.code(204).send(null);
    },
  );
};

/**
 * `GET /oauth/{provider}/callback`: the page the host's browser lands on after the provider (outside /api/v1: no key, HTML).
 * A connection started in the web app is finished at `/app/oauth/{provider}/callback` (src/http/app/connections.ts),
 * where the browser's session cookie (Path=/app) is seen: this sends the browser there with the same query.
 */
export const oauthCallbackRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext }> = async (app, { ctx }) => {
  app.get('/oauth/:provider/callback', { schema: { hide: true, params: OAuthCallbackParams, querystring: OAuthCallbackQuery } }, async (request, reply) => {
    const { provider } = request.params;
    if (!isIntegrationProvider(provider)) return sendHtml(reply, 404, renderOAuthOutcome({ kind: 'refused', reason: 'There is no such provider.' }));
    const query = request.query as Record<string, string>;
    if (await callbackNeedsAppSession(ctx, query)) {
      const search = request.url.slice(request.url.indexOf('?'));
      return reply.code(303).header('location', `/app/oauth/${provider}/callback${search}`).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').send();
    }
    // Without a session: one started in the web app is refused here, should it get this far.
    const outcome = await completeConnection(ctx, provider, query, null);
    // A provider that failed is not the browser's fault either, but the page is the answer the host
    // needs (start again), and a 5xx here would page the operator for someone else's outage.
    return sendHtml(reply, oauthOutcomeStatus(outcome), renderOAuthOutcome(outcome));
  });
};
