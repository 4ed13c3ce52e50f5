import { describeCalendarFailure } from '../../calendars/remote-calendar.js';
import { meetingEventUid, renderMeetingEvent } from '../../calendars/meeting-event.js';
import { providerOfPlace } from '../../domain/integrations.js';
import { meetingHostUuids, statusAt, type Meeting } from '../../domain/meeting.js';
import type { DbOrTrx } from '../../db/database.js';
import { findConnectionOfUser } from '../../db/repositories/connections.js';
import { deleteEventCopy, findCalendarWithAccess, hasEventCopy, recordCalendarWriteError, saveEventCopy } from '../../db/repositories/calendars.js';
import { findTopicIncludingDeleted } from '../../db/repositories/meeting-topics.js';
import { findMeeting } from '../../db/repositories/meetings.js';
import { PermanentJobError, type JobHandler } from '../../outbox/job-handler.js';
import { SecretUnreadableError } from '../../domain/errors.js';
import { CALENDAR_WRITE_JOB_KIND } from '../../outbox/job-kinds.js';
import { toCalendarMeeting } from './calendar-meeting.js';
import { openCalendar } from './sync.js';
import type { UseCaseContext } from '../context.js';

/** Rounds of "write, then check the meeting did not change meanwhile" per job. */
const MAX_ROUNDS = 3;

/**
 * The `calendar-write` job: brings one meeting's copy in one host's CalDAV calendar in line
 * with the meeting as it is now, whatever event queued the job. A confirmed meeting of the
 * calendar's owner is PUT under the invitation's UID (a moved one replaces itself, SEQUENCE
 * raised); anything else (cancelled, expired, moved to another host) is DELETEd where it
 * was written. Reading the current state, rather than the event's, makes jobs of one
 * meeting safe to run late, twice or out of order. A failing server throws, so the queue
 * retries with backoff; the booking never waits for it. The failure is shown on the
 * calendar as `lastWriteError` until a write succeeds.
 */
export function createCalendarWriteHandler(
  ctx: Pick<UseCaseContext, 'publicUrl' | 'now' | 'db' | 'secretKey' | 'calendars' | 'outbound' | 'integrations'>,
): JobHandler<'calendar-write'> {
  return {
    kind: CALENDAR_WRITE_JOB_KIND,
    concurrency: 4,
    async handle(job) {
      const { calendarUuid, meetingUuid, accountUuid } = job.payload;
      for (let round = 0; round < MAX_ROUNDS; round += 1) {
        const found = await findCalendarWithAccess(ctx.db, calendarUuid);
        // Disconnected since: nothing more goes into it.
        if (!found) return;
        const meeting = await findMeeting(ctx.db, accountUuid, meetingUuid);
        const now = ctx.now();
        const belongs =
          meeting !== undefined &&
          found.calendar.writeMeetings &&
          meetingHostUuids(meeting).includes(found.calendar.userUuid) &&
          statusAt(meeting, now) === 'confirmed' &&
          !(await roomIsTheCopy(ctx.db, meeting, found.access.connectionUuid ?? null));
        if (!belongs && !(await hasEventCopy(ctx.db, calendarUuid, meetingUuid))) return;
        const uid = meetingEventUid(meetingUuid);
        try {
          const calendar = openCalendar(ctx, found.calendar, found.access).writer;
          if (calendar === null) throw new PermanentJobError(`meetings are not written into ${found.calendar.type} calendars`);
          if (belongs) {
            const topic = await findTopicIncludingDeleted(ctx.db, meeting.topicUuid);
            // Noted before the PUT: if the process dies right after it, a later cancel still removes the event.
            await saveEventCopy(ctx.db, calendarUuid, meetingUuid, now);
            await calendar.putEvent(uid, renderMeetingEvent(toCalendarMeeting(meeting, topic?.name ?? 'Meeting'), { stamp: new Date(now) }));
          } else {
            await calendar.deleteEvent(uid);
            await deleteEventCopy(ctx.db, calendarUuid, meetingUuid);
          }
        } catch (error) {
          if (error instanceof PermanentJobError) throw error;
          const message = describeCalendarFailure(error);
          await recordCalendarWriteError(ctx.db, calendarUuid, message);
          // No retry opens what no key opens: given up at once, the calendar saying why.
          if (error instanceof SecretUnreadableError) throw new PermanentJobError(message);
          throw new Error(message);
        }
        if (found.calendar.lastWriteError !== null) await recordCalendarWriteError(ctx.db, calendarUuid, null);
        // Moved or cancelled while this write was on its way: write again with what it is now.
        const after = await findMeeting(ctx.db, accountUuid, meetingUuid);
        if (sameCopy(meeting, after, ctx.now())) return;
      }
      throw new Error('the meeting kept changing while it was being written; trying again later');
    },
  };
}

/**
 * Whether the meeting's room is made through the very connection this calendar is on (a
 * Google Meet meeting and the host's Google calendar): the room's event is then the copy,
 * and a second one would show the meeting twice.
 */
async function roomIsTheCopy(db: DbOrTrx, meeting: Meeting, calendarConnectionUuid: string | null): Promise<boolean> {
  if (calendarConnectionUuid === null) return false;
  const provider = providerOfPlace(meeting.place);
  return provider !== null && (await findConnectionOfUser(db, meeting.hostUuid, provider))?.uuid === calendarConnectionUuid;
}

function sameCopy(before: Meeting | undefined, after: Meeting | undefined, now: number): boolean {
  if (!before || !after) return before === after;
  return (
    before.hostUuid === after.hostUuid &&
    before.start === after.start &&
    before.end === after.end &&
    before.sequence === after.sequence &&
    statusAt(before, now) === statusAt(after, now)
  );
}
