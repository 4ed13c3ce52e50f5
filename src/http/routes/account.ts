import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageOf } from '../../domain/paging.js';
import { PAGING, PageQuery } from '../schemas/paging.js';
import { Type, type Static } from 'typebox';
import type { Gateway } from '../../domain/account.js';
import { getAccount, updateAccount } from '../../scheduling/account/account.js';
import { handOverOwnership } from '../../scheduling/account/owner.js';
import { createApiKey, getApiKey, listApiKeys, revokeApiKey } from '../../scheduling/account/api-keys.js';
import type { UseCaseContext } from '../../scheduling/context.js';
import { accountToJson, apiKeyToJson } from '../representations.js';
import { principalOf } from '../request-guards.js';
import { ApiKeyListSchema, CreateApiKeyBodySchema, CreatedApiKeySchema, HandOverOwnershipBodySchema, UpdateAccountBodySchema } from '../schemas/account.js';
import { API_KEY_SECURITY, AUTHENTICATED_ERRORS, UuidParams, problemResponses } from '../schemas/common.js';
import { toIso } from '../../domain/representations.js';

type GatewayInput = Static<typeof UpdateAccountBodySchema>['gateways'];

/** The three spellings PATCH /account accepts for gateways, as one list of `{ code, settings, settingsPath }`. */
function normalizeGateways(gateways: NonNullable<GatewayInput>): { code: Gateway; settings?: object; settingsPath?: string }[] {
  if (!Array.isArray(gateways)) {
    return Object.entries(gateways).map(([code, settings]) => ({ code: code as Gateway, settings: (settings ?? {}) as object, settingsPath: `/gateways/${code}` }));
  }
  return gateways.map((gateway, index) => (typeof gateway === 'string' ? { code: gateway } : { ...gateway, settingsPath: `/gateways/${index}/settings` }));
}

/** The caller's account and the caller's own API keys. */
export const accountRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext }> = async (app, { ctx }) => {
  app.get(
    '/account',
    {
      schema: {
        tags: ['Account'],
        summary: "The caller's account",
        description: 'Its name, plan (`maxUsers`, seats used), default time zone, enabled meeting places and payment gateways (secrets never shown).',
        security: API_KEY_SECURITY,
        response: { 200: Type.Ref('Account'), ...problemResponses(...AUTHENTICATED_ERRORS) },
      },
    },
    async (request) => accountToJson(await getAccount(ctx, principalOf(request))),
  );

  app.patch(
    '/account',
    {
      schema: {
        tags: ['Account'],
        summary: 'Change the account',
        description:
          "By an admin of any of the account's teams. `places` are the meeting places the account enables; `gateways` the payment " +
          "gateways with their settings (stored, never echoed). `maxUsers` is the operator's and cannot be set here.",
        security: API_KEY_SECURITY,
        body: UpdateAccountBodySchema,
        response: { 200: Type.Ref('Account'), ...problemResponses(...AUTHENTICATED_ERRORS, 403) },
      },
    },
    async (request) => {
      const { gateways, ...rest } = request.body;
      return accountToJson(await updateAccount(ctx, principalOf(request), { ...rest, gateways: gateways === undefined ? undefined : normalizeGateways(gateways) }));
    },
  );

  app.post(
    '/account/owner',
    {
      schema: {
        tags: ['Account'],
        summary: 'Hand the account over to another owner',
        description:
          "By the owner only (403 otherwise). The new owner must be an active user of the account who is already an admin of one of its teams (400 at `/userUuid` otherwise; 404 for an unknown user). The previous owner keeps their teams and admin rights, without the owner's protection.",
        security: API_KEY_SECURITY,
        body: HandOverOwnershipBodySchema,
        response: { 200: Type.Ref('Account'), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => accountToJson(await handOverOwnership(ctx, principalOf(request), request.body.userUuid)),
  );

  app.post(
    '/api-keys',
    {
      schema: {
        tags: ['API keys'],
        summary: 'Create an API key for the caller',
        description: 'The secret `apiKey` is shown only in this response; the service stores only its hash.',
        security: API_KEY_SECURITY,
        body: CreateApiKeyBodySchema,
        response: { 201: CreatedApiKeySchema, ...problemResponses(...AUTHENTICATED_ERRORS) },
      },
    },
    async (request, reply) => {
      const created = await createApiKey(ctx, principalOf(request), request.body.name);
      return reply.code(201).send({ uuid: created.uuid, name: created.name, apiKey: created.apiKey, createdAt: toIso(created.createdAt) });
    },
  );

  app.get(
    '/api-keys',
    {
      schema: {
        tags: ['API keys'],
        summary: "The caller's live API keys",
        description: `Oldest first. ${PAGING} Secrets are never listed.`,
        security: API_KEY_SECURITY,
        querystring: PageQuery('Keys'),
        response: { 200: ApiKeyListSchema, ...problemResponses(...AUTHENTICATED_ERRORS) },
      },
    },
    async (request) => {
      const page = pageOf(await listApiKeys(ctx, principalOf(request)), (key) => [key.createdAt, key.uuid], request.query);
      return { apiKeys: page.items.map(apiKeyToJson), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/api-keys/:uuid',
    {
      schema: {
        tags: ['API keys'],
        summary: "One of the caller's live API keys",
        description: "Its name and when it was created and last used; never its secret. 404 for a revoked key or another user's.",
        security: API_KEY_SECURITY,
        params: UuidParams,
        response: { 200: Type.Ref('ApiKey'), ...problemResponses(...AUTHENTICATED_ERRORS, 404) },
      },
    },
    async (request) => apiKeyToJson(await getApiKey(ctx, principalOf(request), request.params.uuid)),
  );

  app.delete(
    '/api-keys/:uuid',
    {
      schema: {
        tags: ['API keys'],
        summary: "Revoke one of the caller's API keys",
        description: 'The key stops working at once (the key making the request may revoke itself).',
        security: API_KEY_SECURITY,
        params: UuidParams,
        response: { 204: Type.Null({ description: 'Revoked.' }), ...problemResponses(...AUTHENTICATED_ERRORS, 404) },
      },
    },
    async (request, reply) => {
      await revokeApiKey(ctx, principalOf(request), request.params.uuid);
      return reply.code(204).send(null);
    },
  );
};
