import { isWebhookEventType, type DomainEvent } from '../../domain/events.js';
import type { DbOrTrx } from '../../db/database.js';
import { findSubscribersOf, insertDeliveries, type NewDelivery } from '../../db/repositories/webhooks.js';
import { findPaymentsOfBookings } from '../../db/repositories/payments.js';
import { newId } from '../../ids.js';
import { meetingOfEvent, webhookBody } from '../../webhooks/event-body.js';
import { paymentStatusAt } from '../../domain/payment.js';
import { WEBHOOK_JOB_KIND, type NewJob, type WebhookJobPayload } from '../../outbox/job-kinds.js';

/**
 * One delivery (and the job that attempts it) per enabled subscription of the account that
 * asked for the event's type. Runs in the transaction that completes the event's job, so
 * an event is fanned out once; the deliveries' uuids are the `webhook-id`s receivers see.
 */
export async function webhookJobsForEvent(trx: DbOrTrx, event: DomainEvent, now: number): Promise<NewJob[]> {
  if (!isWebhookEventType(event.type)) return [];
  const subscriptions = await findSubscribersOf(trx, event.accountUuid, event.type);
  if (subscriptions.length === 0) return [];
  const meeting = meetingOfEvent(event);
  const payment = meeting ? (await findPaymentsOfBookings(trx, [meeting.bookingUuid])).get(meeting.bookingUuid) : undefined;
  // The payment's state when the event happened (a hold that lapsed reads as expired).
  const body = webhookBody(event, payment && { ...payment, status: paymentStatusAt(payment, event.occurredAt) });
  const deliveries: NewDelivery[] = subscriptions.map((subscription) => ({
    uuid: newId(now),
    subscriptionUuid: subscription.uuid,
    accountUuid: event.accountUuid,
    eventUuid: event.uuid,
    eventType: event.type as NewDelivery['eventType'],
    body,
    jobUuid: newId(now),
    createdAt: now,
  }));
  await insertDeliveries(trx, deliveries);
  return deliveries.map((delivery) => ({ uuid: delivery.jobUuid, kind: WEBHOOK_JOB_KIND, payload: { deliveryUuid: delivery.uuid } satisfies WebhookJobPayload }));
}
