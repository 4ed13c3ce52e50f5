import { isMeetingEvent, isReminderEvent, type DomainEvent } from '../../domain/events.js';
import { type IntegrationProvider, providerOfPlace } from '../../domain/integrations.js';
import type { Meeting } from '../../domain/meeting.js';
import { toSingleLine } from '../../domain/text.js';
import type { DbOrTrx } from '../../db/database.js';
import { findConnectionOfUser } from '../../db/repositories/connections.js';
import { findUser } from '../../db/repositories/users.js';
import { newId } from '../../ids.js';
import { EMAIL_JOB_KIND, type NewJob } from '../../outbox/job-kinds.js';
import type { NoticeMessagePayload } from '../../mail/queued-message.js';
import { CONFIRMATION_WAIT_MS, conferenceRoomJob, roomProviderOf } from '../integrations/rooms.js';
import type { UseCaseContext } from '../context.js';
import { findRoomPlaces } from '../integrations/apps.js';

/**
 * What a meeting event means for its room: a job to bring the room in line; for a newly
 * confirmed meeting whose room is on its way, the confirmations' deadline; and for one whose
 * host has no working connection (and no link of their own), a note to the host saying what
 * to connect.
 */
export async function conferenceRoomJobsForEvent(trx: DbOrTrx, event: DomainEvent, now: number, ctx: Pick<UseCaseContext, 'publicUrl'>): Promise<NewJob[]> {
  if (!isMeetingEvent(event) || event.type === 'meeting.located' || event.type === 'meeting.confirmation_due' || isReminderEvent(event)) return [];
  const { meeting } = event.data;
  const provider = meeting ? providerOfPlace(meeting.place) : null;
  if (!meeting || provider === null) return [];
  const jobs = [conferenceRoomJob(meeting, now)];
  if ((event.type === 'meeting.scheduled' || event.type === 'meeting.confirmed') && meeting.status === 'confirmed') {
    if ((await roomProviderOf(trx, meeting)) !== null) jobs.push(conferenceRoomJob(meeting, now, { deadline: true, runAt: now + CONFIRMATION_WAIT_MS }));
    // Only where the account has the provider's app can the host connect: elsewhere the place is a label, as before integrations.
    else if (!meeting.location?.url && (await findRoomPlaces(trx, meeting.accountUuid)).includes(meeting.place))
      jobs.push(...(await connectNotice(trx, meeting, provider, now, ctx)));
  }
  return jobs;
}

/** An e-mail to the host of a meeting at a place with rooms that gets none: what to connect, so it gets one. */
async function connectNotice(trx: DbOrTrx, meeting: Meeting, provider: IntegrationProvider, now: number, ctx: Pick<UseCaseContext, 'publicUrl'>): Promise<NewJob[]> {
  const host = await findUser(trx, meeting.accountUuid, meeting.hostUuid);
  if (!host) return [];
  const connection = await findConnectionOfUser(trx, host.uuid, provider);
  const why =
    connection?.status === 'error' ? `your ${provider} connection stopped working (${toSingleLine(connection.lastError ?? 'refused')})` : `you have not connected ${provider}`;
  const notice: NoticeMessagePayload = {
    notice: true,
    to: { name: `${host.firstName} ${host.lastName}`, email: host.email },
    subject: `A meeting at ${meeting.place} has no link yet: connect ${provider}`,
    text: [
      `Hello ${host.firstName},`,
      '',
      `${toSingleLine(meeting.participant.name)} booked a meeting with you on ${new Date(meeting.start).toISOString()} at ${meeting.place}, but it has no link to join yet: ${why}.`,
      `Connect it (POST ${ctx.publicUrl}/api/v1/users/${host.uuid}/connections with {"provider": "${provider}"}, or ask an admin of your team)`,
      'and the meeting gets its own room within a minute; the participant then receives the link by e-mail.',
    ].join('\n'),
  };
  return [{ uuid: newId(now), kind: EMAIL_JOB_KIND, payload: notice }];
}
