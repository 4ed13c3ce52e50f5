import { type IntegrationProvider, PROVIDER_PLACES } from '../../domain/integrations.js';
import { formatDateTime } from '../../domain/formats.js';
import type { Lang } from '../../domain/lang.js';
import type { Meeting } from '../../domain/meeting.js';
import { buildForEachLang } from '../../i18n/catalogue.js';
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

/** The room notices' words in each language (locales/<lang>/notices.json, `rooms`). */
const STRINGS = buildForEachLang('notices', (t) => ({
  greeting: (name: string) => t('greeting', { name }),
  connectSubject: (place: string, provider: string) => t('rooms.connectSubject', { place, provider }),
  connectLead: (participant: string, when: string, place: string, why: string) => t('rooms.connectLead', { participant, when, place, why }),
  whyBroken: (provider: string) => t('rooms.whyBroken', { provider }),
  whyNone: (provider: string) => t('rooms.whyNone', { provider }),
  connectHow: (request: string, body: string) => t('rooms.connectHow', { request, body }),
  connectThen: t('rooms.connectThen'),
  connectLater: t('rooms.connectLater'),
  digestSubject: (count: number, place: string, provider: string) => t('rooms.digestSubject', { count, place, provider }),
  digestLead: (place: string, why: string) => t('rooms.digestLead', { place, why }),
  digestThen: t('rooms.digestThen'),
  line: (when: string, participant: string, email: string, url: string) => t('rooms.line', { when, participant, email, url }),
  lineWithReason: (when: string, participant: string, email: string, reason: string, url: string) => t('rooms.lineWithReason', { when, participant, email, reason, url }),
  more: (count: number) => t('rooms.more', { count }),
  failedSubject: (label: string) => t('rooms.failedSubject', { label }),
  failedLead: (participant: string, when: string, label: string, reason: string) => t('rooms.failedLead', { participant, when, label, reason }),
  failedLeadPlain: (participant: string, when: string, label: string) => t('rooms.failedLeadPlain', { participant, when, label }),
  failedKept: (url: string) => t('rooms.failedKept', { url }),
  failedSend: t('rooms.failedSend'),
  failedAgain: (label: string) => t('rooms.failedAgain', { label }),
  meeting: t('rooms.meeting'),
  failedDigestSubject: (label: string, count: number) => t('rooms.failedDigestSubject', { label, count }),
  failedDigestLead: (label: string) => t('rooms.failedDigestLead', { label }),
  failedDigestSend: t('rooms.failedDigestSend'),
  failedDigestAgain: (label: string) => t('rooms.failedDigestAgain', { label }),
}));

/**
 * The host reads these in their own language, times in their own zone. A provider's reason
 * (a refusal, a connection's error) is recorded in English: an English reader gets it as it
 * is, the others without it (the meeting's page in the web app shows it).
 */
const langOf = (host: User): Lang => host.language ?? 'en';
const nameOf = (host: User) => `${host.firstName} ${host.lastName}`;
const whenOf = (host: User, meeting: Meeting) => formatDateTime(meeting.start, host.timezone, langOf(host));
const meetingLine = (host: User, meeting: Meeting, ctx: NoticeContext, detail?: string) => {
  const s = STRINGS[langOf(host)];
  const [when, participant, url] = [whenOf(host, meeting), toSingleLine(meeting.participant.name), `${ctx.publicUrl}/app/meetings/${meeting.uuid}`];
  return detail && langOf(host) === 'en'
    ? s.lineWithReason(when, participant, meeting.participant.email, toSingleLine(detail), url)
    : s.line(when, participant, meeting.participant.email, url);
};
const listed = (host: User, meetings: readonly Meeting[], line: (meeting: Meeting) => string) => [
  ...meetings.slice(0, DIGEST_LISTED).map(line),
  ...(meetings.length > DIGEST_LISTED ? [STRINGS[langOf(host)].more(meetings.length - DIGEST_LISTED)] : []),
];

async function whyNotConnected(trx: DbOrTrx, host: User, provider: IntegrationProvider): Promise<string> {
  const s = STRINGS[langOf(host)];
  const connection = await findConnectionOfUser(trx, host.uuid, provider);
  if (connection?.status !== 'error') return s.whyNone(provider);
  return langOf(host) === 'en' ? `${s.whyBroken(provider)} (${toSingleLine(connection.lastError ?? 'refused')})` : s.whyBroken(provider);
}

function connectHow(host: User, provider: IntegrationProvider, ctx: NoticeContext): string {
  return STRINGS[langOf(host)].connectHow(`POST ${ctx.publicUrl}/api/v1/users/${host.uuid}/connections`, `{"provider": "${provider}"}`);
}

/** An e-mail to the host of a meeting at a place with rooms that gets none: what to connect, so it gets one. */
async function connectNotice(trx: DbOrTrx, host: User, meeting: Meeting, provider: IntegrationProvider, ctx: NoticeContext): Promise<NoticeMessagePayload> {
  const s = STRINGS[langOf(host)];
  return {
    notice: true,
    to: { name: nameOf(host), email: host.email },
    lang: langOf(host),
    subject: s.connectSubject(meeting.place, provider),
    text: [
      s.greeting(host.firstName),
      '',
      s.connectLead(toSingleLine(meeting.participant.name), whenOf(host, meeting), meeting.place, await whyNotConnected(trx, host, provider)),
      connectHow(host, provider, ctx),
      s.connectThen,
      s.connectLater,
    ].join('\n'),
  };
}

async function connectDigest(trx: DbOrTrx, host: User, meetings: readonly Meeting[], provider: IntegrationProvider, ctx: NoticeContext): Promise<NoticeMessagePayload> {
  const s = STRINGS[langOf(host)];
  const place = PROVIDER_PLACES[provider];
  return {
    notice: true,
    to: { name: nameOf(host), email: host.email },
    lang: langOf(host),
    subject: s.digestSubject(meetings.length, place, provider),
    text: [
      s.greeting(host.firstName),
      '',
      s.digestLead(place, await whyNotConnected(trx, host, provider)),
      ...listed(host, meetings, (meeting) => meetingLine(host, meeting, ctx)),
      '',
      connectHow(host, provider, ctx),
      s.digestThen,
    ].join('\n'),
  };
}

/** An e-mail to the host of a meeting whose room the provider refused for good: why, and that the link is theirs to send. */
function failedNotice(host: User, meeting: Meeting, ctx: NoticeContext): NoticeMessagePayload {
  const lang = langOf(host);
  const s = STRINGS[lang];
  const label = PLACE_LABELS[lang][meeting.place];
  const [participant, when] = [toSingleLine(meeting.participant.name), whenOf(host, meeting)];
  return {
    notice: true,
    to: { name: nameOf(host), email: host.email },
    lang,
    subject: s.failedSubject(label),
    text: [
      s.greeting(host.firstName),
      '',
      lang === 'en' ? s.failedLead(participant, when, label, toSingleLine(meeting.location?.reason ?? 'refused')) : s.failedLeadPlain(participant, when, label),
      meeting.location?.url ? s.failedKept(meeting.location.url) : s.failedSend,
      s.failedAgain(label),
      `${s.meeting}: ${ctx.publicUrl}/app/meetings/${meeting.uuid}`,
    ].join('\n'),
  };
}

function failedDigest(host: User, meetings: readonly Meeting[], provider: IntegrationProvider, ctx: NoticeContext): NoticeMessagePayload {
  const lang = langOf(host);
  const s = STRINGS[lang];
  const label = PLACE_LABELS[lang][PROVIDER_PLACES[provider]];
  return {
    notice: true,
    to: { name: nameOf(host), email: host.email },
    lang,
    subject: s.failedDigestSubject(label, meetings.length),
    text: [
      s.greeting(host.firstName),
      '',
      s.failedDigestLead(label),
      ...listed(host, meetings, (meeting) => meetingLine(host, meeting, ctx, meeting.location?.reason)),
      '',
      s.failedDigestSend,
      s.failedDigestAgain(label),
    ].join('\n'),
  };
}
