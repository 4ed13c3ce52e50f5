import { Type } from 'typebox';
import { WEBHOOK_EVENT_TYPES } from '../../domain/events.js';
import { DELIVERY_STATUSES } from '../../domain/webhook.js';
import { NextCursor, PageQuery } from './paging.js';
import { MultiLine, Nullable, SingleLine, StringEnum, Timestamp, Uuid } from './common.js';

const EventTypeSchema = StringEnum(WEBHOOK_EVENT_TYPES, { description: 'An event type.' });

const EventsSchema = Type.Array(EventTypeSchema, {
  minItems: 1,
  maxItems: WEBHOOK_EVENT_TYPES.length,
  uniqueItems: true,
  description:
    `The events to send: any of ${WEBHOOK_EVENT_TYPES.join(', ')}. \`meeting.located\`: the meeting's conference room was made at ` +
    "the host's provider and its `location` now carries the join link; `meeting.location_failed`: the provider refused that room for good " +
    '(`location.status: "failed"` with its `reason`); ' +
    "`connection.error`: a host's connection was refused by its " +
    "provider (data: the connection, with `lastError`); `meeting.reminder_sent`: one of the topic's `reminders` went out (data: the meeting, with `reminder`).",
});

const UrlSchema = SingleLine({
  minLength: 1,
  maxLength: 2000,
  description:
    'Where to POST the events: an absolute http(s) URL without a user name or password. Refused (400 at `/url`) when its host ' +
    'resolves to a loopback, private, link-local or metadata address, unless the operator set ALLOW_PRIVATE_URLS=true; ' +
    'the addresses are checked again at every delivery.',
});

const DescriptionSchema = Nullable(MultiLine({ maxLength: 500, description: "A note for the account's admins." }));

export const CreateWebhookBodySchema = Type.Object({ url: UrlSchema, events: EventsSchema, description: Type.Optional(DescriptionSchema) }, { additionalProperties: false });

export const UpdateWebhookBodySchema = Type.Object(
  {
    url: Type.Optional(UrlSchema),
    events: Type.Optional(EventsSchema),
    description: Type.Optional(DescriptionSchema),
    enabled: Type.Optional(Type.Boolean({ description: 'false stops deliveries; true resumes them (and resets the 3-day failure count).' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

const webhookFields = {
  uuid: Uuid,
  url: Type.String(),
  events: Type.Array(EventTypeSchema),
  description: Nullable(Type.String()),
  enabled: Type.Boolean({ description: 'false after 3 days of failed deliveries (the admins are e-mailed), or when switched off.' }),
  failingSince: Nullable(Timestamp),
  disabledAt: Nullable(Timestamp),
  createdAt: Timestamp,
};

export const WebhookSchema = Type.Object(webhookFields, { title: 'Webhook' });

export const CreatedWebhookSchema = Type.Object(
  {
    ...webhookFields,
    secret: Type.String({
      description: 'The Standard Webhooks signing secret (`whsec_…`): shown only in this answer. Verify deliveries with any Standard Webhooks library.',
    }),
  },
  { title: 'CreatedWebhook' },
);

export const WebhookListQuerySchema = PageQuery('Webhooks');

export const WebhookListSchema = Type.Object({ webhooks: Type.Array(WebhookSchema), nextCursor: NextCursor });

export const DeliverySchema = Type.Object(
  {
    uuid: Uuid,
    event: EventTypeSchema,
    status: StringEnum(DELIVERY_STATUSES, {
      description: '`pending`: not delivered yet (an attempt is due at `nextAttemptAt`); `delivered`: a 2xx answer; `failed`: given up after retrying for 24 hours.',
    }),
    attempts: Type.Integer({ description: 'Attempts made since it was created or last retried by hand.' }),
    responseStatus: Nullable(Type.Integer({ description: 'The HTTP status of the latest answer; null when none came (timeout, refused connection).' })),
    nextAttemptAt: Nullable(Timestamp),
    createdAt: Timestamp,
    lastAttemptAt: Nullable(Timestamp),
    lastError: Nullable(Type.String({ description: 'Why the latest attempt failed.' })),
    eventUuid: Uuid,
  },
  { title: 'WebhookDelivery' },
);

export const DeliveryListQuerySchema = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Deliveries per page.' })),
    cursor: Type.Optional(SingleLine({ maxLength: 200, description: 'The `nextCursor` of the previous page.' })),
  },
  { additionalProperties: false },
);

export const DeliveryListSchema = Type.Object({
  deliveries: Type.Array(DeliverySchema),
  nextCursor: Nullable(Type.String({ description: 'Pass as `cursor` for the next page; null on the last page.' })),
  retentionDays: Type.Integer({
    minimum: 1,
    description:
      'How long a delivery stays in this log: one no longer pending is deleted this many days after it was created (the operator sets it: `RETENTION_WEBHOOK_DELIVERY_DAYS`, default 30).',
  }),
});

export const DeliveryParamsSchema = Type.Object({ uuid: Uuid, deliveryUuid: Uuid });
