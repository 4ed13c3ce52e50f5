import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  listWebhooks,
  retryWebhookDelivery,
  rotateWebhookSecret,
  updateWebhook,
} from '../../scheduling/webhooks/subscriptions.js';
import type { WebhookDelivery, WebhookSubscription } from '../../domain/webhook.js';
import { toIso } from '../../domain/representations.js';
import type { UseCaseContext } from '../../scheduling/context.js';
import { principalOf } from '../request-guards.js';
import { API_KEY_SECURITY, AUTHENTICATED_ERRORS, UuidParams, problemResponses } from '../schemas/common.js';
import {
  CreateWebhookBodySchema,
  CreatedWebhookSchema,
  DeliveryListQuerySchema,
  DeliveryListSchema,
  DeliveryParamsSchema,
  DeliverySchema,
  UpdateWebhookBodySchema,
  WebhookListQuerySchema,
  WebhookListSchema,
  WebhookSchema,
} from '../schemas/webhooks.js';

const ABOUT_DELIVERIES =
  'Each event is POSTed as JSON `{ "type", "timestamp", "data" }` (`data`: the record the API returns for the meeting, payment ' +
  "or member) with the Standard Webhooks headers `webhook-id` (the delivery's uuid, the same on every retry: deduplicate on it), " +
  '`webhook-timestamp` and `webhook-signature`. Any 2xx within 10 seconds delivers it; redirects are not followed. Otherwise it is ' +
  'retried with exponential backoff from WEBHOOK_RETRY_BASE_SECONDS (5 s, 10 s, 20 s … at most an hour apart, with jitter) for 24 ' +
  "hours. A webhook whose deliveries have all failed for 3 days is disabled and the account's admins are e-mailed.";

function webhookToJson(webhook: WebhookSubscription) {
  return {
    uuid: webhook.uuid,
    url: webhook.url,
    events: webhook.events,
    description: webhook.description,
    enabled: webhook.enabled,
    failingSince: webhook.failingSince === null ? null : toIso(webhook.failingSince),
    disabledAt: webhook.disabledAt === null ? null : toIso(webhook.disabledAt),
    createdAt: toIso(webhook.createdAt),
  };
}

function deliveryToJson(delivery: WebhookDelivery) {
  return {
    uuid: delivery.uuid,
    event: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    responseStatus: delivery.responseStatus,
    nextAttemptAt: delivery.status === 'pending' && delivery.nextAttemptAt !== null ? toIso(delivery.nextAttemptAt) : null,
    createdAt: toIso(delivery.createdAt),
    lastAttemptAt: delivery.lastAttemptAt === null ? null : toIso(delivery.lastAttemptAt),
    lastError: delivery.lastError,
    eventUuid: delivery.eventUuid,
  };
}

/** Webhook subscriptions and their delivery logs, managed by the account's team admins. */
export const webhookRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext }> = async (app, { ctx }) => {
  app.post(
    '/webhooks',
    {
      schema: {
        tags: ['Webhooks'],
        summary: 'Create a webhook',
        description: `By an admin of any team of the account. The answer carries the signing secret, shown only here. ${ABOUT_DELIVERIES}`,
        security: API_KEY_SECURITY,
        body: CreateWebhookBodySchema,
        response: { 201: CreatedWebhookSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403) },
      },
    },
    async (request, reply) => {
      const { webhook, secret } = await createWebhook(ctx, principalOf(request), request.body);
      return reply.code(201).send({ ...webhookToJson(webhook), secret });
    },
  );

  app.get(
    '/webhooks',
    {
      schema: {
        tags: ['Webhooks'],
        summary: "The account's webhooks",
        description: 'Oldest first, in pages of `limit` (default 50, at most 200); pass `nextCursor` as `cursor` for the next page. Secrets are never shown again.',
        security: API_KEY_SECURITY,
        querystring: WebhookListQuerySchema,
        response: { 200: WebhookListSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403) },
      },
    },
    async (request) => {
      const page = await listWebhooks(ctx, principalOf(request), request.query);
      return { webhooks: page.items.map(webhookToJson), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/webhooks/:uuid',
    {
      schema: {
        tags: ['Webhooks'],
        summary: 'One webhook',
        description: 'By an admin. The signing secret is never shown again after creation.',
        security: API_KEY_SECURITY,
        params: UuidParams,
        response: { 200: WebhookSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => webhookToJson(await getWebhook(ctx, principalOf(request), request.params.uuid)),
  );

  app.patch(
    '/webhooks/:uuid',
    {
      schema: {
        tags: ['Webhooks'],
        summary: 'Change a webhook',
        description:
          'Any of `url` (checked like on creation), `events`, `description`, `enabled`. Enabling a disabled webhook resumes ' +
          'deliveries of new events; retry the ones it missed from its delivery log.',
        security: API_KEY_SECURITY,
        params: UuidParams,
        body: UpdateWebhookBodySchema,
        response: { 200: WebhookSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => webhookToJson(await updateWebhook(ctx, principalOf(request), request.params.uuid, request.body)),
  );

  app.delete(
    '/webhooks/:uuid',
    {
      schema: {
        tags: ['Webhooks'],
        summary: 'Delete a webhook',
        description: 'With its delivery log; deliveries not yet made are dropped.',
        security: API_KEY_SECURITY,
        params: UuidParams,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request, reply) => {
      await deleteWebhook(ctx, principalOf(request), request.params.uuid);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/webhooks/:uuid/rotate-secret',
    {
      schema: {
        tags: ['Webhooks'],
        summary: "Rotate a webhook's signing secret",
        description:
          'By an admin. Answers with a new secret, shown only here. For 24 hours every delivery carries two signatures in ' +
          '`webhook-signature`, space-separated (`v1,<by the new secret> v1,<by the old one>`), so a receiver verifying with either ' +
          'secret accepts it: switch the receiver over within the day. After that only the new secret signs. Rotating again within ' +
          'the 24 hours retires the oldest secret at once.',
        security: API_KEY_SECURITY,
        params: UuidParams,
        response: { 200: CreatedWebhookSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => {
      const { webhook, secret } = await rotateWebhookSecret(ctx, principalOf(request), request.params.uuid);
      return { ...webhookToJson(webhook), secret };
    },
  );

  app.get(
    '/webhooks/:uuid/deliveries',
    {
      schema: {
        tags: ['Webhooks'],
        summary: "A webhook's delivery log",
        description:
          'One delivery per event sent to this webhook, newest first, in pages of `limit` (default 50, at most 200); pass ' +
          '`nextCursor` as `cursor` for the next page. Deliveries are kept `retentionDays` days (then deleted, unless still pending).',
        security: API_KEY_SECURITY,
        params: UuidParams,
        querystring: DeliveryListQuerySchema,
        response: { 200: DeliveryListSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => {
      const page = await listWebhookDeliveries(ctx, principalOf(request), request.params.uuid, request.query);
      return { deliveries: page.deliveries.map(deliveryToJson), nextCursor: page.nextCursor, retentionDays: ctx.webhookSettings.deliveryRetentionDays };
    },
  );

  app.post(
    '/webhooks/:uuid/deliveries/:deliveryUuid/retry',
    {
      schema: {
        tags: ['Webhooks'],
        summary: 'Send a delivery again',
        description:
          '202: the delivery is attempted again at once, whatever its status and even while the webhook is disabled, with the ' +
          'same `webhook-id`. It starts over: attempts count from zero and, if it fails, it is retried for another 24 hours.',
        security: API_KEY_SECURITY,
        params: DeliveryParamsSchema,
        response: { 202: DeliverySchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request, reply) => {
      const delivery = await retryWebhookDelivery(ctx, principalOf(request), request.params.uuid, request.params.deliveryUuid);
      return reply.code(202).send(deliveryToJson(delivery));
    },
  );
};
