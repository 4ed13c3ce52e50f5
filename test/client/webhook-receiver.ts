import type { webhooks } from './schema.js';

/** The body of one event, as the types generated from the document's `webhooks` section give it. */
export type WebhookEvent<T extends keyof webhooks> = webhooks[T]['post']['requestBody']['content']['application/json'];
/** The signing headers the same section declares for it. */
export type WebhookHeaders<T extends keyof webhooks> = webhooks[T]['post']['parameters']['header'];

/**
 * What an integrator's receiver does with the generated types: narrow on `type` and read
 * `data` as the record the event is about, with no casts. Type-checked with the project
 * (strict); webhooks-document.test.ts feeds it real deliveries.
 */
export function summarizeEvent(event: WebhookEvent<keyof webhooks>, headers: WebhookHeaders<keyof webhooks>): string {
  const id = headers['webhook-id'];
  switch (event.type) {
    case 'meeting.scheduled':
    case 'meeting.rescheduled':
    case 'meeting.cancelled':
      return `${id} ${event.type} ${event.data.uuid} ${event.data.status} ${event.data.start} ${event.data.participant.email}`;
    case 'member.created':
    case 'member.deleted':
      return `${id} ${event.type} ${event.data.uuid} ${event.data.email} admin=${event.data.admin}`;
    case 'payment.paid':
    case 'payment.refunded':
      return `${id} ${event.type} ${event.data.uuid} ${event.data.amount} ${event.data.currency}`;
    default:
      return `${id} ${event.type} ${event.timestamp}`;
  }
}
