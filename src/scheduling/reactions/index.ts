import type { DomainEvent } from '../../domain/events.js';
import type { DbOrTrx } from '../../db/database.js';
import type { NewJob } from '../../db/repositories/outbox.js';
import { emailJobsForEvent } from './email.js';

/**
 * What follows from an event, each reaction in a file of its own: the jobs it returns are
 * queued in the transaction that completes the event's job (see dispatch-event.ts).
 */
export type EventReaction = (trx: DbOrTrx, event: DomainEvent, now: number) => Promise<NewJob[]>;

export const EVENT_REACTIONS: readonly EventReaction[] = [
  emailJobsForEvent,
  // webhook deliveries (src/webhooks) and calendar writes (src/calendars) register here
];
