import { isMeetingEvent, isReminderEvent, type DomainEvent } from '../../domain/events.js';
import { meetingHostUuids } from '../../domain/meeting.js';
import type { DbOrTrx } from '../../db/database.js';
import { findCalendarWriteTargets } from '../../db/repositories/calendars.js';
import { newId } from '../../ids.js';
import { CALENDAR_WRITE_JOB_KIND, type CalendarWritePayload, type NewJob } from '../../outbox/job-kinds.js';

/**
 * Meeting events into `calendar-write` jobs: one per CalDAV calendar the meeting must reach.
 * Scheduled or confirmed (after payment) → its host's calendars that take meetings;
 * rescheduled → those of its (maybe new) host and every calendar it was written into, so a
 * move to another host removes it from the first; cancelled or expired → wherever it was
 * written. The job itself decides put or delete from the meeting as it is when it runs.
 */
export async function calendarWriteJobsForEvent(trx: DbOrTrx, event: DomainEvent, now: number): Promise<NewJob[]> {
  if (!isMeetingEvent(event) || isReminderEvent(event)) return [];
  const { meeting } = event.data;
  if (!meeting || typeof meeting.uuid !== 'string') return [];
  // Every host a collective meeting holds gets it in their calendars, as a lone host does.
  const targets = await findCalendarWriteTargets(trx, meeting.uuid, meeting.status === 'confirmed' ? meetingHostUuids(meeting) : []);
  return targets.map((calendarUuid) => {
    const payload: CalendarWritePayload = { calendarUuid, accountUuid: meeting.accountUuid, meetingUuid: meeting.uuid };
    return { uuid: newId(now), kind: CALENDAR_WRITE_JOB_KIND, payload };
  });
}
