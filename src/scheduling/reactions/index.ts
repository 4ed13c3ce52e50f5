import type { DomainEvent } from '../../domain/events.js';
import type { DbOrTrx } from '../../db/database.js';
import type { NewJob } from '../../outbox/job-kinds.js';
import type { UseCaseContext } from '../context.js';
import { calendarWriteJobsForEvent } from './calendar-writes.js';
import { conferenceRoomJobsForEvent } from './conference-rooms.js';
import { emailJobsForEvent } from './email.js';
import { webhookJobsForEvent } from './webhooks.js';
import { approvalEmailJobsForEvent } from './approval-emails.js';
import { reminderJobsForEvent } from '../meetings/reminders.js';

/**
 * What follows from an event, each reaction in a file of its own: the jobs it returns are
 * queued in the transaction that completes the event's job (see dispatch-event.ts).
 */
/** `ctx` for what a reaction needs beyond the transaction (the e-mail's manage link is signed with its secret key). */
export type EventReaction = (trx: DbOrTrx, event: DomainEvent, now: number, ctx: Pick<UseCaseContext, 'publicUrl' | 'secretKey'>) => Promise<NewJob[]>;

export const EVENT_REACTIONS: readonly EventReaction[] = [
  emailJobsForEvent,
  calendarWriteJobsForEvent,
  webhookJobsForEvent,
  conferenceRoomJobsForEvent,
  approvalEmailJobsForEvent,
  reminderJobsForEvent,
];
