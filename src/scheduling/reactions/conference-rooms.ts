import { isMeetingEvent, isReminderEvent, type DomainEvent } from '../../domain/events.js';
import { providerOfPlace } from '../../domain/integrations.js';
import type { DbOrTrx } from '../../db/database.js';
import type { NewJob } from '../../outbox/job-kinds.js';
import { CONFIRMATION_WAIT_MS, conferenceRoomJob, roomProviderOf } from '../integrations/rooms.js';
import { roomNoticeJobs } from '../integrations/room-notices.js';
import type { UseCaseContext } from '../context.js';
import { findRoomPlaces } from '../integrations/apps.js';

/**
 * What a meeting event means for its room: a job to bring the room in line; for a newly
 * confirmed meeting whose room is on its way, the confirmations' deadline; for one whose host
 * has no working connection (and no link of their own), a note to the host saying what to
 * connect; and for a room the provider refused for good, a note saying the link is the host's
 * to send. The notes are one e-mail, then a digest an hour at most (room-notices.ts).
 */
export async function conferenceRoomJobsForEvent(trx: DbOrTrx, event: DomainEvent, now: number, ctx: Pick<UseCaseContext, 'publicUrl'>): Promise<NewJob[]> {
  if (event.type === 'meeting.location_failed') {
    const provider = providerOfPlace(event.data.meeting.place);
    return provider === null ? [] : roomNoticeJobs(trx, event.data.meeting, provider, 'failed', now, ctx);
  }
  if (!isMeetingEvent(event) || event.type === 'meeting.located' || event.type === 'meeting.confirmation_due' || isReminderEvent(event)) return [];
  const { meeting } = event.data;
  const provider = meeting ? providerOfPlace(meeting.place) : null;
  if (!meeting || provider === null) return [];
  const jobs = [conferenceRoomJob(meeting, now)];
  if ((event.type === 'meeting.scheduled' || event.type === 'meeting.confirmed') && meeting.status === 'confirmed') {
    if ((await roomProviderOf(trx, meeting)) !== null) jobs.push(conferenceRoomJob(meeting, now, { deadline: true, runAt: now + CONFIRMATION_WAIT_MS }));
    // Only where the account has the provider's app can the host connect: elsewhere the place is a label, as before integrations.
    else if (!meeting.location?.url && (await findRoomPlaces(trx, meeting.accountUuid)).includes(meeting.place))
      jobs.push(...(await roomNoticeJobs(trx, meeting, provider, 'connect', now, ctx)));
  }
  return jobs;
}
