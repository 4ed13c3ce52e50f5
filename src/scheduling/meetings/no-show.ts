import { MeetingStateConflictError, NotFoundError } from '../../domain/errors.js';
import type { MeetingEventData } from '../../domain/events.js';
import { statusAt, type Meeting, type NoShow } from '../../domain/meeting.js';
import { findMeeting, setMeetingNoShow } from '../../db/repositories/meetings.js';
import { inTransaction } from '../../db/transaction.js';
import type { Principal, UseCaseContext } from '../context.js';
import { requireMeetingManager } from './meetings.js';
import { recordEvents } from '../record-events.js';

/**
 * Records who did not come (`noShow`), or clears it with `null`: by whoever may cancel the
 * meeting, except its participant. Only a confirmed meeting that has started can have a
 * no-show (409 otherwise: before the start nobody can know yet). Saying the same again
 * changes nothing and records nothing; each change records `meeting.no_show`.
 */
export async function setNoShow(ctx: Pick<UseCaseContext, 'now' | 'db'>, principal: Principal, meetingUuid: string, noShow: NoShow | null): Promise<Meeting> {
  return inTransaction(ctx.db, async (trx) => {
    const now = ctx.now();
    const meeting = await findMeeting(trx, principal.accountUuid, meetingUuid);
    if (!meeting) throw new NotFoundError('meeting');
    await requireMeetingManager(trx, principal, meeting);
    const status = statusAt(meeting, now);
    if (noShow !== null && status !== 'confirmed') throw new MeetingStateConflictError(`A ${status} meeting has no attendance to record`);
    if (noShow !== null && meeting.start > now) throw new MeetingStateConflictError('The meeting has not started yet: a no-show can be recorded from its start');
    if (!(await setMeetingNoShow(trx, meeting.uuid, noShow, now))) return { ...meeting, status };
    const marked: Meeting = { ...meeting, noShow, updatedAt: now };
    const data: MeetingEventData = { meeting: marked };
    await recordEvents(trx, [{ accountUuid: meeting.accountUuid, type: 'meeting.no_show', subjectUuid: meeting.uuid, data: { ...data } }], now);
    return marked;
  });
}
