import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../domain/events.js';
import { ConnectionSchema } from './schemas/connections.js';

/**
 * The OpenAPI 3.1 `webhooks` section: one entry per event type a subscription can receive
 * (WEBHOOK_EVENT_TYPES), each the POST termin makes to the receiver, with its body
 * (`{ type, timestamp, data }`, `data` the record the API returns for the event's subject,
 * as src/webhooks/event-body.ts builds it) and the Standard Webhooks signing headers, so
 * generators type the events an integrator receives.
 *
 * `describeWebhookEvents()['meeting.cancelled'].post.requestBody` → the body whose `type` is
 * `"meeting.cancelled"` and whose `data` is a `Meeting`.
 */
export function describeWebhookEvents(): Record<string, { post: Record<string, unknown> }> {
  const webhooks: Record<string, { post: Record<string, unknown> }> = {};
  for (const type of WEBHOOK_EVENT_TYPES) webhooks[type] = { post: describeEvent(type) };
  return webhooks;
}

/** What `data` is, by the event's subject (the part of the type before the dot). */
const SUBJECTS: Record<string, { schema: unknown; what: string }> = {
  meeting: { schema: { $ref: '#/components/schemas/Meeting' }, what: 'the meeting as `GET /meetings/{uuid}` shows it after the change, with its `payment` summary' },
  payment: { schema: { $ref: '#/components/schemas/Payment' }, what: 'the payment as `GET /payments/{uuid}` shows it in `payment`' },
  member: { schema: { $ref: '#/components/schemas/Member' }, what: 'the member as `GET /teams/{teamUuid}/users` lists them' },
  connection: { schema: ConnectionSchema, what: "the host's connection as `GET /connections` lists it (never its tokens)" },
  participant: {
    schema: {
      type: 'object',
      required: ['meetings'],
      additionalProperties: false,
      properties: { meetings: { type: 'array', items: { type: 'string', format: 'uuid' }, description: 'The meetings whose participant was erased.' } },
    },
    what: "the meetings whose participant's personal data was erased (never who they were)",
  },
};

/** A subject added to WEBHOOK_EVENT_TYPES without an entry above is still documented, loosely. */
const UNKNOWN_SUBJECT = { schema: { type: 'object', additionalProperties: true }, what: "the event's subject" };

const WHAT_HAPPENED: Partial<Record<WebhookEventType, string>> = {
  'meeting.scheduled': 'A meeting was booked (confirmed, or pending payment for a paid topic).',
  'meeting.confirmed': 'A meeting pending payment was paid and is confirmed.',
  'meeting.rescheduled': 'A meeting was moved to another time or host.',
  'meeting.cancelled': 'A meeting was cancelled by the host, an admin or the participant.',
  'meeting.expired': 'A meeting pending payment was not paid in time; its slot is free again.',
  'meeting.located': "The meeting's room exists: its `location` now has the join link.",
  'meeting.location_failed':
    'The provider refused the meeting\'s room for good: its `location` has `status: "failed"` and a `reason`, and no link will come from the provider; the host is e-mailed (once, then in an hourly digest) and sends the participant a link. Transient faults are retried and send nothing.',
  'payment.paid': 'The gateway confirmed a payment.',
  'payment.refunded': 'A payment was refunded, in full or in part (`refundedAmount`).',
  'member.created': 'A user was added to a team.',
  'member.deleted': 'A user was removed from a team.',
  'meeting.reminder_sent':
    "One of the topic's `reminders` went out before the meeting (an e-mail queued, or an SMS taken by the provider); `data.reminder` is `{ minutesBefore, channel, to }`. Sent once per reminder and start time.",
  'participant.erased':
    "A participant's personal data was erased: on their request (`POST /participants/erase`), or by the account's retention for meetings that ended long ago. Erase your own copies of those meetings' participant. Never carries the e-mail.",
  'connection.error': "A host's connection to a provider stopped working (`lastError` says why); meetings at that place get no room until it is connected again.",
};

const SIGNING_HEADERS = [
  {
    name: 'webhook-id',
    description: "The delivery's uuid: the same on every retry of it, so a receiver deduplicates on it.",
    schema: { type: 'string' },
  },
  {
    name: 'webhook-timestamp',
    description: 'When this attempt was signed, in seconds since the epoch: refuse one too far from your clock (replays).',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'webhook-signature',
    description:
      "Standard Webhooks: `v1,` and the base64 HMAC-SHA256, under the webhook's `whsec_…` secret, of `{webhook-id}.{webhook-timestamp}.{body}` over the exact bytes received. For 24 hours after `POST /webhooks/{uuid}/rotate-secret` two are listed, space-separated (`v1,<new> v1,<old>`): accept the message if any one verifies.",
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
  },
].map((header) => ({ ...header, in: 'header', required: true }));

/** `meeting.rescheduled` carries, besides the meeting as it is now, when and with whom it was before. */
const RESCHEDULED_DATA = {
  allOf: [
    { $ref: '#/components/schemas/Meeting' },
    {
      type: 'object',
      required: ['previous'],
      properties: {
        previous: {
          type: 'object',
          required: ['start', 'end', 'host'],
          additionalProperties: false,
          description: 'The meeting before the move.',
          properties: {
            start: { type: 'string', format: 'date-time', description: 'Its start before the move (UTC).' },
            end: { type: 'string', format: 'date-time', description: 'Its end before the move (UTC).' },
            host: { type: 'string', description: "The host's username before the move (the record's `username` names the host now)." },
          },
        },
      },
    },
  ],
};

/** `meeting.reminder_sent` carries, besides the meeting, which of its topic's reminders went out. */
const REMINDER_DATA = {
  allOf: [
    { $ref: '#/components/schemas/Meeting' },
    {
      type: 'object',
      required: ['reminder'],
      properties: {
        reminder: {
          type: 'object',
          required: ['minutesBefore', 'channel', 'to'],
          additionalProperties: false,
          description: "The topic's reminder that went out.",
          properties: {
            minutesBefore: { type: 'integer', description: 'How long before the start it was due.' },
            channel: { type: 'string', enum: ['email', 'sms'] },
            to: { type: 'string', enum: ['participant', 'host'] },
          },
        },
      },
    },
  ],
};

function describeEvent(type: WebhookEventType): Record<string, unknown> {
  const base = SUBJECTS[type.split('.')[0]!] ?? UNKNOWN_SUBJECT;
  const subject =
    type === 'meeting.rescheduled'
      ? { schema: RESCHEDULED_DATA, what: `${base.what}, and \`previous\`: its \`start\`, \`end\` and \`host\` before the move` }
      : type === 'meeting.reminder_sent'
        ? { schema: REMINDER_DATA, what: `${base.what}, and \`reminder\`: which reminder (\`minutesBefore\`, \`channel\`, \`to\`)` }
        : base;
  return {
    operationId: `on${type.replace(/(^|[._-])([a-z])/g, (_m, _sep: string, letter: string) => letter.toUpperCase())}`,
    tags: ['Webhooks'],
    summary: `${type} event`,
    description:
      `${WHAT_HAPPENED[type] ?? `The \`${type}\` event.`} termin POSTs it to every enabled webhook subscribed to \`${type}\`; \`data\` is ${subject.what}, ` +
      'as it was when the event happened. Answer any 2xx within 10 seconds; anything else is retried for 24 hours under the same `webhook-id`.',
    security: [],
    parameters: SIGNING_HEADERS,
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['type', 'timestamp', 'data'],
            additionalProperties: false,
            properties: {
              type: { type: 'string', const: type },
              timestamp: { type: 'string', format: 'date-time', description: 'When the event happened (UTC, with milliseconds).' },
              data: subject.schema,
            },
          },
        },
      },
    },
    responses: {
      '200': { description: 'Any 2xx acknowledges the delivery.' },
      '400': { description: 'Any other answer (or none within 10 seconds) is a failed attempt: retried with backoff.' },
    },
  };
}
