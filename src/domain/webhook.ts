import type { WebhookEventType } from './events.js';

/** Where an account's events go. The signing secret is not here: it stays sealed until a delivery signs. */
export interface WebhookSubscription {
  uuid: string;
  accountUuid: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  enabled: boolean;
  /** The first failed attempt since the latest success, or null. */
  failingSince: number | null;
  /** When it was switched off after failing for 3 days (null when enabled or switched off by hand). */
  disabledAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One event for one subscription; its uuid is the `webhook-id` every attempt carries. */
export interface WebhookDelivery {
  uuid: string;
  subscriptionUuid: string;
  accountUuid: string;
  eventUuid: string;
  eventType: WebhookEventType;
  status: DeliveryStatus;
  attempts: number;
  /** The receiver's status code of the latest attempt; null when it gave none (timeout, refused). */
  responseStatus: number | null;
  lastError: string | null;
  firstAttemptAt: number | null;
  lastAttemptAt: number | null;
  nextAttemptAt: number | null;
  createdAt: number;
}
