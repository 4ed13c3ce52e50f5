import type { DomainEvent, EventDataOfType, EventType } from '../domain/events.js';
import type { DbOrTrx } from '../db/database.js';
import { insertEventsWithJobs } from '../db/repositories/events.js';
import { newId } from '../ids.js';
import { EVENT_JOB_KIND, type NewJob } from '../outbox/job-kinds.js';

/** An event to record: its `data` must be the shape its `type` carries (EventDataOfType). */
export type NewEvent = {
  [Type in EventType]: { accountUuid: string; type: Type; subjectUuid: string; data: EventDataOfType[Type] };
}[EventType];

/**
 * Records what happened, in the caller's transaction: the events become their subjects'
 * history, and one outbox job per event fans it out after commit (see dispatch-event.ts).
 * A rollback records nothing and sends nothing; a crash after commit loses nothing.
 */
export async function recordEvents(trx: DbOrTrx, events: NewEvent[], now: number): Promise<DomainEvent[]> {
  const recorded: DomainEvent[] = events.map((event) => ({ ...event, uuid: newId(now), occurredAt: now }));
  const jobs = recorded.map((event): NewJob => ({ uuid: newId(now), kind: EVENT_JOB_KIND, payload: { eventUuid: event.uuid } }));
  await insertEventsWithJobs(trx, recorded, jobs, now);
  return recorded;
}
