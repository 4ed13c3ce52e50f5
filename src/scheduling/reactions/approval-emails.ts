import type { DomainEvent } from '../../domain/events.js';
import { participantLocaleOf } from '../../domain/meeting.js';
import type { DbOrTrx } from '../../db/database.js';
import { findAccount } from '../../db/repositories/accounts.js';
import { findTopicIncludingDeleted } from '../../db/repositories/meeting-topics.js';
import { findUser } from '../../db/repositories/users.js';
import { newId } from '../../ids.js';
import { messageBrandingOf } from '../account/branding.js';
import { translateTopic } from '../../domain/topic-translations.js';
import { approvalNotice, type ApprovalMessageFacts } from '../../mail/approval-message.js';
import { EMAIL_JOB_KIND, type NewJob } from '../../outbox/job-kinds.js';
import type { UseCaseContext } from '../context.js';
import { manageUrl } from '../meetings/manage-token.js';

/**
 * A request's e-mails: on `meeting.requested` the participant's "request received" (with the
 * deadline and their manage link) and the host's "a request awaits you"; on
 * `meeting.declined` the participant's "request declined" with the reason. An approval sends
 * the ordinary confirmation (its `meeting.confirmed`), or the pay link for a paid topic.
 */
export async function approvalEmailJobsForEvent(trx: DbOrTrx, event: DomainEvent, now: number, ctx: Pick<UseCaseContext, 'publicUrl' | 'secretKey'>): Promise<NewJob[]> {
  if (event.type !== 'meeting.requested' && event.type !== 'meeting.declined') return [];
  const { meeting } = event.data;
  const [account, topic, host] = await Promise.all([
    findAccount(trx, meeting.accountUuid),
    findTopicIncludingDeleted(trx, meeting.topicUuid),
    findUser(trx, meeting.accountUuid, meeting.hostUuid),
  ]);
  if (!account || !topic || !host) return [];
  const hostName = `${host.firstName} ${host.lastName}`;
  const common = {
    accountName: account.name,
    topicName: topic.name,
    hostName,
    participantName: meeting.participant.name,
    start: meeting.start,
    end: meeting.end,
    deadline: meeting.holdExpiresAt ?? meeting.start,
    reason: meeting.declineReason ?? null,
  };
  const participant: ApprovalMessageFacts = {
    ...common,
    // The participant reads the topic's name in their language; the host (below) in theirs.
    topicName: translateTopic(topic, meeting.participant.lang).name,
    kind: event.type === 'meeting.requested' ? 'requested' : 'declined',
    to: { name: meeting.participant.name, email: meeting.participant.email },
    lang: meeting.participant.lang,
    ...participantLocaleOf(meeting),
    timezone: meeting.participant.timezone,
    link: event.type === 'meeting.requested' ? manageUrl(ctx.publicUrl, ctx.secretKey, meeting.uuid) : null,
  };
  const facts = [participant];
  if (event.type === 'meeting.requested') {
    facts.push({
      ...common,
      kind: 'awaiting-host',
      topicName: translateTopic(topic, host.language ?? 'en').name,
      to: { name: hostName, email: host.email },
      // The host's own language, not the participant's.
      lang: host.language ?? 'en',
      timezone: host.timezone,
      // The meeting's page in the web app, where the host approves or declines it (signing in first if need be).
      link: `${ctx.publicUrl}/app/meetings/${meeting.uuid}`,
    });
  }
  const branding = await messageBrandingOf(trx, ctx.publicUrl, meeting.accountUuid, account.name);
  return facts.map((message) => ({ uuid: newId(now), kind: EMAIL_JOB_KIND, payload: { ...approvalNotice(message), ...(branding ? { branding } : {}) } }));
}
