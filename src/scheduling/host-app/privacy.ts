import type { AuditEvent } from '../../domain/audit.js';
import type { Page } from '../../domain/paging.js';
import { findUser } from '../../db/repositories/users.js';
import { type AuditEventListInput, listAuditEvents } from '../audit/audit-events.js';
import type { Principal, UseCaseContext } from '../context.js';
import { exportParticipant, type ParticipantExport } from '../participants/participants.js';
import { listMeetingTopics } from '../topics/meeting-topics.js';

/** What the web app's audit log shows: a page of `GET /audit-events`, and the name of each member it mentions as the actor. */
export interface AuditLogView {
  page: Page<AuditEvent>;
  /** By user uuid; a member since deleted from the account is missing. */
  memberNames: ReadonlyMap<string, string>;
}

/** `/app/audit`: the account's audit log as `GET /audit-events` gives it to the admin (same check, same filters, same cursor). */
export async function getAuditLog(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, input: AuditEventListInput): Promise<AuditLogView> {
  const page = await listAuditEvents(ctx, principal, input);
  const userUuids = [...new Set(page.items.flatMap((event) => (event.actor.userUuid === undefined ? [] : [event.actor.userUuid])))];
  const users = await Promise.all(userUuids.map((uuid) => findUser(ctx.db, principal.accountUuid, uuid)));
  return { page, memberNames: new Map(users.flatMap((user) => (user ? [[user.uuid, `${user.firstName} ${user.lastName}`] as const] : []))) };
}

/** What `/app/participants` shows after "Export": `POST /participants/export`'s answer, and the names of its meetings' topics. */
export interface ParticipantExportView {
  data: ParticipantExport;
  /** By topic uuid; a deleted topic is missing. */
  topicNames: ReadonlyMap<string, string>;
}

export async function exportParticipantForApp(ctx: Pick<UseCaseContext, 'db' | 'now'>, principal: Principal, email: string): Promise<ParticipantExportView> {
  const data = await exportParticipant(ctx, principal, email);
  const topics = data.meetings.length === 0 ? [] : await listMeetingTopics(ctx, principal, {});
  return { data, topicNames: new Map(topics.map((topic) => [topic.uuid, topic.name])) };
}
