import type { DomainEvent } from '../../domain/events.js';
import type { Insertable } from 'kysely';
import { compileOnce } from '../compiled-query.js';
import { isPostgres, type DbOrTrx, type EventTable, type OutboxTable } from '../database.js';
import { insertJobs, jobRows, type JobToInsert } from './outbox.js';

export async function insertEvents(db: DbOrTrx, events: DomainEvent[]): Promise<void> {
  if (events.length === 0) return;
  await db.insertInto('events').values(eventRows(events)).execute();
}

/**
 * The events and the outbox jobs that fan them out, as recordEvents writes them: one
 * statement on PostgreSQL (a round trip fewer for every booking), two on SQLite.
 */
export async function insertEventsWithJobs(db: DbOrTrx, events: DomainEvent[], jobs: readonly JobToInsert[], now: number): Promise<void> {
  // One event with one job is what most writes record: those statements are compiled once.
  const one = events.length === 1 && jobs.length === 1;
  if (isPostgres(db) && events.length > 0 && jobs.length > 0) {
    if (one) await insertEventAndJobRows(db, eventRows(events)[0]!, jobRows(jobs, now)[0]!);
    else
      await db
        .with('recorded', (cte) => cte.insertInto('events').values(eventRows(events)).returning('id'))
        .insertInto('outbox')
        .values(jobRows(jobs, now))
        .execute();
  } else if (one) {
    await insertEventRow(db, eventRows(events)[0]!);
    await insertJobRow(db, jobRows(jobs, now)[0]!);
  } else {
    await insertEvents(db, events);
    await insertJobs(db, jobs, now);
  }
}

const insertEventRow = compileOnce((db, row: Insertable<EventTable>) => db.insertInto('events').values(row));
const insertJobRow = compileOnce((db, row: Insertable<OutboxTable>) => db.insertInto('outbox').values(row));
const insertEventAndJobRows = compileOnce((db, event: Insertable<EventTable>, job: Insertable<OutboxTable>) =>
  db
    .with('recorded', (cte) => cte.insertInto('events').values(event).returning('id'))
    .insertInto('outbox')
    .values(job),
);

function eventRows(events: DomainEvent[]): Insertable<EventTable>[] {
  return events.map((event) => ({
    id: event.uuid,
    account_id: event.accountUuid,
    type: event.type,
    subject_id: event.subjectUuid,
    occurred_at: event.occurredAt,
    data: JSON.stringify(event.data),
  }));
}

export async function findEvent(db: DbOrTrx, eventUuid: string): Promise<DomainEvent | undefined> {
  const row = await db.selectFrom('events').selectAll().where('id', '=', eventUuid).executeTakeFirst();
  return row && rowToEvent(row);
}

/** A subject's history, oldest first. */
export async function selectEventsOfSubject(db: DbOrTrx, subjectUuid: string): Promise<DomainEvent[]> {
  const rows = await db.selectFrom('events').selectAll().where('subject_id', '=', subjectUuid).orderBy('occurred_at').orderBy('id').execute();
  return rows.map(rowToEvent);
}

/**
 * The one place a stored event becomes the union, by a cast: rows are written only by
 * insertEvents, from events whose `type` and `data` were checked together when they were
 * recorded (recordEvents takes the union), so the pair read back is one of its members.
 */
function rowToEvent(row: { id: string; account_id: string; type: string; subject_id: string; occurred_at: number; data: string }): DomainEvent {
  return {
    uuid: row.id,
    accountUuid: row.account_id,
    type: row.type,
    subjectUuid: row.subject_id,
    occurredAt: row.occurred_at,
    data: JSON.parse(row.data) as unknown,
  } as DomainEvent;
}
