import { type IntegrationProvider, PROVIDER_PLACES } from '../../domain/integrations.js';
import type { Meeting } from '../../domain/meeting.js';
import { PLACE_LABELS } from '../../i18n/place-labels.js';
import { toSingleLine } from '../../domain/text.js';
import type { User } from '../../domain/user.js';
import type { DbOrTrx } from '../../db/database.js';
import { findConnectionOfUser } from '../../db/repositories/connections.js';
import { findMeetingsWithoutRoom } from '../../db/repositories/meetings.js';
import { type RoomNoticeKind, takeRoomNoticeDigest, takeRoomNoticeTurn } from '../../db/repositories/room-notices.js';
import { findUser } from '../../db/repositories/users.js';
import { inTransaction } from '../../db/transaction.js';
import { newId } from '../../ids.js';
import type { NoticeMessagePayload } from '../../mail/queued-message.js';
import type { JobHandler } from '../../outbox/job-handler.js';
import { EMAIL_JOB_KIND, enqueueJobs, type NewJob, ROOM_NOTICE_DIGEST_JOB_KIND } from '../../outbox/job-kinds.js';
import type { UseCaseContext } from '../context.js';

/**
 * What a host hears of meetings at a provider's place that get no link: one e-mail, then at
 * most one digest a window (an hour) per host, provider and kind, listing the meetings still
 * without a link, however many are booked meanwhile. (A host whose connection broke got one
 * "no link yet" e-mail per meeting: 20 in 30 seconds.) `connect`: the host has no working
 * connection, and connecting gives every waiting meeting its room; `failed`: the provider
 * refused a meeting's room for good, and the host sends its link.
 */

/** One e-mail per host, provider and kind in this window; the meetings after it wait for its digest. */
export const ROOM_NOTICE_WINDOW_MS = 3_600_000;
/** The most meetings one digest lists by name (the count says how many there are). */
const DIGEST_LISTED = 50;

type NoticeContext = Pick<UseCaseContext, 'publicUrl'>;

/**
 * The host's notice about one more meeting at `provider`'s place without a link, in the
 * caller's transaction: the e-mail now, the digest's job (once per window), or nothing when a
 * digest already planned will list it.
 */
export async function roomNoticeJobs(trx: DbOrTrx, meeting: Meeting, provider: IntegrationProvider, kind: RoomNoticeKind, now: number, ctx: NoticeContext): Promise<NewJob[]> {
  const host = await findUser(trx, meeting.accountUuid, meeting.hostUuid);
  if (!host) return [];
  const turn = await takeRoomNoticeTurn(trx, { userUuid: host.uuid, provider, kind }, now, ROOM_NOTICE_WINDOW_MS);
  if (turn.send === 'covered') return [];
  if (turn.send === 'digest') {
    const payload = { accountUuid: meeting.accountUuid, hostUuid: host.uuid, provider, kind };
    return [{ uuid: newId(now), kind: ROOM_NOTICE_DIGEST_JOB_KIND, payload, runAt: turn.at }];
  }
  const notice = kind === 'connect' ? await connectNotice(trx, host, meeting, provider, ctx) : failedNotice(host, meeting, ctx);
  return [{ uuid: newId(now), kind: EMAIL_JOB_KIND, payload: notice }];
}

/** The digest's job, when its window has passed: one e-mail listing the host's meetings still without a link, or none when none is left. */
export function createRoomNoticeDigestHandler(ctx: Pick<UseCaseContext, 'db' | 'now' | 'publicUrl'>): JobHandler<'room-notice-digest'> {
  return {
    kind: ROOM_NOTICE_DIGEST_JOB_KIND,
    async handle(job) {
      const { accountUuid, hostUuid, provider, kind } = job.payload;
      await inTransaction(ctx.db, async (trx) => {
        const now = ctx.now();
        const host = await findUser(trx, accountUuid, hostUuid);
        const meetings = host && host.deactivatedAt === null ? await meetingsWithoutLink(trx, host, provider, kind, now) : [];
        // A digest already taken (this job's own retry, another instance) sends nothing more.
        if (!(await takeRoomNoticeDigest(trx, { userUuid: hostUuid, provider, kind }, now, meetings.length > 0)) || !host || meetings.length === 0) return;
        const notice = kind === 'connect' ? await connectDigest(trx, host, meetings, provider, ctx) : failedDigest(host, meetings, provider, ctx);
        await enqueueJobs(trx, [{ uuid: newId(now), kind: EMAIL_JOB_KIND, payload: notice }], now);
      });
    },
  };
}

/** The meetings a digest lists: refused rooms; or, while the host has no working connection, the meetings waiting for one (not those with a link of the host's own). */
async function meetingsWithoutLink(trx: DbOrTrx, host: User, provider: IntegrationProvider, kind: RoomNoticeKind, now: number): Promise<Meeting[]> {
  const place = PROVIDER_PLACES[provider];
  if (kind === 'failed') return findMeetingsWithoutRoom(trx, host.uuid, place, 'failed', now, 500);
  // Connected again meanwhile: their rooms are on their way, nothing to ask of the host.
  if ((await findConnectionOfUser(trx, host.uuid, provider))?.status === 'connected') return [];
  return (await findMeetingsWithoutRoom(trx, host.uuid, place, 'waiting', now, 500)).filter((meeting) => !meeting.location?.url);
}

const nameOf = (host: User) => `${host.firstName} ${host.lastName}`;
const meetingLine = (meeting: Meeting, ctx: NoticeContext, detail?: string) =>
  `- ${new Date(meeting.start).toISOString()} with ${toSingleLine(meeting.participant.name)} <${meeting.participant.email}>${detail ? `: ${toSingleLine(detail)}` : ''} ${ctx.publicUrl}/app/meetings/${meeting.uuid}`;
const listed = (meetings: readonly Meeting[], line: (meeting: Meeting) => string) => [
  ...meetings.slice(0, DIGEST_LISTED).map(line),
  ...(meetings.length > DIGEST_LISTED ? [`… and ${meetings.length - DIGEST_LISTED} more.`] : []),
];

async function whyNotConnected(trx: DbOrTrx, host: User, provider: IntegrationProvider): Promise<string> {
  const connection = await findConnectionOfUser(trx, host.uuid, provider);
  return connection?.status === 'error' ? `your ${provider} connection stopped working (${toSingleLine(connection.lastError ?? 'refused')})` : `you have not connected ${provider}`;
}

function connectHow(host: User, provider: IntegrationProvider, ctx: NoticeContext): string {
  return `Connect it (POST ${ctx.publicUrl}/api/v1/users/${host.uuid}/connections with {"provider": "${provider}"}, or ask an admin of your team)`;
}

/** An e-mail to the host of a meeting at a place with rooms that gets none: what to connect, so it gets one. */
async function connectNotice(trx: DbOrTrx, host: User, meeting: Meeting, provider: IntegrationProvider, ctx: NoticeContext): Promise<NoticeMessagePayload> {
  return {
    notice: true,
    to: { name: nameOf(host), email: host.email },
    subject: `A meeting at ${meeting.place} has no link yet: connect ${provider}`,
    text: [
      `Hello ${host.firstName},`,
      '',
      `${toSingleLine(meeting.participant.name)} booked a meeting with you on ${new Date(meeting.start).toISOString()} at ${meeting.place}, but it has no link to join yet: ${await whyNotConnected(trx, host, provider)}.`,
      connectHow(host, provider, ctx),
      'and the meeting gets its own room within a minute; the participant then receives the link by e-mail.',
      `Until then, other meetings booked there are listed in one e-mail an hour at most.`,
    ].join('\n'),
  };
}

async function connectDigest(trx: DbOrTrx, host: User, meetings: readonly Meeting[], provider: IntegrationProvider, ctx: NoticeContext): Promise<NoticeMessagePayload> {
  const place = PROVIDER_PLACES[provider];
  return {
    notice: true,
    to: { name: nameOf(host), email: host.email },
    subject: `${meetings.length} meetings at ${place} have no link yet: connect ${provider}`,
    text: [
      `Hello ${host.firstName},`,
      '',
      `These meetings with you at ${place} have no link to join yet: ${await whyNotConnected(trx, host, provider)}.`,
      ...listed(meetings, (meeting) => meetingLine(meeting, ctx)),
      '',
      connectHow(host, provider, ctx),
      'and each gets its own room within a minute; the participants then receive their links by e-mail.',
    ].join('\n'),
  };
}

/** An e-mail to the host of a meeting whose room the provider refused for good: why, and that the link is theirs to send. */
function failedNotice(host: User, meeting: Meeting, ctx: NoticeContext): NoticeMessagePayload {
  const label = PLACE_LABELS.en[meeting.place];
  const reason = toSingleLine(meeting.location?.reason ?? 'refused');
  return {
    notice: true,
    to: { name: nameOf(host), email: host.email },
    subject: `No ${label} room for a meeting: send the link yourself`,
    text: [
      `Hello ${host.firstName},`,
      '',
      `${toSingleLine(meeting.participant.name)} booked a meeting with you on ${new Date(meeting.start).toISOString()} at ${label}, but ${label} refused its room for good: ${reason}.`,
      meeting.location?.url
        ? `The room stays as it was (${meeting.location.url}): check that it still suits the meeting's time, or send the participant another link.`
        : 'Their confirmation says you will send them the link to join: send it yourself, or move the meeting to another place.',
      `termin asks ${label} again only if the meeting moves. Other refusals in the next hour come in one e-mail.`,
      `The meeting: ${ctx.publicUrl}/app/meetings/${meeting.uuid}`,
    ].join('\n'),
  };
}

function failedDigest(host: User, meetings: readonly Meeting[], provider: IntegrationProvider, ctx: NoticeContext): NoticeMessagePayload {
  const label = PLACE_LABELS.en[PROVIDER_PLACES[provider]];
  return {
    notice: true,
    to: { name: nameOf(host), email: host.email },
    subject: `No ${label} room for ${meetings.length} meetings: send the links yourself`,
    text: [
      `Hello ${host.firstName},`,
      '',
      `${label} refused the rooms of these meetings with you for good, so they have no link from ${label}:`,
      ...listed(meetings, (meeting) => meetingLine(meeting, ctx, meeting.location?.reason)),
      '',
      "Each participant's confirmation says you will send them the link to join: send it yourself, or move the meeting to another place.",
      `termin asks ${label} again only for a meeting that moves.`,
    ].join('\n'),
  };
}
